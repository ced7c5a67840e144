"""What a workflow checker requires, settled with what its instruction can state.

``pipeline.judge.checker.build_checker`` requires every cell the reference changed,
with its style and number format where those changed too. Read by eye, 11 of 28
released tasks were not well-posed because of that list: the build moment of a
``NOW()`` and the link cache of ``[1]Sheet!A1`` were required as values; fills and
number formats were required but never asked for; a formula the instruction asked for
could be typed as a constant; a "paste values" step was never checked. This module
settles the list (:func:`settle_requirements`) and writes a line for every style it
keeps (:func:`style_lines`), so what the checker requires is what the instruction says.
It also holds the runs of cells both the instruction writer and the style lines use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from openpyxl.utils import get_column_letter

from pipeline.detect.diffs import CellEdit, WorkbookDiff, formula_signature
from pipeline.ingest.workbooks import Cell, Workbook
from pipeline.judge.checker import RequiredCell, WorkbookChecker
from pipeline.judge.compare import same_content

__all__ = [
    "Requirements",
    "cell_runs",
    "is_volatile",
    "settle_requirements",
    "span_text",
    "style_lines",
]


def _runs_along(cells: list[Cell], by_row: bool) -> list[list[Cell]]:
    out: list[list[Cell]] = []
    key = (lambda c: (c.row, c.col)) if by_row else (lambda c: (c.col, c.row))
    for cell in sorted(cells, key=key):
        last = out[-1][-1] if out else None
        if last is not None and (
            (by_row and last.row == cell.row and last.col + 1 == cell.col)
            or (not by_row and last.col == cell.col and last.row + 1 == cell.row)
        ):
            out[-1].append(cell)
        else:
            out.append([cell])
    return out


def cell_runs(cells: list[Cell]) -> list[list[Cell]]:
    """Cells of one column in consecutive rows, or of one row in consecutive columns,
    whichever says it in fewer runs."""
    down, across = _runs_along(cells, False), _runs_along(cells, True)
    return across if len(across) < len(down) else down


def span_text(run: list[Cell]) -> str:
    first, last = run[0], run[-1]
    return first.address if first is last else f"{first.address}:{last.address}"


_VOLATILE = re.compile(r"\b(?:NOW|TODAY|RAND|RANDBETWEEN|RANDARRAY|INDIRECT|OFFSET)\s*\(", re.I)
_EXTERNAL = re.compile(r"\[\d+\]")  # '[1]Sheet'!A1: a link to another file


def is_volatile(formula: str | None) -> bool:
    """A formula whose cached value is the moment of the save (NOW, RAND, OFFSET...) or
    the link cache of another file ([1]Sheet!A1), not something the task decides."""
    return bool(formula) and bool(_VOLATILE.search(formula) or _EXTERNAL.search(formula))


@dataclass
class Requirements:
    """What a workflow checker requires once the drafter has settled it with what the
    instruction states."""

    required: list[RequiredCell]
    ignored: list[tuple[str, str]]  # (sheet, address) neither required nor kept
    notes: list[str]


def _positions(diff: WorkbookDiff) -> tuple[dict, set[str], Callable[[str, int, int], bool]]:
    edited: dict[tuple[str, int, int], CellEdit] = {}
    for sd in diff.sheets:
        for e in sd.cell_edits:
            if e.after_row is not None and e.after_col is not None:
                edited[(sd.sheet, e.after_row, e.after_col)] = e
    added = {sd.sheet for sd in diff.sheets if sd.status == "added"}
    spans = [
        (sd.sheet, ax.axis, ax.start, ax.count)
        for sd in diff.sheets
        for ax in sd.axis_edits
        if ax.kind == "inserted"
    ]

    def inserted(sheet: str, row: int, col: int) -> bool:
        return any(
            s == sheet and start <= (row if axis == "row" else col) < start + count
            for s, axis, start, count in spans
        )

    return edited, added, inserted


def settle_requirements(
    checker: WorkbookChecker, diff: WorkbookDiff, stated_formulas: set[tuple[str, int, int]]
) -> Requirements:
    """``build_checker``'s required cells, made to match what an instruction can say:

    - a volatile or externally linked cell (:func:`is_volatile`) is required by its
      formula only; a new external link (no instruction can state one) is dropped;
    - where the reference holds such a cell, formula results that changed under an
      unchanged formula are required by formula only too (they follow the link cache);
    - a cell the instruction tells to hold a formula must hold it (a typed constant
      fails); a formula the task replaced by its value must be gone;
    - a style or number format is required only where the reference edited the cell
      (every one is then stated, :func:`style_lines`); a cell required for nothing
      else is left to the kept-cell check.
    """
    edited, added, inserted = _positions(diff)
    back = {sd.sheet: sd.before_name for sd in diff.sheets if sd.status == "renamed"}
    tainted = any(
        r.expected is not None and is_volatile(r.expected.formula) for r in checker.required
    )
    out: list[RequiredCell] = []
    ignored: list[tuple[str, str]] = []
    notes: list[str] = []
    n_volatile = n_linked = 0
    for r in checker.required:
        exp, key = r.expected, (r.sheet, r.row, r.col)
        in_sheet = checker.input.sheets.get(back.get(r.sheet) or r.sheet)
        before = in_sheet.get(r.row, r.col) if in_sheet else None
        edit = edited.get(key)
        same_formula = (
            exp is not None
            and exp.formula is not None
            and before is not None
            and formula_signature(before.formula, r.row, r.col)
            == formula_signature(exp.formula, r.row, r.col)
        )
        if exp is not None and is_volatile(exp.formula):
            if _EXTERNAL.search(exp.formula or "") and not same_formula:
                ignored.append((r.sheet, r.address))
                n_linked += 1
                continue
            out.append(replace(r, formula_only=True, style=False, number_format=None))
            n_volatile += 1
            continue
        if tainted and same_formula and (edit is None or edit.kind == "recalculated"):
            out.append(replace(r, formula_only=True, style=False, number_format=None))
            n_volatile += 1
            continue
        stated = edit is not None or r.sheet in added or inserted(*key)
        if not stated and (r.style or r.number_format is not None):
            r = replace(r, style=False, number_format=None)
            if same_content(exp, before) and r.stale_formula is None:
                continue  # required for a style alone, which moved with its row
        if key in stated_formulas and exp is not None and exp.formula:
            r = replace(r, require_formula=True)
        if edit is not None and edit.kind == "formula_to_value":
            r = replace(r, no_formula=True)
        out.append(r)
    if n_volatile:
        notes.append(f"{n_volatile} volatile or linked cells required by formula only")
    if n_linked:
        notes.append(f"{n_linked} new external links dropped (no instruction can state them)")
    return Requirements(out, ignored, notes)


_COLOUR_NAMES = {
    "FFFF00": "yellow",
    "FFFF99": "light yellow",
    "FFFFCC": "pale yellow",
    "FF0000": "red",
    "00FF00": "green",
    "008000": "green",
    "CCFFCC": "light green",
    "0000FF": "blue",
    "99CCFF": "light blue",
    "CCFFFF": "light turquoise",
    "C0C0C0": "grey",
    "808080": "grey",
    "FFCC99": "tan",
    "FF9900": "orange",
    "FFC000": "orange",
    "FFFFFF": "white",
    "000000": "black",
}


def _colour(code: str) -> str:
    name = _COLOUR_NAMES.get(code.upper()[-6:]) if len(code) >= 6 else None
    return f"{name} ({code})" if name else code


@dataclass(frozen=True)
class _Pos:
    row: int
    col: int

    @property
    def address(self) -> str:
        return f"{get_column_letter(self.col)}{self.row}"


def style_lines(required: list[RequiredCell], input_wb: Workbook, diff: WorkbookDiff) -> list[str]:
    """One instruction line per run of cells sharing a required fill, font colour or
    number format: every style the checker requires is stated."""
    back = {sd.sheet: sd.before_name for sd in diff.sheets if sd.status == "renamed"}
    groups: dict[tuple[str, str], list[_Pos]] = {}
    for r in required:
        exp = r.expected
        if r.number_format is not None:
            groups.setdefault((r.sheet, f"format|{r.number_format}"), []).append(_Pos(r.row, r.col))
        if not r.style:
            continue
        in_sheet = input_wb.sheets.get(back.get(r.sheet) or r.sheet)
        before = in_sheet.get(r.row, r.col) if in_sheet else None
        fill, font = (exp.fill, exp.font_color) if exp else (None, None)
        old_fill, old_font = (before.fill, before.font_color) if before else (None, None)
        if fill != old_fill:
            groups.setdefault((r.sheet, f"fill|{fill or ''}"), []).append(_Pos(r.row, r.col))
        if font != old_font:
            groups.setdefault((r.sheet, f"font|{font or ''}"), []).append(_Pos(r.row, r.col))
    lines = []
    for (sheet, what), cells in groups.items():
        kind, _, value = what.partition("|")
        for run in cell_runs(cells):  # type: ignore[arg-type]
            where = f"'{sheet}'!{span_text(run)}"  # type: ignore[arg-type]
            if kind == "format":
                lines.append(f"format {where} as '{value}'")
            elif kind == "fill":
                lines.append(
                    f"highlight {where} in {_colour(value)}"
                    if value
                    else f"remove the highlight from {where}"
                )
            else:
                lines.append(
                    f"colour the text of {where} {_colour(value)}"
                    if value
                    else f"set the text colour of {where} back to automatic"
                )
    return lines
