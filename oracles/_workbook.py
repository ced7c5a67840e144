"""Workbooks inside the sandbox: read an .xlsx from bytes, compare cells like the judge.

Workflow checkers (``pipeline.draft.workflows``) grade a workbook under test against
requirements derived from ``diff_ref``. They run in :mod:`oracles.sandbox`, where the
child is chrooted into an empty folder: the bytes of every workbook a run may read are
read *before* isolation (:func:`oracles._checker.attach_workbooks`) and parsed here, after
isolation, under the oracle's CPU and memory limits (a zip bomb hits the limit, not the
worker).

This module mirrors, on plain values, what ``pipeline.ingest.workbooks`` reads (cached
value, Finch type letter, formula, number format, fill and font colour, merges, charts,
conditional formats) and what ``pipeline.judge.compare.compare_cells`` decides. It does
not import ``pipeline`` on purpose: the oracle runtime stays free of polars and its
thread pools (the worker forks), and the sandbox imports everything before the chroot.
"""

from __future__ import annotations

import datetime as dt
import encodings.cp437  # noqa: F401 - zipfile decodes member names with it, lazily
import io
import math
import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import openpyxl
from openpyxl.utils.cell import coordinate_from_string, get_column_letter

from pipeline.ingest.cell_values import cell_type as _type
from pipeline.ingest.cell_values import color_text as _color
from pipeline.ingest.cell_values import formula_text as _formula
from pipeline.ingest.cell_values import value_text as _text

ABS_TOL = 0.005  # pipeline.judge.compare.ABS_TOL
REL_TOL = 1e-9  # pipeline.judge.compare.REL_TOL
_NUMERIC_TEXT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?$")
_LEADING_ZERO = re.compile(r"^[+-]?0\d")
_LOCALE_TAG = re.compile(r"\[\$-[0-9A-Fa-f]+\]")
_EPOCH = dt.datetime(1899, 12, 30)


class WorkbookReadError(ValueError):
    """The bytes are not a workbook the sandbox can read (.xlsx/.xlsm only)."""


@dataclass(frozen=True)
class CellView:
    """One non-empty cell as the checker sees it (text forms, as in the ``cells`` asset)."""

    value: str | None  # canonical text of the cached value
    type: str | None  # T I F D B E; None for a formula without a cached value
    formula: str | None
    number_format: str = "General"
    fill: str | None = None
    font_color: str | None = None


@dataclass
class SheetView:
    name: str
    cells: dict[str, CellView] = field(default_factory=dict)  # "B7" -> cell
    merges: list[str] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)  # chart types ("BarChart")
    conditional_formats: list[str] = field(default_factory=list)  # ranges


@dataclass
class WorkbookView:
    """A workbook read in the sandbox. Oracles pass it to ``oracles.api`` functions."""

    label: str
    sheets: dict[str, SheetView]

    def sheet_names(self) -> list[str]:
        return list(self.sheets)

    def cell(self, sheet: str, address: str) -> CellView | None:
        found = self.sheets.get(sheet)
        return found.cells.get(address.upper()) if found is not None else None


def _fill(cell: object) -> str | None:
    fill = getattr(cell, "fill", None)
    if fill is None or getattr(fill, "fill_type", None) in (None, "none"):
        return None
    return _color(fill.fgColor)


def _font(cell: object) -> str | None:
    font = getattr(cell, "font", None)
    text = _color(getattr(font, "color", None)) if font is not None else None
    return None if text in ("000000", "theme1", "indexed64") else text


def read_workbook_bytes(data: bytes, label: str) -> WorkbookView:
    """Read an .xlsx/.xlsm from bytes (formulas and cached values, like the ingest)."""
    if not data.startswith(b"PK\x03\x04"):
        raise WorkbookReadError(
            f"{label}: not an .xlsx/.xlsm (the sandbox reads OOXML only; give it the "
            "converted .xlsx of an .xls)"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            formulas = openpyxl.load_workbook(io.BytesIO(data), data_only=False)
            values = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    except Exception as err:  # openpyxl raises many types for broken files
        raise WorkbookReadError(f"{label}: openpyxl cannot read it: {err}") from err
    sheets: dict[str, SheetView] = {}
    for ws in formulas.worksheets:
        wv = values[ws.title]
        view = SheetView(
            ws.title,
            merges=sorted(str(r) for r in ws.merged_cells.ranges),
            charts=[type(c).__name__ for c in getattr(ws, "_charts", [])],
            conditional_formats=sorted(str(cf.sqref) for cf in ws.conditional_formatting),
        )
        cached = {
            (c.row, c.column): c for row in wv.iter_rows() for c in row if c.value is not None
        }
        for row in ws.iter_rows():
            for c in row:
                formula = _formula(c.value)
                if formula is None:
                    value, data_type = c.value, c.data_type
                else:
                    vcell = cached.get((c.row, c.column))
                    value = vcell.value if vcell is not None else None
                    data_type = vcell.data_type if vcell is not None else "n"
                if (value is None or value == "") and formula is None:
                    continue
                view.cells[f"{get_column_letter(c.column)}{c.row}"] = CellView(
                    _text(value),
                    _type(value, data_type),
                    formula,
                    str(c.number_format or "General"),
                    _fill(c),
                    _font(c),
                )
        sheets[ws.title] = view
    return WorkbookView(label, sheets)


def warm_up() -> None:
    """Write and read back a small workbook with every feature the reader touches, so
    each module openpyxl and zipfile import lazily is loaded *before* the worker forks
    (after the child's chroot no module file can be found)."""
    from openpyxl.chart import BarChart, Reference
    from openpyxl.formatting.rule import CellIsRule
    from openpyxl.styles import Font, PatternFill

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Warm up"
    ws["A1"], ws["A2"], ws["A3"] = "label", 1.5, "=SUM(A2:A2)"
    ws["B1"] = dt.datetime(2001, 1, 2)
    ws["B2"] = True
    ws["A1"].fill = PatternFill("solid", fgColor="FFFF00")
    ws["A1"].font = Font(color="FF0000")
    ws["A2"].number_format = "0.00%"
    ws.merge_cells("C1:D1")
    ws.conditional_formatting.add("A2:A3", CellIsRule(operator="greaterThan", formula=["1"]))
    chart = BarChart()
    chart.add_data(Reference(ws, min_col=1, min_row=2, max_row=3))
    ws.add_chart(chart, "F2")
    buffer = io.BytesIO()
    wb.save(buffer)
    read_workbook_bytes(buffer.getvalue(), "warm-up")


# --------------------------------------------------------------------------- comparison


def formula_key(formula: str | None) -> str | None:
    """A formula as compared at one address: case, spaces, ``$`` and ``_xlfn.`` dropped."""
    if formula is None:
        return None
    text = re.sub(r"\s+|\$", "", formula.upper()).replace("_XLFN.", "").replace("_XLWS.", "")
    return re.sub(r"'([A-Z0-9_.]+)'!", r"\1!", text)  # 'Sales'!B2 is Sales!B2


def _class(cell: CellView) -> str | None:
    if cell.type in ("I", "F", "D"):
        return "number"
    return {"T": "text", "B": "bool", "E": "error"}.get(cell.type or "")


def _number(cell: CellView, numeric_text: bool) -> float | None:
    if cell.value is None:
        return None
    if cell.type in ("I", "F"):
        return float(cell.value)
    if cell.type == "D":
        try:
            when = dt.datetime.fromisoformat(cell.value)
        except ValueError:
            return None
        return (when - _EPOCH).total_seconds() / 86400
    if numeric_text and cell.type == "T":
        text = cell.value.strip().replace(",", "")
        if _NUMERIC_TEXT.match(text) and not _LEADING_ZERO.match(text):
            return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    return None


def _empty(cell: CellView | None) -> bool:
    return cell is None or (cell.value in ("", None) and cell.formula is None)


def normalize_format(fmt: str | None) -> str:
    text = _LOCALE_TAG.sub("", fmt or "").strip()
    return text.casefold() if text else "general"


def compare(
    want: CellView | None,
    got: CellView | None,
    abs_tol: float = ABS_TOL,
    rel_tol: float = REL_TOL,
    *,
    strict_text: bool = False,
    strict_type: bool = False,
) -> tuple[bool, str]:
    """``pipeline.judge.compare.compare_cells`` on sandbox cells: (ok, rule)."""
    if _empty(want):
        return (True, "both_empty") if _empty(got) else (False, "unexpected_value")
    assert want is not None
    if got is None or _empty(got):
        return False, "missing"
    if want.value is None or got.value is None:
        same = formula_key(want.formula) == formula_key(got.formula)
        return (True, "formula_equal") if same and got.formula else (False, "not_computed")
    kind_w, kind_g = _class(want), _class(got)
    if "error" in (kind_w, kind_g):
        same = kind_w == kind_g and want.value.upper() == got.value.upper()
        return (True, "equal") if same else (False, "error_value")
    if "bool" in (kind_w, kind_g):
        return (
            (True, "equal") if (want.value, kind_w) == (got.value, kind_g) else (False, "mismatch")
        )
    if strict_type and kind_w != kind_g:
        return False, "type_mismatch"
    a, b = _number(want, not strict_type), _number(got, not strict_type)
    if a is not None and b is not None:
        if a == b:
            return True, "equal"
        if math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol):
            return True, "within_tolerance"
        return False, "mismatch"
    if want.value == got.value:
        return True, "equal"
    if want.value.strip() == got.value.strip():
        return (False, "whitespace") if strict_text else (True, "trimmed_equal")
    return False, "mismatch"


def same_content(a: CellView | None, b: CellView | None) -> bool:
    """Same value text and formula (an input cell kept where the reference kept it)."""
    if _empty(a) and _empty(b):
        return True
    if a is None or b is None:
        return False
    if a.value is not None and b.value is not None:
        ok, _ = compare(a, b)
        return ok and formula_key(a.formula) == formula_key(b.formula) if a.formula else ok
    return formula_key(a.formula) == formula_key(b.formula)


def address_key(address: str) -> tuple[int, int]:
    """("B7") -> (7, 2), for sorting addresses in reading order."""
    letters, row = coordinate_from_string(address.upper())
    col = 0
    for ch in letters:
        col = col * 26 + ord(ch) - 64
    return row, col


# --------------------------------------------------------------------------- checks
# (served to oracles by oracles.api)


def _want(spec: list | tuple) -> tuple[str, str, CellView | None, dict]:
    """A required cell as the checker program writes it:
    ``[sheet, address, type, value, formula, extras]`` (type, value and formula all
    None: the cell must be empty). ``extras`` may hold ``strict_text``, ``strict_type``,
    ``number_format``, ``fill``, ``font_color`` (with ``style``: True),
    ``stale_formula`` (the input's formula, which the output must not keep),
    ``formula`` (True: the output must hold the same formula, not only its value),
    ``formula_only`` (True: compare the formula alone, for a volatile or externally
    linked cell whose cached value is the build's, not the task's), ``no_formula``
    (True: the formula must be replaced by its value) and ``abs_tol`` (this cell's own
    absolute tolerance, tighter than the task's)."""
    sheet, address, kind, value, formula = spec[:5]
    extras = dict(spec[5]) if len(spec) > 5 and spec[5] else {}
    if kind is None and value is None and formula is None:
        return str(sheet), str(address).upper(), None, extras
    want = CellView(
        value,
        kind,
        formula,
        extras.get("number_format") or "General",
        extras.get("fill"),
        extras.get("font_color"),
    )
    return str(sheet), str(address).upper(), want, extras


def _shown(cell: CellView | None) -> str | None:
    if cell is None:
        return None
    return cell.value if cell.value is not None else cell.formula


def check_cell(
    workbook: WorkbookView,
    spec: list | tuple,
    abs_tol: float = ABS_TOL,
    rel_tol: float = REL_TOL,
) -> dict | None:
    """The failure of one required cell (``{"sheet", "address", "rule", "expected",
    "got"}``), or None when the workbook holds what the reference holds there. Rules as
    the judge's ``compare_cells``, plus ``missing_sheet``, ``number_format``,
    ``style_mismatch`` and ``unchanged_formula``."""
    sheet, address, want, extras = _want(spec)
    failure = {"sheet": sheet, "address": address, "expected": _shown(want)}
    if sheet not in workbook.sheets:
        return {**failure, "rule": "missing_sheet", "got": None}
    got = workbook.cell(sheet, address)
    got_formula = formula_key(got.formula) if got is not None else None
    if extras.get("formula_only"):
        if got_formula == formula_key(want.formula if want else None):
            return None
        return {**failure, "expected": want.formula if want else None,
                "rule": "formula_mismatch", "got": got.formula if got else None}  # fmt: skip
    ok, rule = compare(
        want,
        got,
        float(extras.get("abs_tol", abs_tol)),
        float(rel_tol),
        strict_text=bool(extras.get("strict_text")),
        strict_type=bool(extras.get("strict_type")),
    )
    if ok and extras.get("number_format") is not None:
        have = got.number_format if got is not None else None
        if normalize_format(have) != normalize_format(extras["number_format"]):
            return {**failure, "rule": "number_format", "expected": extras["number_format"],
                    "got": have}  # fmt: skip
    if ok and extras.get("style"):
        have = (got.fill, got.font_color) if got is not None else (None, None)
        if have != (extras.get("fill"), extras.get("font_color")):
            return {**failure, "rule": "style_mismatch", "got": f"fill={have[0]} font={have[1]}"}
    if ok and extras.get("formula") and want is not None:
        if got_formula != formula_key(want.formula):
            return {**failure, "expected": want.formula, "rule": "formula_mismatch",
                    "got": (got.formula if got else None) or _shown(got)}  # fmt: skip
    if ok and extras.get("no_formula") and got is not None and got.formula:
        return {**failure, "rule": "formula_kept", "got": got.formula}
    stale = extras.get("stale_formula")
    if ok and stale and got is not None and formula_key(got.formula) == formula_key(stale):
        return {**failure, "rule": "unchanged_formula", "got": got.formula}
    return None if ok else {**failure, "rule": rule, "got": _shown(got)}


def kept_cell_failures(
    output: WorkbookView,
    input_workbook: WorkbookView,
    changed: Iterable[tuple[str, str]],
    renamed: Mapping[str, str] | None = None,
    removed_sheets: Iterable[str] = (),
    limit: int = 20,
) -> list[dict]:
    """Input content the reference kept but the output lost: every input cell outside
    the ``changed`` positions (sheet, address; sheets named as in the reference, input
    sheets renamed by ``renamed``) must hold the same content in the output. At most
    ``limit`` failures are listed (rule ``kept_cell_changed``)."""
    renamed = dict(renamed or {})
    skip = {(str(s), str(a).upper()) for s, a in changed}
    gone = set(removed_sheets)
    out: list[dict] = []
    for name, sheet in input_workbook.sheets.items():
        if name in gone:
            continue
        target = renamed.get(name, name)
        for address in sorted(sheet.cells, key=address_key):
            if (target, address) in skip:
                continue
            before = sheet.cells[address]
            got = output.cell(target, address)
            if not same_content(before, got):
                out.append(
                    {
                        "sheet": target,
                        "address": address,
                        "rule": "kept_cell_changed",
                        "expected": _shown(before),
                        "got": _shown(got),
                    }
                )
                if len(out) >= limit:
                    return out
    return out


def sheet_features(workbook: WorkbookView, sheet: str) -> dict:
    """The sheet-level objects of a sheet: ``{"exists", "charts" (types), "merges"
    (ranges), "conditional_formats" (ranges)}``."""
    found = workbook.sheets.get(sheet)
    if found is None:
        return {"exists": False, "charts": [], "merges": [], "conditional_formats": []}
    return {
        "exists": True,
        "charts": list(found.charts),
        "merges": list(found.merges),
        "conditional_formats": list(found.conditional_formats),
    }
