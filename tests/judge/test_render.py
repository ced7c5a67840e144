"""Snapshot and encoding format; a sheet screenshot through LibreOffice + pdftoppm."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import openpyxl
import pytest
from PIL import Image

from pipeline.detect.diffs import diff_workbooks
from pipeline.ingest.workbooks import read_workbook
from pipeline.judge.render import (
    edit_positions,
    encode_cell,
    encode_sheet,
    render_sheets,
    snapshot_axes,
    snapshot_sheet,
)

TUPLE = re.compile(r"\(([A-Z]+[0-9]+), ")


def tall_sheet(path: Path, rows: int = 60, cols: int = 9, edit: bool = False) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Book"
    ws.append([f"H{c}" for c in range(1, cols + 1)])
    for r in range(2, rows + 1):
        ws.append([r * 100 + c for c in range(1, cols + 1)])
    ws["A2"] = "Label, with (parens)"
    ws["B3"] = "=SUM(B4:B6)"
    if edit:
        ws["H30"] = -1  # the edit sits in row 30, column H
    wb.save(path)
    return path


def test_encoding_tuples_and_header(tmp_path: Path) -> None:
    sheet = read_workbook(tall_sheet(tmp_path / "t.xlsx", rows=3, cols=3)).sheet("Book")
    text = encode_sheet(sheet)
    lines = text.splitlines()
    assert lines[0] == "## Sheet: Book (A1:C3)"
    assert lines[1] == '(A1, "H1", T, ) (B1, "H2", T, ) (C1, "H3", T, )'
    assert lines[2].startswith('(A2, "Label, with (parens)", T, ) (B2, 202, I, )')
    # a formula openpyxl wrote has no cached value: empty value and type
    assert "(B3, , , =SUM(B4:B6))" in lines[3]
    assert encode_cell(sheet.get(3, 3)) == "(C3, 303, I, )"


def test_snapshot_keeps_head_tail_first_columns_and_edits(tmp_path: Path) -> None:
    before = read_workbook(tall_sheet(tmp_path / "b.xlsx"))
    after = read_workbook(tall_sheet(tmp_path / "a.xlsx", edit=True))
    diff = diff_workbooks(before, after)
    where = edit_positions(diff, "after")
    assert where.rows["Book"] == {30} and where.cols["Book"] == {8}
    sheet = after.sheet("Book")
    rows, cols = snapshot_axes(sheet, where.rows["Book"], where.cols["Book"])
    assert rows == set(range(1, 11)) | set(range(51, 61)) | {30}
    assert cols == {1, 2, 3, 4, 5, 8}
    text = snapshot_sheet(sheet, where.rows["Book"], where.cols["Book"])
    addresses = TUPLE.findall(text)
    assert len(addresses) == len(rows) * len(cols)
    assert "H30" in addresses and "G30" not in addresses and "A29" not in addresses
    assert "(H30, -1, I, )" in text
    assert "... rows 11-29 omitted ..." in text and "... rows 31-50 omitted ..." in text
    assert "(columns shown: A, B, C, D, E, H)" in text
    assert text.splitlines()[0] == "## Sheet: Book (A1:I60)"


def test_screenshot_of_a_small_workbook(tmp_path: Path) -> None:
    if shutil.which("soffice") is None or shutil.which("pdftoppm") is None:
        pytest.skip("LibreOffice (soffice) or pdftoppm is not installed")
    src = tall_sheet(tmp_path / "s.xlsx", rows=12, cols=4)
    wb = openpyxl.load_workbook(src)
    wb.create_sheet("Other")["A1"] = "second sheet"
    wb.save(src)
    shots = render_sheets(src, tmp_path / "png", ["Book"], dpi=40, timeout=120)
    assert list(shots) == ["Book"] and len(shots["Book"]) == 1
    with Image.open(shots["Book"][0]) as img:
        assert img.format == "PNG"
        width, height = img.size
        assert width > 200 and height > 200
        # something was printed: the page is not blank white
        assert img.convert("L").getextrema()[0] < 128
