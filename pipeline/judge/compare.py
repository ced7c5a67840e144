"""Comparing one output cell with the reference cell: the rules and why.

- Numbers compare within tolerance (half a cent absolute, 1e-9 relative); a date
  compares as its serial. Numeric text ("1,200", "12%") equals the number it spells,
  unless the type is significant for the cell (below) or the text has leading zeros
  ("00123" is a code, not 123). A boolean equals only a boolean.
- Text compares exactly. Leading and trailing whitespace is forgiven unless it is
  significant for the cell: the reference text has some, or the input differed from
  the reference only by it (the task was to trim or pad).
- The type is significant when the task changed it: the input held the cell with a
  type of another class (text "42" made the number 42, or the reverse).
- An error value (``#VALUE!``, ``#N/A``) equals only the same error value.
- A formula's text decides only when a value is missing: the reference's formula was
  never computed, or the output's was not (and could not be recalculated). A value
  that is an error or differs from the reference never passes because the formula
  reads the same.
- A number format is compared where the task changed it (the reference's format
  differs from the input's on that cell).
"""

from __future__ import annotations

import math
import re

from pipeline.detect.diffs import cell_key, formula_signature, same_formula
from pipeline.ingest.workbooks import Cell, value_number

ABS_TOL = 0.005  # half a cent: the rounding SpreadsheetBench and finance answers use
REL_TOL = 1e-9

_NUMERIC_TEXT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?$")
_LEADING_ZERO = re.compile(r"^[+-]?0\d")
_LOCALE_TAG = re.compile(r"\[\$-[0-9A-Fa-f]+\]")


def _type_class(cell: Cell) -> str | None:
    """Numbers and dates are one class (a date is a formatted number), text another."""
    if cell.type in ("I", "F", "D"):
        return "number"
    return {"T": "text", "B": "bool", "E": "error"}.get(cell.type or "")


def _number(cell: Cell, numeric_text: bool = True) -> float | None:
    """A numeric reading: numbers and dates (serials), and numeric text if allowed."""
    if cell.type in ("I", "F", "D"):
        return value_number(cell.value)
    if numeric_text and cell.type == "T" and isinstance(cell.value, str):
        text = cell.value.strip().replace(",", "")
        if _NUMERIC_TEXT.match(text) and not _LEADING_ZERO.match(text):
            return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    return None


def _empty(cell: Cell | None) -> bool:
    return cell is None or (cell.text in ("", None) and cell.formula is None)


def compare_cells(
    expected: Cell | None,
    got: Cell | None,
    abs_tol: float = ABS_TOL,
    rel_tol: float = REL_TOL,
    require_formulas: bool = False,
    *,
    strict_text: bool = False,
    strict_type: bool = False,
) -> tuple[bool, str]:
    """Does ``got`` hold what the reference cell ``expected`` holds? Returns (ok, rule).

    Rules that pass: equal, within_tolerance, numeric_text, trimmed_equal,
    formula_equal, both_empty, static_value (a constant where the reference has a
    formula, allowed unless ``require_formulas``). Rules that fail: mismatch,
    missing, unexpected_value, not_computed, error_value, type_mismatch, whitespace.
    """
    if _empty(expected):
        return (True, "both_empty") if _empty(got) else (False, "unexpected_value")
    assert expected is not None
    if got is None or _empty(got):
        return False, "missing"
    if require_formulas and expected.formula and not got.formula:
        return False, "static_value"
    exp_text, got_text = expected.text, got.text
    if exp_text is None or got_text is None:
        # a value is missing (a formula never computed): only the formula text can
        # be compared, at the same address, so "$" marks change nothing
        same = formula_signature(expected.formula) == formula_signature(got.formula)
        return (True, "formula_equal") if same and got.formula else (False, "not_computed")
    ok, rule = _compare_values(expected, got, abs_tol, rel_tol, strict_text, strict_type)
    if ok and expected.formula and not got.formula:
        rule = "static_value"
    return ok, rule


def _compare_values(
    expected: Cell,
    got: Cell,
    abs_tol: float,
    rel_tol: float,
    strict_text: bool,
    strict_type: bool,
) -> tuple[bool, str]:
    kind_e, kind_g = _type_class(expected), _type_class(got)
    if "error" in (kind_e, kind_g):
        same = kind_e == kind_g and str(expected.text).upper() == str(got.text).upper()
        return (True, "equal") if same else (False, "error_value")
    if "bool" in (kind_e, kind_g):
        return (
            (True, "equal")
            if expected.value == got.value and kind_e == kind_g
            else (
                False,
                "mismatch",
            )
        )
    if strict_type and kind_e != kind_g:
        return False, "type_mismatch"
    a, b = _number(expected, not strict_type), _number(got, not strict_type)
    if a is not None and b is not None:
        if a == b:
            return True, ("equal" if kind_e == kind_g else "numeric_text")
        if math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol):
            return True, "within_tolerance"
        return False, "mismatch"
    exp_text, got_text = str(expected.text), str(got.text)
    if exp_text == got_text:
        return True, "equal"
    if exp_text.strip() == got_text.strip():
        return (False, "whitespace") if strict_text else (True, "trimmed_equal")
    return False, "mismatch"


def text_is_strict(reference: Cell | None, before: Cell | None) -> bool:
    """Leading/trailing whitespace matters here: the reference sets some, or the task
    changed only the whitespace of the input's text."""
    if reference is None or reference.type != "T" or not isinstance(reference.text, str):
        return False
    ref = reference.text
    if ref != ref.strip():
        return True
    if before is not None and before.type == "T" and isinstance(before.text, str):
        return before.text != ref and before.text.strip() == ref
    return False


def type_is_strict(reference: Cell | None, before: Cell | None) -> bool:
    """The type matters here: the task changed the class of the input's value."""
    if reference is None or before is None or _empty(reference) or _empty(before):
        return False
    if reference.text is None or before.text is None:
        return False
    return _type_class(reference) != _type_class(before)


def normalize_format(fmt: str | None) -> str:
    """A number format as compared: locale tags and case dropped, "General" for none."""
    text = _LOCALE_TAG.sub("", fmt or "").strip()
    return text.casefold() if text else "general"


def format_changed(reference: Cell | None, before: Cell | None) -> str | None:
    """The reference's number format where the task changed the input cell's format."""
    if reference is None or before is None or _empty(before):
        return None
    if normalize_format(reference.number_format) == normalize_format(before.number_format):
        return None
    return reference.number_format


def same_style(a: Cell | None, b: Cell | None) -> bool:
    """Same fill and font colour (the styles the checker compares)."""
    fill_a, font_a = (a.fill, a.font_color) if a else (None, None)
    fill_b, font_b = (b.fill, b.font_color) if b else (None, None)
    return fill_a == fill_b and font_a == font_b


def same_content(a: Cell | None, b: Cell | None) -> bool:
    """Same value, of the same type class, and the same formula (relative to its own
    position)."""
    if (a is None) != (b is None) or (a and b and _type_class(a) != _type_class(b)):
        if not (_empty(a) and _empty(b)):
            return False
    if cell_key(a) != cell_key(b):
        return False
    if a is None or b is None:
        return a is b
    return same_formula(a, b)


def stale_formula(reference: Cell | None, before: Cell | None) -> str | None:
    """The input's formula signature where the reference rewrote it and kept its value."""
    if reference is None or before is None or not before.formula or not reference.formula:
        return None
    if before.formula == reference.formula and (before.row, before.col) == (
        reference.row,
        reference.col,
    ):
        return None  # the same formula: nothing was rewritten
    old = formula_signature(before.formula, before.row, before.col)
    new = formula_signature(reference.formula, reference.row, reference.col)
    return old if old != new and cell_key(reference) == cell_key(before) else None
