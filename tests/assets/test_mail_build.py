"""The mail and spreadsheet half of the session build (``built``: the generated mailbox and
spreadsheet corpus of seed 11) scored against the generator's truth, and its release."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import polars as pl

from pipeline.config import data_paths
from pipeline.detect.mail_truth import evaluate_mail_truth
from pipeline.publish.audit import audit_release
from pipeline.publish.workflows import WORKFLOWS_PRIVATE, WORKFLOWS_PUBLIC
from pipeline.store import Warehouse


def _mail(built) -> tuple[Path, Warehouse, Path]:
    root, _, lf, _ = built
    paths = data_paths(lf.data_root)
    return root / "mail" / "truth.json", Warehouse(paths), paths.releases / "v1"


def test_threads_chains_and_edits_match_the_truth(built):
    truth, wh, _ = _mail(built)
    score = evaluate_mail_truth(
        truth,
        messages=wh.read("messages"),
        threads=wh.read("threads"),
        chains=wh.read("version_chains"),
        version_diffs=wh.read("version_diffs"),
    )
    lines = "\n".join(score.lines())
    assert score.threads.f1 >= 0.95, lines
    assert score.chains.precision >= 0.95 and score.chains.recall >= 0.9, lines
    assert score.edits.n_found == score.edits.n_seeded > 0, lines
    assert score.edits.n_phantom == 0, lines


def test_workflow_tasks_accepted_with_checkers_that_decide(built):
    _, wh, _ = _mail(built)
    tasks = wh.read("workflow_tasks")
    accepted = tasks.filter(pl.col("status") == "accepted")
    assert accepted.height >= 30
    assert accepted.filter(pl.col("steps") >= 2).height >= 5
    assert accepted["reference_passed"].all() and not accepted["input_passed"].any()
    assert set(accepted["origin"]) == {"thread", "chain"}
    rejected = tasks.filter(pl.col("status") == "rejected")
    assert rejected.filter(pl.col("reasons").list.len() == 0).is_empty()
    trivial = rejected.filter(
        pl.col("reasons").list.eval(pl.element().str.starts_with("trivial")).list.any()
    )
    assert trivial.height > 0  # the seeded formatting-only and date-stamp-only steps


def test_release_has_the_workflows_config_and_audits(built):
    _, wh, release = _mail(built)
    public = pl.read_parquet(release / WORKFLOWS_PUBLIC)
    private = pl.read_parquet(release / WORKFLOWS_PRIVATE)
    accepted = wh.read("workflow_tasks").filter(pl.col("status") == "accepted")
    assert sorted(public["task_id"]) == sorted(accepted["task_id"]) == sorted(private["task_id"])
    for row in public.iter_rows(named=True):
        assert (release / row["input_file"]).is_file() and (release / row["checker"]).is_file()
    assert "config_name: workflows" in (release / "README.md").read_text()
    report = audit_release(release, data_paths(built[2].data_root).warehouse)
    assert report.ok, report.render()
    assert report.n_checkers == report.n_checkers_ok == public.height


def _release_text(release: Path) -> str:
    """Every text the release holds: files as text, Parquet string cells, workbook XML."""
    parts = []
    for path in sorted(p for p in release.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".parquet":
            frame = pl.read_parquet(io.BytesIO(data))
            parts += [str(v) for row in frame.iter_rows() for v in row if v is not None]
        elif path.suffix == ".xlsx":
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                parts += [zf.read(n).decode("utf-8", "replace") for n in zf.namelist()]
        else:
            parts.append(data.decode("utf-8", "replace"))
    return "\n".join(parts)


def test_no_seeded_personal_datum_in_the_release(built):
    import json

    truth, _, release = _mail(built)
    pii = json.loads(truth.read_text())["pii"]
    assert len(pii) >= 20
    text = _release_text(release).lower()
    leaked = [p for p in pii if p.lower() in text]
    assert not leaked, leaked


def test_audit_fails_on_a_tampered_reference_workbook(built, tmp_path):
    """A forger who edits a reference workbook and rewrites MANIFEST.json to match is
    still caught: the checker (which holds the reference's required cells) fails it."""
    import json
    import shutil

    import openpyxl

    from pipeline.publish.manifest import write_manifest

    _, _, release = _mail(built)
    forged = tmp_path / "v1"
    shutil.copytree(release, forged)
    private = pl.read_parquet(forged / WORKFLOWS_PRIVATE)
    target = forged / private["reference_file"][0]
    wb = openpyxl.load_workbook(target)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, int | float) and not isinstance(cell.value, bool):
                    cell.value = cell.value + 1
    wb.save(target)
    write_manifest(forged, json.loads((release / "MANIFEST.json").read_text())["version"])
    report = audit_release(forged, data_paths(built[2].data_root).warehouse)
    assert not report.ok
    tampered = {c.task_id for c in report.key_changes if c.problem == "reference fails its checker"}
    uses = set(private.filter(pl.col("reference_file") == private["reference_file"][0])["task_id"])
    assert tampered and tampered <= uses, report.render()


def test_workbook_qa_keys_are_the_generators_totals(built):
    """A workbook-total key is the sum its oracle recomputes from the member cells; on the
    generated workbooks it must equal the total the generator computed and cached."""
    from decimal import Decimal

    from pipeline.draft.workbook_qa import KIND, task_id_for

    _, wh, release = _mail(built)
    anchors = wh.read("workbook_anchors")
    cached = {task_id_for(a): a["cached"] for a in anchors.iter_rows(named=True)}
    tasks = wh.read("tasks").filter((pl.col("status") == "accepted") & (pl.col("kind") == KIND))
    assert tasks.height >= 10
    for t in tasks.iter_rows(named=True):
        step = Decimal(1).scaleb(-t["precision"])
        assert Decimal(t["answer"]) == Decimal(cached[t["task_id"]]).quantize(step), t["task_id"]


def test_workbook_qa_names_its_workbook_file_and_the_release_ships_it(built):
    from pipeline.draft.workbook_qa import KIND

    _, _, release = _mail(built)
    public = pl.concat(
        [
            pl.read_parquet(release / "data/qa/test.parquet").select(
                "kind", "question", "source_docs"
            ),
            pl.read_parquet(release / "data/qa_examples/dev.parquet").select(
                "kind", "question", "source_docs"
            ),
        ]
    ).filter(pl.col("kind") == KIND)
    assert public.height > 0
    for row in public.iter_rows(named=True):
        (doc,) = row["source_docs"]
        assert doc.startswith("files/") and doc in row["question"]
        assert (release / doc).is_file()
    # no two published questions read the same
    assert public["question"].n_unique() == public.height
