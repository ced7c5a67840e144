"""One pass over each sheet's XML: formula and cached value of every cell together.

:func:`pipeline.ingest.workbooks.read_workbook` loads a workbook twice with openpyxl
(formulas, then cached values), fully in memory, because the judge wants ``Cell``
objects. Ingestion only wants the ``sheets`` and ``cells`` rows, and an ``.xlsx`` keeps
a cell's formula (``<f>``) and the value Excel cached for it (``<v>``) in the same
``<c>`` element. So ingestion streams each sheet once with openpyxl's own read-only
sheet parser (``WorkSheetParser``, the one behind ``load_workbook(read_only=True)``),
taking both from each element: the same values, types and number formats as the
two-load reader (a test compares them), at about the cost of one read-only pass.

Styles come from the read-only workbook's style tables, looked up once per style id.
Sheet notes (merged ranges, data validations, conditional formats) come from the same
parse; charts, images and pivot tables from the sheet's relationships.

When formulas cannot be read (a shared formula openpyxl cannot translate, ...), the
sheet is read again for its cached values only and the workbook is marked
``values_only``; a workbook with more than ``max_cells`` cells raises ``Oversized``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import openpyxl
import polars as pl
from openpyxl.cell.read_only import ReadOnlyCell
from openpyxl.drawing.spreadsheet_drawing import SpreadsheetDrawing
from openpyxl.packaging.relationship import get_dependents, get_rels_path
from openpyxl.pivot.table import TableDefinition
from openpyxl.reader.drawings import find_images
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import range_boundaries
from openpyxl.worksheet._reader import FORMULA_TAG, WorkSheetParser
from openpyxl.xml.functions import fromstring

from pipeline.ingest.workbooks import (
    CELLS_SCHEMA,
    SHEETS_SCHEMA,
    WorkbookError,
    _chart_label,
    _fill_color,
    _font_color,
    cell_type,
    formula_text,
    value_number,
    value_text,
)

READ_FORMULAS = "formulas"
READ_VALUES_ONLY = "values_only"


class Oversized(WorkbookError):
    """The workbook holds more cells than the configured limit."""


class _FormulaAndValueParser(WorkSheetParser):
    """openpyxl's sheet parser, reading the cached value *and* the formula of each cell."""

    def __init__(self, *args, formulas: bool = True, **kwargs):
        super().__init__(*args, data_only=True, **kwargs)
        self.formulas = formulas

    def parse_cell(self, element):
        out = super().parse_cell(element)  # data_only: the cached value and its type
        out["formula"] = None
        if self.formulas and element.find(FORMULA_TAG) is not None:
            out["formula"] = formula_text(self.parse_formula(element))
        return out


class _Styles:
    """Number format, fill and font colour per style id (computed once per id)."""

    def __init__(self, wb: object):
        self.wb = wb
        self.by_id: dict[int, tuple[str, str | None, str | None]] = {}

    def get(self, ws: object, style_id: int) -> tuple[str, str | None, str | None]:
        found = self.by_id.get(style_id)
        if found is None:
            try:
                probe = ReadOnlyCell(ws, 1, 1, None, style_id=style_id)
                found = (
                    str(probe.number_format or "General"),
                    _fill_color(probe),
                    _font_color(probe),
                )
            except (IndexError, KeyError, AttributeError):  # a style id the file lacks
                found = ("General", None, None)
            self.by_id[style_id] = found
        return found


def _sheet_extras(wb: object, ws: object) -> tuple[list[str], list[str], int]:
    """Charts, pivot table names and image count from the sheet's relationships."""
    archive = wb._archive  # type: ignore[attr-defined]
    rels_path = get_rels_path(ws._worksheet_path)  # type: ignore[attr-defined]
    if rels_path not in archive.namelist():
        return [], [], 0
    rels = get_dependents(archive, rels_path)
    charts: list[str] = []
    n_images = 0
    for rel in rels.find(SpreadsheetDrawing._rel_type):
        found_charts, images = find_images(archive, rel.target)
        charts += [_chart_label(c) for c in found_charts]
        n_images += len(images)
    pivots = [
        str(fromstring(archive.read(r.Target)).get("name") or "")
        for r in rels.find(TableDefinition.rel_type)
    ]
    return charts, pivots, n_images


def _merged(parser: WorkSheetParser) -> list[str]:
    merged = getattr(parser, "merged_cells", None)
    out = []
    for m in getattr(merged, "mergeCell", []) or []:
        c1, r1, c2, r2 = range_boundaries(m.ref)
        out.append(f"{get_column_letter(c1)}{r1}:{get_column_letter(c2)}{r2}")
    return sorted(out)


def _conditional(parser: WorkSheetParser) -> list[str]:
    notes = []
    for cf in parser.formatting:
        for rule in cf.rules:
            formula = ";".join(rule.formula or [])
            notes.append(f"{cf.sqref} {rule.type} {formula}".strip())
    return sorted(notes)


def _read_sheet(
    wb: object,
    ws: object,
    styles: _Styles,
    cols: dict[str, list],
    formulas: bool,
    budget: int,
) -> tuple[WorkSheetParser, int, int, tuple[int, int, int, int] | None]:
    """Append one sheet's cells to ``cols``; its parser, cell and formula counts, bounds."""
    n_cells = n_formulas = 0
    min_r = min_c = 1 << 30
    max_r = max_c = 0
    letters: dict[int, str] = {}
    with ws._get_source() as src:  # type: ignore[attr-defined]
        parser = _FormulaAndValueParser(
            src,
            ws._shared_strings,  # type: ignore[attr-defined]
            formulas=formulas,
            epoch=wb.epoch,  # type: ignore[attr-defined]
            date_formats=wb._date_formats,  # type: ignore[attr-defined]
            timedelta_formats=wb._timedelta_formats,  # type: ignore[attr-defined]
        )
        for _, row in parser.parse():
            for c in row:
                value = c["value"]
                formula = c["formula"]
                if formula is None and (value is None or value == ""):
                    continue  # an empty string is an empty cell to every reader
                r, col = c["row"], c["column"]
                n_cells += 1
                if n_cells > budget:
                    raise Oversized(f"more than {budget} cells")
                n_formulas += formula is not None
                min_r, max_r = min(min_r, r), max(max_r, r)
                min_c, max_c = min(min_c, col), max(max_c, col)
                letter = letters.get(col) or letters.setdefault(col, get_column_letter(col))
                fmt, fill, font = styles.get(ws, c["style_id"] or 0)
                cols["sheet"].append(ws.title)  # type: ignore[attr-defined]
                cols["address"].append(f"{letter}{r}")
                cols["row"].append(r)
                cols["col"].append(col)
                cols["value"].append(value_text(value))
                cols["value_num"].append(value_number(value))
                cols["type"].append(cell_type(value, c["data_type"]))
                cols["formula"].append(formula)
                cols["number_format"].append(fmt)
                cols["fill"].append(fill)
                cols["font_color"].append(font)
    bounds = (min_r, min_c, max_r, max_c) if n_cells else None
    return parser, n_cells, n_formulas, bounds


def _read(path: Path, workbook_id: str, formulas: bool, max_cells: int) -> dict:
    with warnings.catch_warnings(), open(path, "rb") as fh:
        warnings.simplefilter("ignore", UserWarning)
        # a file object, not a name: blobs have no suffix for openpyxl to check
        wb = openpyxl.load_workbook(fh, read_only=True, data_only=True)
        try:
            styles = _Styles(wb)
            cols: dict[str, list] = {k: [] for k in CELLS_SCHEMA if k != "workbook_id"}
            sheets = []
            budget = max_cells
            for index, ws in enumerate(wb.worksheets):
                parser, n, nf, bounds = _read_sheet(wb, ws, styles, cols, formulas, budget)
                budget -= n
                charts, pivots, n_images = _sheet_extras(wb, ws)
                used = None
                if bounds is not None:
                    r0, c0, r1, c1 = bounds
                    used = f"{get_column_letter(c0)}{r0}:{get_column_letter(c1)}{r1}"
                validations = getattr(parser, "data_validations", None)
                sheets.append(
                    {
                        "workbook_id": workbook_id,
                        "sheet": ws.title,
                        "sheet_index": index,
                        "state": ws.sheet_state,
                        "used_range": used,
                        "n_cells": n,
                        "n_formulas": nf,
                        "merged_ranges": _merged(parser),
                        "charts": charts,
                        "pivots": pivots,
                        "n_images": n_images,
                        "n_data_validations": len(getattr(validations, "dataValidation", []))
                        if validations is not None
                        else 0,
                        "conditional_formats": _conditional(parser),
                    }
                )
        finally:
            wb.close()
    cols["workbook_id"] = [workbook_id] * len(cols["sheet"])
    return {"sheets": sheets, "cells": {k: cols[k] for k in CELLS_SCHEMA}}


def read_columns(path: str | Path, workbook_id: str, max_cells: int = 10_000_000) -> dict:
    """The rows of one .xlsx/.xlsm as plain Python lists (no polars: a process-pool child
    forked from a parent that uses polars must not touch it), and its ``read_mode``.

    Returns ``{"sheets": [row dicts], "cells": {column: list}, "read_mode": str,
    "read_note": str | None}`` (``read_note`` says why formulas were not read).
    Raises :class:`Oversized` past ``max_cells`` and :class:`WorkbookError` (naming the
    file) when not even the values can be read.
    """
    path = Path(path)
    try:
        got = _read(path, workbook_id, True, max_cells)
        got.update(read_mode=READ_FORMULAS, read_note=None)
        return got
    except Oversized as exc:
        raise Oversized(f"{path}: {exc}") from exc
    except Exception as first:  # openpyxl raises many types for broken files
        note = f"formulas unreadable: {type(first).__name__}: {first}"
    try:
        got = _read(path, workbook_id, False, max_cells)
    except Oversized as exc:
        raise Oversized(f"{path}: {exc}") from exc
    except Exception as exc:
        raise WorkbookError(
            f"{path}: openpyxl cannot read it: {type(exc).__name__}: {exc}"
        ) from exc
    got.update(read_mode=READ_VALUES_ONLY, read_note=note)
    return got


def as_frames(got: dict) -> dict:
    """``read_columns`` output as frames: ``{"sheets", "cells", "read_mode", "read_note",
    "n_cells", "n_formulas"}``."""
    sheets = pl.DataFrame(got["sheets"], schema=SHEETS_SCHEMA)
    cells = pl.DataFrame(got["cells"], schema=CELLS_SCHEMA)
    return {
        "sheets": sheets,
        "cells": cells,
        "read_mode": got["read_mode"],
        "read_note": got["read_note"],
        "n_cells": cells.height,
        "n_formulas": int(sheets["n_formulas"].sum() or 0),
    }


def read_frames(path: str | Path, workbook_id: str, max_cells: int = 10_000_000) -> dict:
    """The ``sheets`` and ``cells`` frames of one .xlsx/.xlsm (see :func:`read_columns`,
    :func:`as_frames`)."""
    return as_frames(read_columns(path, workbook_id, max_cells))
