"""A column whose header path the table stage could not read unambiguously
(``col_label_doubt``) yields no statable fact where a question names the column by that
path (periods in the rows): drafting rejects it as label_uncertain."""

from __future__ import annotations

import polars as pl

from pipeline.draft.archive import build_archive, fact_problems
from pipeline.draft.sample import sample_frames


def _facts(frames: dict[str, pl.DataFrame]):
    archive, _ = build_archive(
        frames["anchored_cells"], frames["tables"], frames["documents"], frames["table_cells"]
    )
    return [f for t in archive.tables for f in t.grid.values()]


def test_a_doubtful_column_head_makes_its_cells_label_uncertain() -> None:
    frames = sample_frames(seed=3)
    assert all("label_uncertain" not in " ".join(fact_problems(f)) for f in _facts(frames))
    cells = frames["table_cells"]
    # a table whose columns are items (periods in the rows): questions name the column
    target = cells.filter(pl.col("period_axis") == "row")["table_id"][0]
    frames["table_cells"] = cells.with_columns(
        col_label_doubt=pl.when((pl.col("table_id") == target) & (pl.col("col_idx") == 0))
        .then(pl.lit("spanning head 'Fiscal year' may or may not stand over it"))
        .otherwise(pl.col("col_label_doubt"))
    )
    facts = _facts(frames)
    hit = [f for f in facts if f.table_id == target and f.col_idx == 0]
    rest = [f for f in facts if not (f.table_id == target and f.col_idx == 0)]
    assert hit and rest
    for f in hit:
        problems = fact_problems(f)
        assert any(p.startswith("label_uncertain") and "may or may not" in p for p in problems)
    assert all("label_uncertain" not in " ".join(fact_problems(f)) for f in rest)


def test_a_doubtful_head_over_period_columns_leaves_the_row_items_statable() -> None:
    """Where the columns are periods the head only dates the cell (the period reader
    decides the period); the row item a question names is not in doubt."""
    frames = sample_frames(seed=3)
    cells = frames["table_cells"]
    target = cells.filter(pl.col("period_axis") == "col")["table_id"][0]
    frames["table_cells"] = cells.with_columns(
        col_label_doubt=pl.when(pl.col("table_id") == target)
        .then(pl.lit("spanning head 'Fiscal year' may or may not stand over it"))
        .otherwise(pl.col("col_label_doubt"))
    )
    hit = [f for f in _facts(frames) if f.table_id == target]
    assert hit and all("label_uncertain" not in " ".join(fact_problems(f)) for f in hit)


def test_a_warehouse_without_the_doubt_column_still_reads() -> None:
    frames = sample_frames(seed=3)
    frames["table_cells"] = frames["table_cells"].drop("col_label_doubt")
    assert _facts(frames)
