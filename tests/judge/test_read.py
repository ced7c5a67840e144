"""Reading for judging: a style the reader cannot handle is skipped with a note."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from openpyxl.styles import GradientFill, PatternFill

from pipeline.ingest.workbooks import WorkbookError
from pipeline.judge import judge_pair
from pipeline.judge.read import NOTE_GRADIENT, read_for_judging


def gradient_book(path: Path, revenue: dict[int, float] | None = None) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Units", "Price"])
    for i, region in enumerate(["North", "South"], start=1):
        ws.append([region, i * 10, 2.5 * i])
    ws["F1"] = "legend"
    ws["F1"].fill = GradientFill(stop=("FF0000", "0000FF"))
    ws["A2"].fill = PatternFill("solid", fgColor="FFFF00")
    if revenue:
        ws["D1"] = "Revenue"
        for row, value in revenue.items():
            ws[f"D{row}"] = value
    wb.save(path)
    return path


def test_gradient_fill_is_skipped_with_a_note(tmp_path: Path) -> None:
    wb, notes = read_for_judging(gradient_book(tmp_path / "g.xlsx"), recalculate=False)
    assert notes == [f"g.xlsx: {NOTE_GRADIENT}"]
    assert wb.path == tmp_path / "g.xlsx"
    sales = wb.sheets["Sales"]
    assert sales.get(1, 6).text == "legend" and sales.get(1, 6).fill is None
    assert sales.get(2, 1).fill == "FFFF00"  # pattern fills are still read


def test_missing_files_still_raise(tmp_path: Path) -> None:
    with pytest.raises(WorkbookError, match="nope.xlsx"):
        read_for_judging(tmp_path / "nope.xlsx")
    (tmp_path / "text.xlsx").write_text("not a workbook")
    with pytest.raises(WorkbookError, match="text.xlsx"):
        read_for_judging(tmp_path / "text.xlsx")


def test_a_task_with_gradient_fills_is_judged(tmp_path: Path) -> None:
    inp = gradient_book(tmp_path / "input.xlsx")
    ref = gradient_book(tmp_path / "reference.xlsx", {2: 25.0, 3: 100.0})
    wrong = gradient_book(tmp_path / "wrong.xlsx", {2: 25.0, 3: 101.0})
    ok = judge_pair(inp, ref, ref, "Add Revenue.", answer_position="'Sales'!D1:D3")
    assert ok.verdict is True and ok.error is None
    assert any(NOTE_GRADIENT in n for n in ok.notes)
    bad = judge_pair(inp, wrong, ref, "Add Revenue.", answer_position="'Sales'!D1:D3")
    assert bad.verdict is False and "Sales!D3" in bad.rationale
    assert NOTE_GRADIENT in bad.rationale


def test_a_failed_recalculation_is_a_note_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*3"  # saved without a cached value
    wb.save(tmp_path / "f.xlsx")

    def no_soffice(_wb: object) -> int:
        raise WorkbookError("f.xlsx: LibreOffice (soffice) is not installed")

    monkeypatch.setattr("pipeline.judge.read.fill_uncached_values", no_soffice)
    book, notes = read_for_judging(tmp_path / "f.xlsx")
    assert book.sheets["Sheet"].get(2, 1).formula == "=A1*3"
    assert notes and "not recalculated" in notes[0] and "soffice" in notes[0]
