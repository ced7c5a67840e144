"""The ``ledgerforge`` command, driven as a user would (typer's CliRunner)."""

from __future__ import annotations

import json

import polars as pl
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.draft import draft_tasks
from pipeline.draft.sample import write_sample_warehouse
from pipeline.store import Warehouse
from pipeline.validate import build_contamination_index, validate_drafts
from tests.grade.conftest import build_release, simulate

runner = CliRunner()


def test_synth_writes_a_corpus_with_truth(tmp_path):
    out = tmp_path / "scans"
    result = runner.invoke(
        app, ["synth", "--out", str(out), "--volumes", "1", "--tables-per-volume", "2"]
    )
    assert result.exit_code == 0, result.output
    assert len(list(out.glob("synth_bulletin_*.pdf"))) == 1
    cells = pl.read_parquet(out / "truth" / "truth_cells.parquet")
    assert cells.height > 20


def test_release_audit_and_tamper_through_the_cli(data_root):
    wh = Warehouse(data_root)
    frames = write_sample_warehouse(wh, seed=21)
    drafts = draft_tasks(
        frames["anchored_cells"],
        frames["tables"],
        frames["documents"],
        seed=4,
        table_cells=frames["table_cells"],
    )
    tasks = validate_drafts(drafts, wh.root, build_contamination_index(wh.root))
    wh.replace("drafts", drafts)
    wh.replace("tasks", tasks)

    made = runner.invoke(app, ["release", "v1", "--data-root", str(data_root.root)])
    assert made.exit_code == 0, made.output
    release = data_root.releases / "v1"
    again = runner.invoke(app, ["release", "v1", "--data-root", str(data_root.root)])
    assert again.exit_code == 1 and "immutable" in again.output

    clean = runner.invoke(app, ["audit", str(release), "--data-root", str(data_root.root)])
    assert clean.exit_code == 0, clean.output
    assert "OK" in clean.output

    oracle = sorted((release / "oracles").glob("*.py"))[0]
    oracle.write_text(oracle.read_text().replace("places=", "places=1 + "))
    tampered = runner.invoke(app, ["audit", str(release), "--data-root", str(data_root.root)])
    assert tampered.exit_code == 1
    assert f"oracles/{oracle.name}" in tampered.output


def test_grade_and_report_through_the_cli(tmp_path):
    release, tasks = build_release(tmp_path / "release", n_tasks=30)
    responses = tmp_path / "responses.jsonl"
    simulate(tasks, {"strong": 0.9, "weak": 0.3}, attempts=2, path=responses)
    out = tmp_path / "grading"
    graded = runner.invoke(app, ["grade", str(release), str(responses), "--out", str(out)])
    assert graded.exit_code == 0, graded.output
    verdicts = pl.read_parquet(out / "verdicts.parquet")
    assert verdicts.height == 30 * 2 * 2
    assert (out / "report.html").stat().st_size > 10_000

    (out / "report.html").unlink()
    rendered = runner.invoke(app, ["report", str(out), "--release-dir", str(release)])
    assert rendered.exit_code == 0, rendered.output
    assert "<img" in (out / "report.html").read_text()


def test_status_lists_tables_and_quarantine(data_root):
    wh = Warehouse(data_root)
    wh.replace("documents", pl.DataFrame({"doc_id": ["a", "b"]}))
    from pipeline.store import Intake

    intake = Intake("documents")
    intake.quarantine("/x/broken.pdf", "zero-byte file: /x/broken.pdf has 0 bytes")
    wh.write("quarantine", intake.quarantine_frame(), part="documents")
    result = runner.invoke(app, ["status", "--data-root", str(data_root.root)])
    assert result.exit_code == 0, result.output
    assert "documents" in result.output and "broken.pdf" in result.output
    assert json.dumps("zero-byte")[1:-1] in result.output


def test_judge_with_human_labels(tmp_path):
    from tests.judge.test_checker import book, revenue_values

    book(tmp_path / "input.xlsx")
    book(tmp_path / "reference.xlsx", revenue_values)
    book(tmp_path / "good.xlsx", revenue_values)
    book(tmp_path / "bad.xlsx", lambda ws: ws.__setitem__("D2", 999))
    cases = [
        {"case_id": name, "instruction": "Add a Revenue column (Units x Price).",
         "input": "input.xlsx", "reference": "reference.xlsx", "output": f"{name}.xlsx"}
        for name in ("good", "bad")
    ]  # fmt: skip
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "labels.csv").write_text("case_id,label\ngood,pass\nbad,pass\n")
    out = tmp_path / "judged"
    result = runner.invoke(
        app,
        [
            "judge",
            str(tmp_path / "cases.json"),
            "--out",
            str(out),
            "--labels",
            str(tmp_path / "labels.csv"),
        ],
    )
    assert result.exit_code == 0, result.output
    verdicts = dict(
        pl.read_parquet(out / "judgements.parquet").select("case_id", "verdict").iter_rows()
    )
    assert verdicts == {"good": True, "bad": False}
    assert "accuracy 0.5" in result.output and "precision 1.0" in result.output
    assert "## Sheet: Sales" in (out / "cases" / "good.md").read_text()
