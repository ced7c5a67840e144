"""Aligned workbook diffs on generated workbooks: an inserted row or column is one
insertion, value and formula changes are told apart, sheets added/removed/renamed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from openpyxl.chart import LineChart, Reference

from pipeline.detect import alignment
from pipeline.detect.diffs import DIFFS_SCHEMA, classify, diff_workbooks, formula_signature
from pipeline.ingest.workbooks import Cell, Workbook, read_workbook

N_ITEMS = 30


def ledger_rows(insert_at: int | None = None, extra_col: bool = False) -> list[list[object]]:
    """A small ledger with a per-row formula; optionally one row or column inserted."""
    items: list[tuple[str, object, object]] = [
        (f"item{i}", i * 10, i * 7 + 3) for i in range(1, N_ITEMS + 1)
    ]
    if insert_at is not None:
        items.insert(insert_at, ("new item", 5, 6))
    rows: list[list[object]] = [["Item", "Q1", "Q2", "Total"]]
    for k, (name, q1, q2) in enumerate(items):
        r = k + 2  # formulas refer to their own row, as Excel shifts them on insertion
        rows.append([name, q1, q2, f"=B{r}+C{r}"])
    if extra_col:
        rows = [
            r[:2] + (["Region"] if i == 0 else [f"r{i % 3}"]) + r[2:] for i, r in enumerate(rows)
        ]
        for i, r in enumerate(rows[1:], start=2):
            r[4] = f"=B{i}+D{i}"
    return rows


def save(
    path: Path, rows: list[list[object]], edit: Callable[[openpyxl.Workbook], None] | None = None
) -> Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Ledger"
    for row in rows:
        ws.append(row)
    if edit:
        edit(wb)
    wb.save(path)
    return read_workbook(path)


@pytest.fixture
def base(tmp_path: Path) -> Workbook:
    return save(tmp_path / "base.xlsx", ledger_rows())


def test_inserted_row_is_one_insertion(tmp_path: Path, base: Workbook) -> None:
    after = save(tmp_path / "row.xlsx", ledger_rows(insert_at=9))
    diff = diff_workbooks(base, after)
    sd = diff.sheet_diff("Ledger")
    assert [(a.axis, a.kind, a.start, a.count) for a in sd.axis_edits] == [
        ("row", "inserted", 11, 1)
    ]
    assert sd.cell_edits == []  # the shifted rows and their shifted formulas are not noise
    assert diff.n_edits == 1
    assert sd.row_map[12] == 13 and sd.row_map[10] == 10


def test_deleted_rows_are_one_run(tmp_path: Path, base: Workbook) -> None:
    rows = ledger_rows()
    del rows[5:8]
    for k, r in enumerate(rows[1:], start=2):
        r[3] = f"=B{k}+C{k}"
    after = save(tmp_path / "del.xlsx", rows)
    sd = diff_workbooks(base, after).sheet_diff("Ledger")
    assert [(a.axis, a.kind, a.start, a.count, a.n_cells) for a in sd.axis_edits] == [
        ("row", "deleted", 6, 3, 12)
    ]
    assert sd.cell_edits == []


def test_inserted_column_is_one_insertion(tmp_path: Path, base: Workbook) -> None:
    after = save(tmp_path / "col.xlsx", ledger_rows(extra_col=True))
    sd = diff_workbooks(base, after).sheet_diff("Ledger")
    assert [(a.axis, a.kind, a.start, a.count) for a in sd.axis_edits] == [
        ("col", "inserted", 3, 1)
    ]
    # the Total formulas now point one column further right: a real formula change
    kinds = {e.kind for e in sd.cell_edits}
    assert kinds == {"formula_changed"}
    assert len(sd.cell_edits) == N_ITEMS


def test_value_and_formula_changes_are_told_apart(tmp_path: Path) -> None:
    def hole(wb: openpyxl.Workbook) -> None:
        wb["Ledger"]["B20"] = None

    def edit(wb: openpyxl.Workbook) -> None:
        ws = wb["Ledger"]
        ws["B4"] = 999  # constant -> constant
        ws["D6"] = "=B6*C6"  # formula -> another formula
        ws["D8"] = 42  # formula -> constant
        ws["C10"] = "=1+1"  # constant -> formula
        ws["A12"] = None  # cleared
        ws["F2"] = "note"  # beyond the old columns: E:F appended, holding one cell

    before = save(tmp_path / "before.xlsx", ledger_rows(), hole)
    after = save(tmp_path / "edit.xlsx", ledger_rows(), edit)  # B20 filled again
    diff = diff_workbooks(before, after)
    sd = diff.sheet_diff("Ledger")
    got = {(e.after_address or e.before_address, e.kind) for e in sd.cell_edits}
    assert got == {
        ("B4", "value_changed"),
        ("D6", "formula_changed"),
        ("D8", "formula_to_value"),
        ("C10", "value_to_formula"),
        ("A12", "cell_removed"),
        ("B20", "cell_added"),
    }
    assert [(a.axis, a.kind, a.start, a.count, a.n_cells) for a in sd.axis_edits] == [
        ("col", "inserted", 5, 2, 1)
    ]
    frame = diff.frame()
    assert dict(frame.schema) == DIFFS_SCHEMA
    assert frame.height == 7
    assert "D8: formula_to_value" in diff.markdown()


def test_sheets_added_removed_renamed_and_charts(tmp_path: Path) -> None:
    def before_edit(wb: openpyxl.Workbook) -> None:
        wb.create_sheet("Old")["A1"] = "to be removed"
        ws = wb.create_sheet("Notes")
        for i in range(10):
            ws.append([f"note {i}", i])

    def after_edit(wb: openpyxl.Workbook) -> None:
        wb.create_sheet("Summary")["A1"] = "new"
        ws = wb.create_sheet("Remarks")  # Notes, renamed
        for i in range(10):
            ws.append([f"note {i}", i])
        chart = LineChart()
        chart.add_data(
            Reference(wb["Ledger"], min_col=2, min_row=1, max_row=5), titles_from_data=True
        )
        wb["Ledger"].add_chart(chart, "G2")

    before = save(tmp_path / "b.xlsx", ledger_rows(), before_edit)
    after = save(tmp_path / "a.xlsx", ledger_rows(), after_edit)
    diff = diff_workbooks(before, after)
    assert diff.sheets_added == ["Summary"]
    assert diff.sheets_removed == ["Old"]
    renamed = diff.sheet_diff("Remarks")
    assert renamed.status == "renamed" and renamed.before_name == "Notes"
    assert renamed.cell_edits == [] and renamed.axis_edits == []
    assert diff.sheet_diff("Ledger").charts_added == ["LineChart@G2"]
    kinds = sorted(diff.frame()["kind"].to_list())
    assert kinds == ["chart_added", "sheet_added", "sheet_removed", "sheet_renamed"]


def test_identical_workbooks_have_no_edits(tmp_path: Path, base: Workbook) -> None:
    same = save(tmp_path / "same.xlsx", ledger_rows())
    diff = diff_workbooks(base, same)
    assert diff.is_empty and diff.markdown() == "(no changes)"


def test_formula_signature_normalises() -> None:
    assert formula_signature("=sum( $a$1:A3 )") == formula_signature("=SUM(A1:A3)")
    assert formula_signature("=_xlfn.XLOOKUP(A1,'Sheet 1'!A:A,B:B)") == formula_signature(
        "=XLOOKUP(A1,'SHEET 1'!A:A,B:B)"
    )
    # position-relative: the same formula filled down compares equal
    assert formula_signature("=B7*C7", 7, 4) == formula_signature("=B8*C8", 8, 4)
    assert formula_signature("=B7*C7", 7, 4) != formula_signature("=B7*C7", 8, 4)
    assert formula_signature('="a b"&A1') != formula_signature('="A B"&A1')


def _rows(n: int, seed: int) -> list[tuple]:
    """Row signatures with many repeats (blank rows, a few categories), as on real sheets."""
    import random

    rng = random.Random(seed)
    return [(None, None) if r % 7 == 0 else (f"id{r}", rng.choice("ABCD")) for r in range(n)]


def test_long_sequences_are_anchored_and_align_insertions_exactly() -> None:
    """Past ANCHOR_MIN_LENGTH the aligner anchors on unique equal rows and aligns only
    the gaps: an identical copy pairs every row with itself, and rows inserted and
    deleted in a long sheet are found as such (no cascade of changed rows)."""
    n = alignment.ANCHOR_MIN_LENGTH * 2
    a = _rows(n, 1)
    same = lambda i, j: 1.0 if a[i] == a[j] else 0.0  # noqa: E731
    assert alignment.align(a, list(a), same) == [(i, i) for i in range(n)]
    b = list(a)
    deleted = {1_000, 1_001, 5_555}
    b = [row for i, row in enumerate(a) if i not in deleted]
    for at in (10, 4_000, 7_000):
        b.insert(at, ("new", at))

    def similarity(i: int, j: int) -> float:
        return 1.0 if a[i] == b[j] else 0.0

    pairs = alignment.align(a, b, similarity)
    assert sorted(i for i, j in pairs if j is None) == sorted(deleted)
    assert sorted(b[j] for i, j in pairs if i is None) == sorted(
        ("new", x) for x in (10, 4_000, 7_000)
    )
    assert all(a[i] == b[j] for i, j in pairs if i is not None and j is not None)
    # the quadratic path gives the same pairs where both apply
    short_a, short_b = a[:1_500], [r for r in b[:1_500]]
    quad = alignment._align_block(short_a, short_b, similarity, alignment.GAP_PENALTY)
    assert [p for p in quad if None in p] == [
        p
        for p in alignment._anchored(short_a, short_b, 0, 1_500, 0, 1_500, similarity, 0.5)
        if None in p
    ]


def test_axis_edit_cell_counts_on_many_runs(tmp_path: Path, base: Workbook) -> None:
    """Cell counts of insertion runs come from per-row counts (not a scan per run)."""
    rows = ledger_rows()
    for at in (3, 9, 15):
        rows.insert(at, ["inserted", 1, 2, None])
    diff = diff_workbooks(base, save(tmp_path / "runs.xlsx", rows))
    inserted = [a for a in diff.sheet_diff("Ledger").axis_edits if a.kind == "inserted"]
    assert [(a.count, a.n_cells) for a in inserted] == [(1, 3), (1, 3), (1, 3)]


def test_rounded_cache_of_the_same_formula_is_not_a_recalculation() -> None:
    def cell(value: float) -> Cell:
        return Cell("S", 5, 4, value, "F", "=B5/B$10")

    # a writer that rounds its cache to 6 decimals vs the full double of a conversion
    assert classify(cell(0.246269), cell(0.246268656716418)) is None
    assert classify(cell(697433.808), cell(697432.835820896)) is None
    assert classify(cell(0.246269), cell(0.25)) == "recalculated"
