"""One pass over each sheet's XML: formula and cached value of every cell together.

:func:`pipeline.ingest.workbooks.read_workbook` loads a workbook twice with openpyxl
(formulas, then cached values), fully in memory, because the judge wants ``Cell``
objects. Ingestion only wants the ``sheets`` and ``cells`` rows, and an ``.xlsx`` keeps
a cell's formula (``<f>``) and the value Excel cached for it (``<v>``) in the same
``<c>`` element. So ingestion streams each sheet once with openpyxl's own read-only
sheet parser (``WorkSheetParser``, the one behind ``load_workbook(read_only=True)``),
taking both from each element: the same values, types and number formats as the
two-load reader (a test compares them), at about the cost of one read-only pass.

Two costs of ``load_workbook(read_only=True)`` are avoided. It sizes every sheet up
front (a whole parse when a writer puts no ``<dimension>`` first); the workbook parts
(strings, styles, sheet list) are read here with openpyxl's ``ExcelReader`` steps and
no sheet is sized. And where defusedxml is installed openpyxl parses with its
pure-Python expat callbacks; the sheets here are parsed with the standard library's C
``iterparse``, which is safe from entity expansion (billion laughs, quadratic blow-up)
with expat >= 2.4.1 and never resolves external entities (Python's "XML
vulnerabilities" table); with an older expat openpyxl's own parser is used.

Styles come from the workbook's style tables, looked up once per style id.
Sheet notes (merged ranges, data validations, conditional formats) come from the same
parse; charts, images and pivot tables from the sheet's relationships.

When formulas cannot be read (a shared formula openpyxl cannot translate, ...), the
sheet is read again for its cached values only and the workbook is marked
``values_only``; a workbook with more than ``max_cells`` cells raises ``Oversized``.
"""

from __future__ import annotations

import pyexpat
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import polars as pl
from openpyxl.cell.read_only import ReadOnlyCell
from openpyxl.drawing.spreadsheet_drawing import SpreadsheetDrawing
from openpyxl.packaging.relationship import get_dependents, get_rels_path
from openpyxl.pivot.table import TableDefinition
from openpyxl.reader.drawings import find_images
from openpyxl.reader.excel import ExcelReader
from openpyxl.styles.stylesheet import apply_stylesheet
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import range_boundaries
from openpyxl.worksheet import _reader as openpyxl_sheet_reader
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


SAFE_EXPAT = pyexpat.version_info >= (2, 4, 1)


class _FormulaAndValueParser(WorkSheetParser):
    """openpyxl's sheet parser, reading the cached value *and* the formula of each cell."""

    def __init__(self, *args, formulas: bool = True, **kwargs):
        super().__init__(*args, data_only=True, **kwargs)
        self.formulas = formulas

    def parse(self):
        """Rows of cells, as ``WorkSheetParser.parse`` yields them; sheet notes kept."""
        if not SAFE_EXPAT:
            yield from super().parse()
            return
        saved = openpyxl_sheet_reader.iterparse
        openpyxl_sheet_reader.iterparse = ET.iterparse  # C parser (see module docstring)
        try:
            rows = super().parse()
            first = next(rows, None)  # the generator binds iterparse on its first step
        finally:
            openpyxl_sheet_reader.iterparse = saved
        if first is not None:
            yield first
            yield from rows

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


def _encode(value: object, data_type: str) -> tuple[str | None, float | None, str | None]:
    """``value_text``, ``value_number`` and ``cell_type`` at once, numbers and text first."""
    kind = type(value)
    if kind is float:
        whole = value.is_integer()  # type: ignore[union-attr]
        text = str(int(value)) if whole and abs(value) < 1e15 else repr(value)  # type: ignore[arg-type]
        return text, value, "I" if whole else "F"  # type: ignore[return-value]
    if kind is int:
        return str(value), float(value), "I"  # type: ignore[arg-type]
    if kind is str:
        return value, None, "E" if data_type == "e" else "T"  # type: ignore[return-value]
    return value_text(value), value_number(value), cell_type(value, data_type)


def _read_sheet(
    wb: object,
    ws: object,
    shared_strings: list,
    styles: _Styles,
    cols: dict[str, list],
    formulas: bool,
    budget: int,
) -> tuple[WorkSheetParser, int, int, tuple[int, int, int, int] | None]:
    """Append one sheet's cells to ``cols``; its parser, cell and formula counts, bounds."""
    n_cells = n_formulas = 0
    start = len(cols["row"])
    letters: dict[int, str] = {}
    with wb._archive.open(ws._worksheet_path) as src:  # type: ignore[attr-defined]
        parser = _FormulaAndValueParser(
            src,
            shared_strings,
            formulas=formulas,
            epoch=wb.epoch,  # type: ignore[attr-defined]
            date_formats=wb._date_formats,  # type: ignore[attr-defined]
            timedelta_formats=wb._timedelta_formats,  # type: ignore[attr-defined]
        )
        rows, columns, values, numbers, types, found, style_ids = ([] for _ in range(7))
        for _, row in parser.parse():
            for c in row:
                value = c["value"]
                formula = c["formula"]
                if formula is None and (value is None or value == ""):
                    continue  # an empty string is an empty cell to every reader
                n_cells += 1
                if n_cells > budget:
                    raise Oversized(f"more than {budget} cells")
                n_formulas += formula is not None
                text, number, kind = _encode(value, c["data_type"])
                rows.append(c["row"])
                columns.append(c["column"])
                values.append(text)
                numbers.append(number)
                types.append(kind)
                found.append(formula)
                style_ids.append(c["style_id"] or 0)
    for col in set(columns):
        letters[col] = get_column_letter(col)
    looks = {s: styles.get(ws, s) for s in set(style_ids)}
    cols["sheet"] += [ws.title] * n_cells  # type: ignore[attr-defined]
    cols["address"] += [f"{letters[c]}{r}" for r, c in zip(rows, columns, strict=True)]
    cols["row"] += rows
    cols["col"] += columns
    cols["value"] += values
    cols["value_num"] += numbers
    cols["type"] += types
    cols["formula"] += found
    cols["number_format"] += [looks[s][0] for s in style_ids]
    cols["fill"] += [looks[s][1] for s in style_ids]
    cols["font_color"] += [looks[s][2] for s in style_ids]
    bounds = None
    if n_cells:
        rows, columns = cols["row"][start:], cols["col"][start:]
        bounds = (min(rows), min(columns), max(rows), max(columns))
    return parser, n_cells, n_formulas, bounds


def _open(fh: object) -> tuple[object, ExcelReader, list[tuple[object, str]]]:
    """The workbook parts openpyxl's read-only load reads, but no sheet sized: the
    workbook (styles, epoch, date formats), its reader, and (sheet, part path) pairs."""
    reader = ExcelReader(fh, read_only=True, keep_vba=False, data_only=True, keep_links=False)
    reader.read_manifest()
    reader.read_strings()
    reader.read_workbook()
    apply_stylesheet(reader.archive, reader.wb)
    sheets = [
        (sheet, rel.target)
        for sheet, rel in reader.parser.find_sheets()
        if rel.target in reader.valid_files and "chartsheet" not in rel.Type
    ]
    return reader.wb, reader, sheets


def _read(path: Path, workbook_id: str, formulas: bool, max_cells: int) -> dict:
    with warnings.catch_warnings(), open(path, "rb") as fh:
        warnings.simplefilter("ignore", UserWarning)
        # a file object, not a name: blobs have no suffix for openpyxl to check
        wb, reader, found = _open(fh)
        try:
            styles = _Styles(wb)
            cols: dict[str, list] = {k: [] for k in CELLS_SCHEMA if k != "workbook_id"}
            sheets = []
            budget = max_cells
            for index, (sheet, part) in enumerate(found):
                ws = SimpleNamespace(
                    parent=wb, title=sheet.name, _worksheet_path=part, sheet_state=sheet.state
                )
                parser, n, nf, bounds = _read_sheet(
                    wb, ws, reader.shared_strings, styles, cols, formulas, budget
                )
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
                        "state": ws.sheet_state or "visible",
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
            reader.archive.close()
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
