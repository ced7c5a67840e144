"""A full ``ledgerforge build`` under a data root whose path holds glob characters
(``da[ta] {v1}``), its scans in such a folder too, publishes the release a plain root
gives; evaluating, grading and drawing evidence work there as well (issue 8, item 10).

polars and DuckDB read every path they are handed as a glob pattern: before, the OCR
cache, the validation views and the reading rule failed ("expanded paths were empty") or
read whatever sibling folder the pattern matched."""

from __future__ import annotations

import json
import shutil

import polars as pl
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.config import data_paths
from pipeline.draft.workbook_qa import WORKBOOK_KINDS
from pipeline.publish.audit import audit_release
from pipeline.store import Warehouse

runner = CliRunner()

# what a task says and reads; the documents' paths differ (the scans were copied)
TASK_COLUMNS = ["task_id", "kind", "status", "question", "answer", "lo", "hi", "reasons"]


@pytest.fixture(scope="module")
def odd_build(built, tmp_path_factory):
    """The session corpus built again by the CLI, under ``…/da[ta] {v1}``: ``(paths, scans,
    result)``; ``scans`` is the corpus copied to ``…/sc[an]s *?`` (truth included). Only
    the OCR cache is carried over: the page cache would make this a rebuild (see the last
    test)."""
    _, corpus, good_lf, _ = built
    base = tmp_path_factory.mktemp("glob")
    scans = base / "sc[an]s *?"
    shutil.copytree(corpus.root, scans)
    paths = data_paths(base / "da[ta] {v1}")
    # the good build's OCR (keyed by page-image content) spares re-running tesseract; the
    # words stage still reads every page's words from this cache under the odd root
    shutil.copytree(data_paths(good_lf.data_root).cache / "ocr", paths.cache / "ocr")
    result = runner.invoke(
        app, ["build", "--data-root", str(paths.root), "--scans", f"synth={scans}"]
    )
    return paths, scans, result


def test_the_build_publishes_the_same_release(odd_build, built):
    paths, _, result = odd_build
    assert result.exit_code == 0, result.output
    release = paths.releases / "v1"
    assert (release / "MANIFEST.json").exists()
    assert sorted(p.name for p in paths.releases.iterdir()) == ["v1"]
    report = audit_release(release, paths.warehouse)
    assert report.ok, report.render()

    _, _, good_lf, _ = built

    def tasks(warehouse: Warehouse) -> pl.DataFrame:
        # the scanned half: the session build also holds the generated mailbox's tasks
        scanned = ~pl.col("kind").is_in(list(WORKBOOK_KINDS))
        return warehouse.read("tasks").filter(scanned).select(TASK_COLUMNS).sort("task_id")

    good = tasks(Warehouse(data_paths(good_lf.data_root)))
    assert good.filter(pl.col("status") == "accepted").height >= 30
    odd = tasks(Warehouse(paths))
    differ = ["task_id", "status", "answer", "reasons"]
    assert odd.equals(good), (
        odd.select(differ).join(good.select(differ), on=differ, how="anti"),
        good.select(differ).join(odd.select(differ), on=differ, how="anti"),
    )


def test_evaluate_against_truth_in_a_glob_like_folder(odd_build):
    paths, scans, result = odd_build
    assert result.exit_code == 0, result.output
    truth = scans / "truth"
    assert (truth / "truth_cells.parquet").exists()
    out = runner.invoke(app, ["evaluate", "--data-root", str(paths.root), "--truth", str(truth)])
    assert out.exit_code == 0, out.output
    assert "wrong 0, unverifiable 0" in out.output
    assert "precision: 1.0" in out.output


def test_grade_and_report_a_release_in_a_glob_like_folder(odd_build, tmp_path):
    paths, _, result = odd_build
    assert result.exit_code == 0, result.output
    release = paths.releases / "v1"
    keys = pl.read_parquet(release / "private" / "qa_answers.parquet", glob=False)
    responses = tmp_path / "resp[0]*.jsonl"
    with responses.open("w", encoding="utf-8") as fh:
        for row in keys.iter_rows(named=True):
            record = {
                "task_id": row["task_id"],
                "agent": "oracle",
                "attempt": 1,
                "response": f"ANSWER: {row['answer']}",
            }
            fh.write(json.dumps(record) + "\n")
    out_dir = tmp_path / "grad[ing] {x}"
    graded = runner.invoke(app, ["grade", str(release), str(responses), "--out", str(out_dir)])
    assert graded.exit_code == 0, graded.output
    assert f"graded {keys.height} attempts" in graded.output
    verdicts = pl.read_parquet(out_dir / "verdicts.parquet", glob=False)
    assert verdicts.height == keys.height
    again = runner.invoke(app, ["report", str(out_dir), "--release-dir", str(release)])
    assert again.exit_code == 0, again.output


def test_show_evidence_from_a_release_in_a_glob_like_folder(odd_build, tmp_path):
    paths, _, result = odd_build
    assert result.exit_code == 0, result.output
    release = paths.releases / "v1"
    out_dir = tmp_path / "ev[id]ence"
    shown = runner.invoke(
        app, ["show", "--all", "2", "--release-dir", str(release), "--out-dir", str(out_dir)]
    )
    assert shown.exit_code == 0, shown.output
    assert len(list(out_dir.glob("*.png"))) == 2
    task_id = Warehouse(paths).read("tasks").filter(pl.col("status") == "accepted")["task_id"][0]
    one = runner.invoke(
        app, ["show", task_id, "--data-root", str(paths.root), "--out", str(tmp_path / "t.png")]
    )
    assert one.exit_code == 0, one.output
    assert (tmp_path / "t.png").exists()


def test_a_rebuild_reuses_the_release(odd_build):
    paths, scans, result = odd_build
    assert result.exit_code == 0, result.output
    again = runner.invoke(
        app, ["build", "--data-root", str(paths.root), "--scans", f"synth={scans}"]
    )
    assert again.exit_code == 0, again.output
    assert sorted(p.name for p in paths.releases.iterdir()) == ["v1"]
