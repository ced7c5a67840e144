"""Workbook reading: cell records, types, formulas with cached values, sheet notes, .xls."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import openpyxl
import pytest
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import PatternFill

from pipeline.config import SHARED_DATA
from pipeline.ingest.workbooks import (
    CELLS_SCHEMA,
    SHEETS_SCHEMA,
    WorkbookError,
    ingest_workbooks,
    read_workbook,
    workbook_frames,
)
from pipeline.store import BlobStore

EUSES = SHARED_DATA / "euses"


def _typed_workbook(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["Item", "Units", "Price", "Booked", "Paid", "Total"])
    ws.append(["bolts", 12, 2.5, dt.datetime(2001, 5, 1), True, "=B2*C2"])
    ws.append(["nuts", 3, 0.25, dt.datetime(2001, 5, 2), False, "=B3*C3"])
    ws["A5"] = "#DIV/0!"
    ws["A5"].data_type = "e"
    ws["B5"] = ""  # an empty string is an empty cell
    ws["C2"].fill = PatternFill("solid", fgColor="FFFF00")
    ws.merge_cells("A7:C7")
    ws["A7"] = "merged note"
    chart = BarChart()
    chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    ws.add_chart(chart, "H2")
    wb.create_sheet("Empty")
    wb.save(path)
    return path


def test_one_record_per_non_empty_cell_with_types(tmp_path: Path) -> None:
    wb = read_workbook(_typed_workbook(tmp_path / "t.xlsx"))
    data = wb.sheet("Data")
    assert len(data.cells) == 6 + 6 + 6 + 1 + 1  # header, two rows, error, merged note
    types = {c.address: c.type for c in data.cells.values()}
    assert types["A1"] == "T" and types["B2"] == "I" and types["C2"] == "F"
    assert types["D2"] == "D" and types["E2"] == "B" and types["A5"] == "E"
    # openpyxl-written formulas carry no cached value: formula kept, value and type null
    total = data.get(2, 6)
    assert total.formula == "=B2*C2" and total.value is None and total.type is None
    assert data.get(5, 2) is None
    assert data.get(2, 3).fill == "FFFF00"
    assert data.merged_ranges == ["A7:C7"]
    assert data.charts == ["BarChart@H2"]
    assert data.used_range == "A1:F7"
    assert wb.sheet("Empty").used_range is None


def test_cached_values_come_from_the_second_load(tmp_path: Path) -> None:
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    from pipeline.ingest.workbooks import convert_with_soffice

    src = _typed_workbook(tmp_path / "t.xlsx")
    # a LibreOffice round trip computes and stores the formula results, as Excel does
    recalculated = convert_with_soffice(src, tmp_path / "calc", "xlsx", timeout=120)
    cell = read_workbook(recalculated).sheet("Data").get(2, 6)
    assert cell.formula == "=B2*C2"
    assert cell.value == 30 and cell.type == "I"


def test_frames_follow_the_schemas(tmp_path: Path) -> None:
    wb = read_workbook(_typed_workbook(tmp_path / "t.xlsx"))
    frames = workbook_frames(wb)
    assert dict(frames["cells"].schema) == CELLS_SCHEMA
    assert dict(frames["sheets"].schema) == SHEETS_SCHEMA
    cells = frames["cells"]
    row = cells.filter(cells["address"] == "D2").row(0, named=True)
    assert row["value"] == "2001-05-01T00:00:00" and row["value_num"] == pytest.approx(37012.0)
    assert frames["workbooks"]["n_formulas"][0] == 2


def test_ingest_accounts_for_every_input(tmp_path: Path) -> None:
    good = _typed_workbook(tmp_path / "good.xlsx")
    copy = tmp_path / "copy.xlsx"
    shutil.copy(good, copy)
    bad = tmp_path / "bad.xls"
    bad.write_text("not a workbook")
    out = ingest_workbooks([good, copy, bad], BlobStore(str(tmp_path / "blobs")))
    assert out.intake.discovered == 3
    assert len(out.intake.ingested) == 2 and len(out.intake.quarantined) == 1
    assert "bad.xls" in out.intake.quarantined[0]["path"]
    assert "not a workbook" in out.intake.quarantined[0]["detail"]
    assert out.workbooks.height == 1  # the copy has the same bytes: one workbook


def test_unreadable_file_names_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04garbage")
    with pytest.raises(WorkbookError, match="broken.xlsx"):
        read_workbook(broken)


@pytest.mark.real_data
def test_real_xls_converts_with_formulas(tmp_path: Path) -> None:
    if not EUSES.exists():
        pytest.skip(f"real samples not found at {EUSES} (../shared/data is absent)")
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    src = next(EUSES.rglob("joan-hasmanyIFs.xls"), None) or next(EUSES.rglob("*.xls"))
    wb = read_workbook(src, convert_dir=tmp_path)
    assert wb.source_format == "xls" and wb.converted_path is not None
    formulas = [c for s in wb.sheets.values() for c in s.cells.values() if c.formula]
    assert len(formulas) > 50
    # the converted file keeps the results Excel computed, not just the formula text
    assert sum(c.value is not None for c in formulas) / len(formulas) >= 0.99  # measured 682/682
    if src.name == "joan-hasmanyIFs.xls":
        c11 = wb.sheet("fall").get(11, 3)
        assert c11.formula == "=SUM(C13:C15)/3"
        assert c11.value == pytest.approx(0.8333333, rel=1e-6)
