"""Answer positions: parsing and resolving never raise; what cannot be placed is noted
and the reference diff decides."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.ingest.workbooks import Cell, Sheet, Workbook
from pipeline.judge.scope import parse_answer_position, resolve_scope


def workbook(*names: str, rows: int = 10, cols: int = 4) -> Workbook:
    sheets = {}
    for i, name in enumerate(names):
        sheet = Sheet(name, i)
        for r in range(1, rows + 1):
            for c in range(1, cols + 1):
                sheet.cells[(r, c)] = Cell(name, r, c, r * c, "I", None)
        sheets[name] = sheet
    return Workbook(Path("ref.xlsx"), "id", "xlsx", sheets)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("'Sheet1'!A1:A4", [("Sheet1", "A1:A4")]),
        ("A1:N53", [(None, "A1:N53")]),
        ("'Sheet1!'A2:B19,'Sheet2!'A2:B19", [("Sheet1", "A2:B19"), ("Sheet2", "A2:B19")]),
        ("Updated Data'!B5:B9", [("Updated Data", "B5:B9")]),
        ("'51998'!L24", [("51998", "L24")]),
        ("E1", [(None, "E1")]),
        ("'Data, 2023'!D1:D5", [("Data, 2023", "D1:D5")]),
        ("'Bob''s'!A1", [("Bob's", "A1")]),
        ("'Sheet1'!D1\uff1aD5", [("Sheet1", "D1:D5")]),  # full-width colon
        ("Sheet1\uff01A1:B2\uff0cSheet2!C3", [("Sheet1", "A1:B2"), ("Sheet2", "C3")]),
        ("Sheet1!$A$1:$B$2; Sheet2!C3", [("Sheet1", "A1:B2"), ("Sheet2", "C3")]),
        ("Sheet1!'A1: B19", [("Sheet1", "A1:B19")]),
        ("", []),
    ],
)
def test_parse_answer_position(text: str, parts: list[tuple[str | None, str]]) -> None:
    assert parse_answer_position(text) == parts


SHEET1 = workbook("Sheet1")


@pytest.mark.parametrize(
    ("position", "ref", "sheet", "note"),
    [
        # (position, workbook, resolved rectangle, words a note must contain or None)
        ("'Sheet1'!B2:C3", SHEET1, "'Sheet1'!B2:C3", None),
        ("'sheet 1 '!B2:C3", SHEET1, "'Sheet1'!B2:C3", "case or spacing"),
        ("'SHEET1'!B2:C3", SHEET1, "'Sheet1'!B2:C3", "case or spacing"),
        ("'Ark1'!B2:C3", SHEET1, "'Sheet1'!B2:C3", "localised default name"),
        ("'Hoja1'!B2:C3", workbook("Sheet1", "Sheet2"), "'Sheet1'!B2:C3", "localised"),
        ("'Feuil2'!B2:C3", workbook("Sheet1", "Sheet2"), "'Sheet2'!B2:C3", "localised"),
        ("'Лист1'!B2:C3", workbook("Data"), "'Data'!B2:C3", "the only sheet"),
        ("'Sheet2'!A1", workbook("Inputs", "Report"), "'Report'!A1:A1", "sheet number 2"),
        ("'Summary'!B2:C3", SHEET1, "'Sheet1'!B2:C3", "the only sheet"),
        ("'Sheet1'!B2:7", SHEET1, "'Sheet1'!B2:B7", "read as B2:B7"),
        ("'Sheet1'!BD2:308", SHEET1, "'Sheet1'!BD2:BD308", "read as BD2:BD308"),
        ("'Sheet1'!C3:A1", SHEET1, "'Sheet1'!A1:C3", "reversed"),
        ("'Sheet1'!B:C", SHEET1, "'Sheet1'!B1:C10", None),  # whole columns: the used area
        ("'Sheet1'!2:3", SHEET1, "'Sheet1'!A2:D3", None),
        ("'Sheet1'!B2:C", SHEET1, "'Sheet1'!B2:C10", "to the end of the used area"),
        ("'Sheet1'!D1\uff1aD5", SHEET1, "'Sheet1'!D1:D5", "read as"),
        ("B2", workbook("First", "Second"), "'First'!B2:B2", None),  # bare: the first sheet
        ("'Sheet1'!A1:XFD1048576", SHEET1, "'Sheet1'!A1:D10", "clipped to the used area"),
    ],
)
def test_resolve_scope_repairs_and_notes(
    position: str, ref: Workbook, sheet: str, note: str | None
) -> None:
    scope = resolve_scope(position, ref)
    assert [r.ref for r in scope.ranges] == [sheet]
    assert not scope.unresolved
    if note is None:
        assert scope.notes == []
    else:
        assert any(note in n for n in scope.notes), scope.notes


def test_quoted_sheet_with_a_comma() -> None:
    ref = workbook("Data, 2023", "Other")
    scope = resolve_scope("'Data, 2023'!A1:B2,'Other'!C3", ref)
    assert [r.ref for r in scope.ranges] == ["'Data, 2023'!A1:B2", "'Other'!C3:C3"]


def test_unresolvable_parts_are_dropped_with_a_note() -> None:
    ref = workbook("Inputs", "Report")
    scope = resolve_scope("'Summary'!A1:B2,'Report'!C3", ref)
    assert [r.ref for r in scope.ranges] == ["'Report'!C3:C3"]
    assert scope.unresolved == ["Summary!A1:B2"]
    assert any("dropped 'Summary!A1:B2'" in n for n in scope.notes)
    nothing = resolve_scope("'Summary'!A1:B2", ref)
    assert nothing.ranges == [] and any("reference diff decides" in n for n in nothing.notes)


@pytest.mark.parametrize(
    "garbage",
    [
        "!!!",
        ":",
        "'",
        "''!''",
        "Sheet1!",
        "A0:B0",
        "ZZZZ1",
        "A1:B2:C3",
        "'Sheet1'!A-1",
        "\uff1a\uff1a",
        ",,,;;",
        "'unterminated!A1, B2",
        "Sheet1!A1048577",
        "R1C1",
        "名前!A1",
    ],
)
def test_resolve_scope_never_raises(garbage: str) -> None:
    scope = resolve_scope(garbage, workbook("Sheet1", "Sheet2"))
    for rng in scope.ranges:
        assert rng.min_row <= rng.max_row and rng.min_col <= rng.max_col
    assert scope.ranges or scope.notes
