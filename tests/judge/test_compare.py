"""One output cell against the reference cell: the rules, table-driven."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.ingest.workbooks import Cell
from pipeline.judge.compare import (
    compare_cells,
    format_changed,
    normalize_format,
    text_is_strict,
    type_is_strict,
)


def cell(value: object, kind: str | None = None, formula: str | None = None, fmt: str = "General"):
    if kind is None:
        kind = {str: "T", int: "I", float: "F", bool: "B"}.get(type(value), "D")
    return Cell("S", 2, 4, value, kind if value is not None else None, formula, fmt)


# (expected, got, strict_text, strict_type, ok, rule)
CASES = [
    (cell(6), cell(6), False, False, True, "equal"),
    (cell(6.0), cell(6.004), False, False, True, "within_tolerance"),
    (cell(6.0), cell(6.01), False, False, False, "mismatch"),
    (cell(1200), cell("1,200"), False, False, True, "numeric_text"),
    (cell(0.12), cell("12%"), False, False, True, "numeric_text"),
    (cell(1200), cell("1,200"), False, True, False, "type_mismatch"),
    (cell("42"), cell(42), False, True, False, "type_mismatch"),
    (cell(123), cell("00123"), False, False, False, "mismatch"),  # a code, not a number
    (cell("00123"), cell(123), False, False, False, "mismatch"),
    (cell(True), cell(1), False, False, False, "mismatch"),
    (cell(True), cell(True), False, False, True, "equal"),
    (cell("North"), cell("North "), False, False, True, "trimmed_equal"),
    (cell("North"), cell("North "), True, False, False, "whitespace"),
    (cell("North"), cell("north"), False, False, False, "mismatch"),
    (cell("#N/A", "E"), cell("#N/A", "E"), False, False, True, "equal"),
    (cell("#N/A", "E"), cell("#VALUE!", "E"), False, False, False, "error_value"),
    # an error never passes on formula text, nor does a different cached value
    (cell(6, formula="=B2*C2"), cell("#VALUE!", "E", "=B2*C2"), False, False, False, "error_value"),
    (cell(6, formula="=B2*C2"), cell(7, formula="=B2*C2"), False, False, False, "mismatch"),
    (cell("#VALUE!", "E", "=B2*C2"), cell(6, formula="=B2*C2"), False, False, False, "error_value"),
    # only a missing value lets the formula text decide
    (cell(6, formula="=B2*C2"), cell(None, formula="=$B2*C2"), False, False, True, "formula_equal"),
    (cell(6, formula="=B2*C2"), cell(None, formula="=C2*B2"), False, False, False, "not_computed"),
    (cell(None, formula="=B2*C2"), cell(6, formula="=b2*c2"), False, False, True, "formula_equal"),
    (cell(6, formula="=B2*C2"), cell(6), False, False, True, "static_value"),
    (cell(dt.datetime(2024, 1, 5)), cell(45296), False, False, True, "equal"),  # a serial
    (None, None, False, False, True, "both_empty"),
    (None, cell("x"), False, False, False, "unexpected_value"),
    (cell("x"), None, False, False, False, "missing"),
]


@pytest.mark.parametrize(("expected", "got", "strict_text", "strict_type", "ok", "rule"), CASES)
def test_compare_cells(
    expected: Cell | None,
    got: Cell | None,
    strict_text: bool,
    strict_type: bool,
    ok: bool,
    rule: str,
) -> None:
    result = compare_cells(expected, got, strict_text=strict_text, strict_type=strict_type)
    assert result == (ok, rule)


def test_static_values_fail_when_formulas_are_required() -> None:
    assert compare_cells(cell(6, formula="=B2*C2"), cell(6), require_formulas=True) == (
        False,
        "static_value",
    )


@pytest.mark.parametrize(
    ("reference", "before", "strict"),
    [
        (cell("North"), cell("  North "), True),  # the task trimmed
        (cell("North "), None, True),  # the reference sets a trailing space
        (cell("North"), cell("South"), False),  # a new value: spacing forgiven
        (cell("North"), None, False),
        (cell(5), cell(" 5"), False),
    ],
)
def test_whitespace_is_significant_where_the_task_set_it(
    reference: Cell, before: Cell | None, strict: bool
) -> None:
    assert text_is_strict(reference, before) is strict


@pytest.mark.parametrize(
    ("reference", "before", "strict"),
    [
        (cell(42), cell("42"), True),  # text made a number
        (cell("42"), cell(42), True),  # number stored as text
        (cell(43), cell(42), False),
        (cell(42), None, False),  # a new cell: "42" and 42 read alike
        (cell(dt.datetime(2024, 1, 5)), cell(45296), False),  # a date is a formatted number
    ],
)
def test_type_is_significant_where_the_task_changed_it(
    reference: Cell, before: Cell | None, strict: bool
) -> None:
    assert type_is_strict(reference, before) is strict


def test_number_formats_where_the_task_changed_them() -> None:
    assert format_changed(cell(0.5, fmt="0.00%"), cell(0.5)) == "0.00%"
    assert format_changed(cell(0.5, fmt="0.00%"), cell(0.5, fmt="0.00%")) is None
    assert format_changed(cell(0.5, fmt="0.00%"), None) is None  # a new cell: not compared
    assert normalize_format("[$-409]mmm d, yyyy") == normalize_format("MMM D, YYYY")
    assert normalize_format(None) == normalize_format("General") == "general"
