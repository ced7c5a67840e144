"""The deterministic checker: required cells from diff_ref, tolerance, formula
equivalence, answer-position scoping and unexpected edits."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from openpyxl.styles import PatternFill

from pipeline.ingest.workbooks import Workbook, read_workbook
from pipeline.judge.checker import build_checker, parse_answer_position, task_rejections


def book(
    path: Path, edit: Callable[[openpyxl.worksheet.worksheet.Worksheet], None] | None = None
) -> Workbook:
    """A sales sheet: Region, Units, Price; the task adds a Revenue column D."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Units", "Price"])
    for i, region in enumerate(["North", "South", "East", "West"], start=1):
        ws.append([region, i * 10, 2.5 * i])
    ws["F1"] = "source: ledger"
    if edit:
        edit(ws)
    wb.save(path)
    return read_workbook(path)


def revenue_values(ws) -> None:  # noqa: ANN001
    ws["D1"] = "Revenue"
    for r in range(2, 6):
        ws[f"D{r}"] = ws[f"B{r}"].value * ws[f"C{r}"].value


def revenue_formulas(ws) -> None:  # noqa: ANN001
    ws["D1"] = "Revenue"
    for r in range(2, 6):
        ws[f"D{r}"] = f"=B{r}*C{r}"


@pytest.fixture
def task(tmp_path: Path) -> tuple[Workbook, Workbook]:
    return book(tmp_path / "input.xlsx"), book(tmp_path / "reference.xlsx", revenue_values)


def test_reference_passes_and_input_fails(tmp_path: Path, task: tuple[Workbook, Workbook]) -> None:
    inp, ref = task
    checker = build_checker(inp, ref)
    assert len(checker.required) == 5  # D1:D5
    assert checker.check(ref).verdict is True
    failed = checker.check(inp)
    assert failed.verdict is False
    assert failed.n_ok == 0 and {c.rule for c in failed.checks} == {"missing"}
    assert failed.rationale().startswith("FAIL: 0/5 required cells match")


def test_values_within_tolerance_pass(tmp_path: Path, task: tuple[Workbook, Workbook]) -> None:
    inp, ref = task

    def close(ws) -> None:  # noqa: ANN001
        revenue_values(ws)
        ws["D3"] = ws["D3"].value + 0.001

    def far(ws) -> None:  # noqa: ANN001
        revenue_values(ws)
        ws["D3"] = ws["D3"].value + 0.5

    checker = build_checker(inp, ref)
    near = checker.check(book(tmp_path / "near.xlsx", close))
    assert near.verdict is True
    assert [c.rule for c in near.checks if c.address == "D3"] == ["within_tolerance"]
    off = checker.check(book(tmp_path / "off.xlsx", far))
    assert off.verdict is False
    assert [(c.address, c.rule) for c in off.mismatches] == [("D3", "mismatch")]


def test_equivalent_formulas_are_accepted(tmp_path: Path) -> None:
    inp = book(tmp_path / "input.xlsx")
    ref = book(tmp_path / "reference.xlsx", revenue_formulas)  # uncached formulas

    def swapped(ws) -> None:  # noqa: ANN001
        ws["D1"] = "Revenue"
        for r in range(2, 6):
            ws[f"D{r}"] = f"=c{r} * b{r}"  # different text, but not normalisable

    def same(ws) -> None:  # noqa: ANN001
        ws["D1"] = "Revenue"
        for r in range(2, 6):
            ws[f"D{r}"] = f"=$B{r} * C{r}"  # same formula after normalisation

    checker = build_checker(inp, ref)
    ok = checker.check(book(tmp_path / "same.xlsx", same))
    assert ok.verdict is True
    assert {c.rule for c in ok.checks if c.address != "D1"} == {"formula_equal"}
    # without cached values, a different formula cannot be proven equal: not_computed
    other = checker.check(book(tmp_path / "swapped.xlsx", swapped))
    assert other.verdict is False and {c.rule for c in other.mismatches} == {"not_computed"}
    # constants equal to what the reference formulas compute pass on values...
    values_ref = book(tmp_path / "ref_values.xlsx", revenue_values)
    assert build_checker(inp, values_ref).check(values_ref).verdict is True


def test_static_values_fail_when_formulas_are_required(tmp_path: Path) -> None:
    inp = book(tmp_path / "input.xlsx")
    ref = book(tmp_path / "reference.xlsx", revenue_formulas)
    out = book(tmp_path / "out.xlsx", revenue_values)
    result = build_checker(inp, ref, require_formulas=True).check(out)
    assert result.verdict is False
    assert {c.rule for c in result.mismatches} == {"static_value"}


def test_unexpected_edits_are_listed(tmp_path: Path, task: tuple[Workbook, Workbook]) -> None:
    inp, ref = task
    checker = build_checker(inp, ref)

    def extra_note(ws) -> None:  # noqa: ANN001
        revenue_values(ws)
        ws["H1"] = "checked by agent"  # an addition beside the data: listed, tolerated

    def clobber(ws) -> None:  # noqa: ANN001
        revenue_values(ws)
        ws["B3"] = 0  # input data overwritten: destructive

    added = checker.check(book(tmp_path / "added.xlsx", extra_note))
    assert added.verdict is True
    # H1 lies beyond the input's last column: columns G:H appended, one cell, not destructive
    assert [(u.where, u.kind, u.destructive) for u in added.unexpected] == [
        ("G:H", "col_inserted", False)
    ]
    clobbered = checker.check(book(tmp_path / "clobber.xlsx", clobber))
    assert clobbered.verdict is False
    assert [(u.where, u.kind, u.destructive) for u in clobbered.unexpected] == [
        ("B3", "value_changed", True)
    ]
    assert "1 unexpected edits (1 destructive)" in clobbered.rationale()


def test_fill_the_reference_set_is_required(tmp_path: Path) -> None:
    yellow = PatternFill("solid", fgColor="FFFF00")

    def highlight(ws) -> None:  # noqa: ANN001
        ws["A3"].fill = yellow

    inp = book(tmp_path / "input.xlsx")
    ref = book(tmp_path / "reference.xlsx", highlight)
    checker = build_checker(inp, ref)
    assert [(r.address, r.style) for r in checker.required] == [("A3", True)]
    assert checker.check(ref).verdict is True
    result = checker.check(inp)
    assert result.verdict is False and result.mismatches[0].rule == "style_mismatch"


def test_answer_position_scopes_the_check(tmp_path: Path, task: tuple[Workbook, Workbook]) -> None:
    inp, ref = task
    checker = build_checker(inp, ref, "'Sales'!D2:D5")
    assert [r.address for r in checker.required] == ["D2", "D3", "D4", "D5"]

    def no_header(ws) -> None:  # noqa: ANN001
        revenue_values(ws)
        ws["D1"] = None  # outside the answer position

    assert checker.check(book(tmp_path / "nohdr.xlsx", no_header)).verdict is True
    assert checker.check(inp).verdict is False


def test_answer_position_without_a_change_falls_back_to_diff_ref(
    tmp_path: Path, task: tuple[Workbook, Workbook]
) -> None:
    inp, ref = task
    checker = build_checker(inp, ref, "A1:A5")  # mislabelled: the reference changed column D
    assert checker.scope_fallback
    assert checker.check(inp).verdict is False
    assert checker.check(ref).verdict is True


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("'Sheet1'!A1:A4", [("Sheet1", "A1:A4")]),
        ("A1:N53", [(None, "A1:N53")]),
        ("'Sheet1!'A2:B19,'Sheet2!'A2:B19", [("Sheet1", "A2:B19"), ("Sheet2", "A2:B19")]),
        ("Updated Data'!B5:B9", [("Updated Data", "B5:B9")]),
        ("'51998'!L24", [("51998", "L24")]),
        ("E1", [(None, "E1")]),
    ],
)
def test_parse_answer_position(text: str, parts: list[tuple[str | None, str]]) -> None:
    assert parse_answer_position(text) == parts


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) not installed")
def test_a_rewritten_formula_with_the_same_value_must_be_edited(tmp_path: Path) -> None:
    """The reference fixes a formula whose value happens not to change on this file: an
    output that leaves the input's formula alone must fail, the fix must pass."""

    def broken(ws) -> None:  # noqa: ANN001
        ws["D2"] = "=IF(B2>5,B2*C2)"  # no else branch: wrong for small units, right here

    def fixed(ws) -> None:  # noqa: ANN001
        ws["D2"] = "=IF(B2>5,B2*C2,0)"

    def rewritten(ws) -> None:  # noqa: ANN001
        ws["D2"] = "=B2*C2"

    def recalculated(name: str, edit) -> Workbook:  # noqa: ANN001
        book(tmp_path / name, edit)
        return read_workbook(tmp_path / name, recalculate=True)

    inp = recalculated("input.xlsx", broken)
    ref = recalculated("reference.xlsx", fixed)
    checker = build_checker(inp, ref, "Sales!D2")
    untouched = checker.check(inp)
    assert untouched.verdict is False
    assert [c.rule for c in untouched.mismatches] == ["unchanged_formula"]
    assert checker.check(ref).verdict is True
    assert checker.check(recalculated("output.xlsx", rewritten)).verdict is True


def test_a_reference_identical_to_the_input_is_undecidable(
    tmp_path: Path, task: tuple[Workbook, Workbook]
) -> None:
    inp, ref = task
    same = book(tmp_path / "same.xlsx")
    for position in (None, "'Sales'!D1:D5"):
        checker = build_checker(inp, same, position)
        assert checker.undecidable is not None
        for output in (inp, ref):
            result = checker.check(output)
            assert result.verdict is None
            assert result.rationale().startswith("UNDECIDABLE: the reference is identical")
    assert task_rejections(inp, same) == ["reference_identical_to_input"]
    assert task_rejections(inp, ref, "'Sales'!D1:D5") == []


def test_task_changes_of_whitespace_type_and_format_are_required(tmp_path: Path) -> None:
    """The task trims names, turns text numbers into numbers, formats prices as
    percent: an output that leaves the input as it was fails on each."""

    def messy(ws) -> None:  # noqa: ANN001
        ws["A3"] = "  South "
        ws["B4"] = "30"

    def clean(ws) -> None:  # noqa: ANN001
        for r in range(2, 6):
            ws[f"C{r}"].number_format = "0.00%"

    inp = book(tmp_path / "input.xlsx", messy)
    ref = book(tmp_path / "reference.xlsx", clean)
    checker = build_checker(inp, ref, "'Sales'!A2:C5")
    assert checker.check(ref).verdict is True
    result = checker.check(inp)
    assert result.verdict is False
    assert sorted((c.address, c.rule) for c in result.mismatches) == [
        ("A3", "whitespace"),
        ("B4", "type_mismatch"),
        ("C2", "number_format"),
        ("C3", "number_format"),
        ("C4", "number_format"),
        ("C5", "number_format"),
    ]
    # without an answer position the same cells are required (diff_ref's edits)
    assert {(c.address, c.rule) for c in build_checker(inp, ref).check(inp).mismatches} == {
        (c.address, c.rule) for c in result.mismatches
    }


@pytest.mark.parametrize(
    "position",
    ["'Ark1'!D1:D5", "'sales '!D1:D5", "'Sales'!D1\uff1aD5", "'Sales'!D1:5", "'Summary'!D1:D5"],
)
def test_answer_positions_never_raise(
    tmp_path: Path, task: tuple[Workbook, Workbook], position: str
) -> None:
    inp, ref = task
    checker = build_checker(inp, ref, position)
    assert checker.notes  # what was repaired or dropped is recorded
    assert checker.check(ref).verdict is True
    wrong = book(tmp_path / "wrong.xlsx", lambda ws: (revenue_values(ws), ws.__setitem__("D3", 1)))
    assert checker.check(wrong).verdict is False
    assert checker.check(inp).verdict is False
