"""Audit: passes on a fresh release; fails precisely on a tampered oracle, Parquet or warehouse."""

from __future__ import annotations

import shutil

import polars as pl
import pytest

from pipeline.publish import audit_release, publish_release


@pytest.fixture
def fresh(validated_sample, tmp_path):
    """A private copy of the warehouse and a release built on it."""
    warehouse = tmp_path / "warehouse"
    shutil.copytree(validated_sample.warehouse_dir, warehouse)
    release = publish_release(
        validated_sample.tasks, validated_sample.drafts, tmp_path / "releases", "1.0"
    )
    return release, warehouse


def _a_read_number(release):
    answers = pl.read_parquet(release / "private/qa_answers.parquet")
    test = pl.read_parquet(release / "data/qa/test.parquet")
    row = (
        test.filter(pl.col("kind") == "read_number").join(answers, on="task_id").row(0, named=True)
    )
    return row


def test_audit_passes_on_a_fresh_release(fresh):
    release, warehouse = fresh
    report = audit_release(release, warehouse)
    assert report.ok, report.render()
    assert report.n_oracles == report.n_reproduced > 0
    assert "OK" in report.render()


def test_audit_fails_when_an_oracle_file_is_altered(fresh):
    release, warehouse = fresh
    row = _a_read_number(release)
    path = release / "oracles" / f"{row['task_id']}.py"
    path.write_text(path.read_text().replace("emit(answer=x1,", "emit(answer=x1 + 1,"))
    report = audit_release(release, warehouse)
    assert not report.ok
    assert [p.path for p in report.file_problems] == [f"oracles/{row['task_id']}.py"]
    changed = [c for c in report.key_changes if c.problem == "changed"]
    assert [(c.task_id, c.old, c.new) for c in changed] == [
        (row["task_id"], row["answer"], str(int(row["answer"]) + 1))
    ]
    assert f"oracles/{row['task_id']}.py: sha256 mismatch" in report.render()


def test_audit_fails_when_a_parquet_file_is_altered(fresh):
    release, warehouse = fresh
    row = _a_read_number(release)
    path = release / "private/qa_answers.parquet"
    answers = pl.read_parquet(path)
    forged = answers.with_columns(
        pl.when(pl.col("task_id") == row["task_id"])
        .then(pl.lit("123"))
        .otherwise(pl.col("answer"))
        .alias("answer")
    )
    forged.write_parquet(path)
    report = audit_release(release, warehouse)
    assert not report.ok
    assert [(p.path, p.problem) for p in report.file_problems] == [
        ("private/qa_answers.parquet", "sha256 mismatch")
    ]
    assert [(c.task_id, c.old, c.new) for c in report.key_changes] == [
        (row["task_id"], "123", row["answer"])
    ]


def test_audit_fails_when_a_warehouse_number_is_altered(fresh):
    release, warehouse = fresh
    row = _a_read_number(release)
    source = (release / "oracles" / f"{row['task_id']}.py").read_text()
    # the cell the oracle reads: change its anchored value (still passes its identity
    # check, which recomputes from table_cells) so the key moves by 10
    anchored = pl.read_parquet(warehouse / "anchored_cells")
    hit = pl.lit(False)
    for r in anchored.iter_rows(named=True):
        if (
            f"doc={r['doc_id']!r}, page={r['page_no']}, table={r['table_no']}, "
            f"row={r['row_label']!r}, col={r['col_label']!r}" in source
        ):
            hit = hit | (
                (pl.col("doc_id") == r["doc_id"])
                & (pl.col("row_idx") == r["row_idx"])
                & (pl.col("col_idx") == r["col_idx"])
                & (pl.col("page_no") == r["page_no"])
            )
    bumped = anchored.with_columns(
        pl.when(hit)
        .then((pl.col("value_str").cast(pl.Int64) + 10).cast(pl.String))
        .otherwise(pl.col("value_str"))
        .alias("value_str")
    )
    assert (bumped["value_str"] != anchored["value_str"]).sum() == 1
    for part in (warehouse / "anchored_cells").glob("*.parquet"):
        part.unlink()
    bumped.write_parquet(warehouse / "anchored_cells" / "all.parquet")
    report = audit_release(release, warehouse)
    assert not report.ok and report.file_problems == []
    assert [
        (c.task_id, c.problem, c.old, c.new)
        for c in report.key_changes
        if c.task_id == row["task_id"]
    ] == [(row["task_id"], "changed", row["answer"], str(int(row["answer"]) + 10))]
    assert f"task {row['task_id']}: changed (published {row['answer']}" in report.render()
