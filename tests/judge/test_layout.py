"""Layout the cells do not show: hidden rows and columns, autofilters, sheet state,
read from the XML and compared where the reference changes them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest

from pipeline.ingest.workbooks import Workbook, read_workbook
from pipeline.judge.checker import build_checker
from pipeline.judge.layout import parse_sheet_layout, read_layouts


def sheet_book(path: Path, edit: Callable | None = None) -> Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Units", "Price"])
    for i, region in enumerate(["North", "South", "East", "West"], start=1):
        ws.append([region, i * 10, 2.5 * i])
    wb.create_sheet("Notes")["A1"] = "notes"
    if edit:
        edit(wb)
    wb.save(path)
    return read_workbook(path)


def hide_rows(wb) -> None:  # noqa: ANN001
    wb["Sales"].row_dimensions[3].hidden = True
    wb["Sales"].row_dimensions[5].hidden = True


def hide_col(wb) -> None:  # noqa: ANN001
    wb["Sales"].column_dimensions["C"].hidden = True


def add_filter(wb) -> None:  # noqa: ANN001
    wb["Sales"].auto_filter.ref = "A1:C5"


def hide_sheet(wb) -> None:  # noqa: ANN001
    wb["Notes"].sheet_state = "hidden"


def test_read_layouts(tmp_path: Path) -> None:
    def everything(wb) -> None:  # noqa: ANN001
        hide_rows(wb)
        hide_col(wb)
        add_filter(wb)

    layouts = read_layouts(sheet_book(tmp_path / "a.xlsx", everything).path)
    assert layouts is not None and set(layouts) == {"Sales", "Notes"}
    sales = layouts["Sales"]
    assert sales.hidden_rows == {3, 5} and sales.hidden_cols == {3}
    assert sales.autofilter == "A1:C5" and sales.filter_box() == (1, 1, 3)
    assert layouts["Notes"].hidden_rows == frozenset() and layouts["Notes"].autofilter is None
    assert read_layouts(tmp_path / "missing.xlsx") is None


def test_parse_sheet_layout_prefixed_and_implicit_rows() -> None:
    xml = (
        b'<x:worksheet><x:cols><x:col min="2" max="4" hidden="true"/></x:cols>'
        b'<x:sheetData><x:row><x:c/></x:row><x:row hidden="1"/></x:sheetData>'
        b'<x:autoFilter ref="$B$2:$D$9"/></x:worksheet>'
    )
    layout = parse_sheet_layout(xml)
    assert layout.hidden_rows == {2} and layout.hidden_cols == {2, 3, 4}
    assert layout.filter_box() == (2, 2, 4)


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (hide_rows, "hidden_rows"),
        (hide_col, "hidden_cols"),
        (add_filter, "autofilter"),
        (hide_sheet, "sheet_state"),
    ],
)
def test_layout_the_reference_changed_is_required(
    tmp_path: Path, edit: Callable, rule: str
) -> None:
    inp = sheet_book(tmp_path / "input.xlsx")
    ref = sheet_book(tmp_path / "reference.xlsx", edit)
    checker = build_checker(inp, ref)
    assert checker.undecidable is None  # no cell changed, yet there is something to check
    assert [r.kind for r in checker.layout] == [rule]
    done = checker.check(sheet_book(tmp_path / "done.xlsx", edit))
    assert done.verdict is True
    untouched = checker.check(inp)
    assert untouched.verdict is False
    assert [(c.rule, c.ok) for c in untouched.layout_checks] == [(rule, False)]
    assert rule in untouched.rationale()
    # the same with an answer position on the (unchanged) data
    scoped = build_checker(inp, ref, "'Sales'!A1:C5")
    assert scoped.check(inp).verdict is False


def test_filter_range_may_end_elsewhere_but_not_start_elsewhere(tmp_path: Path) -> None:
    inp = sheet_book(tmp_path / "input.xlsx")
    checker = build_checker(inp, sheet_book(tmp_path / "reference.xlsx", add_filter))

    def longer(wb) -> None:  # noqa: ANN001
        wb["Sales"].auto_filter.ref = "A1:C500"  # the same columns and header row

    def other_columns(wb) -> None:  # noqa: ANN001
        wb["Sales"].auto_filter.ref = "B1:C5"

    assert checker.check(sheet_book(tmp_path / "longer.xlsx", longer)).verdict is True
    assert checker.check(sheet_book(tmp_path / "cols.xlsx", other_columns)).verdict is False


def test_rows_hidden_without_being_asked_are_listed(tmp_path: Path) -> None:
    def task(wb) -> None:  # noqa: ANN001
        wb["Sales"]["D1"] = "Checked"

    def task_and_hide(wb) -> None:  # noqa: ANN001
        task(wb)
        hide_rows(wb)

    inp = sheet_book(tmp_path / "input.xlsx")
    checker = build_checker(inp, sheet_book(tmp_path / "reference.xlsx", task))
    result = checker.check(sheet_book(tmp_path / "out.xlsx", task_and_hide))
    assert result.verdict is True  # nothing destroyed: listed, not failed
    assert [(u.kind, u.detail, u.destructive) for u in result.unexpected] == [
        ("hidden_rows", "none -> {3, 5}", False)
    ]
