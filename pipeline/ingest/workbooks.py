"""Workbook ingestion: the ``workbooks``, ``sheets`` and ``cells`` stages.

A workbook is read twice with openpyxl: once for formulas (``data_only=False``) and
once for the values Excel cached when it last saved (``data_only=True``), because a
cell's formula and its computed value are both evidence (a formula silently replaced
by its value is a classic spreadsheet slip). Legacy ``.xls`` files are converted to
``.xlsx`` by headless LibreOffice first; the conversion keeps formulas and their
cached results.

One record per non-empty cell: sheet, address, row, col, value, type, formula and
number format. Types follow the Finch encoding: T text, I integer, F float, D date,
B boolean, E error; a formula whose value was never computed has no type (null).
Merged ranges, charts, pivot tables, images, data validations and conditional
formats are noted per sheet.

This module holds the schemas and the in-memory reader the judge and the diffs use
(:func:`read_workbook`). Ingesting a corpus (mail attachments and spreadsheet folders:
safety checks, batched ``.xls`` conversion, one pass per sheet) lives in
:mod:`pipeline.ingest.workbook_sources`, :mod:`pipeline.ingest.xls_conversion` and
:mod:`pipeline.ingest.xlsx_reader`; they write the same rows as :func:`workbook_frames`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import tempfile
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import openpyxl
import polars as pl
from openpyxl.utils import get_column_letter

from pipeline.ingest.cell_values import cell_type, color_text, formula_text, value_text
from pipeline.ingest.xls_conversion import (
    SOFFICE_TIMEOUT_S,
    WorkbookError,
    convert_with_soffice,
    convert_xls,
)
from pipeline.store import BlobStore, Intake, storable_path

STAGE = "workbooks"
OPENXML_SUFFIXES = {".xlsx", ".xlsm"}
LEGACY_SUFFIXES = {".xls"}
WORKBOOK_SUFFIXES = OPENXML_SUFFIXES | LEGACY_SUFFIXES
ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
CELL_TYPES = ("T", "I", "F", "D", "B", "E")

WORKBOOKS_SCHEMA = {
    "workbook_id": pl.String,  # sha256 of the original file bytes (the blob key)
    "source_path": pl.String,
    "file_name": pl.String,
    "source_format": pl.String,  # xlsx | xlsm | xls
    "converted_sha256": pl.String,  # the .xlsx LibreOffice produced from an .xls (blob); else null
    "n_sheets": pl.Int32,
    "n_cells": pl.Int64,
    "n_formulas": pl.Int64,
    # formulas | values_only (formulas unreadable: only the cached values were read)
    "read_mode": pl.String,
    "read_note": pl.String,  # why formulas were not read; null when they were
}

SHEETS_SCHEMA = {
    "workbook_id": pl.String,
    "sheet": pl.String,
    "sheet_index": pl.Int32,  # 0-based position in the workbook
    "state": pl.String,  # visible | hidden | veryHidden
    "used_range": pl.String,  # bounding box of the non-empty cells, e.g. "A1:Z100"; null when empty
    "n_cells": pl.Int64,
    "n_formulas": pl.Int64,
    "merged_ranges": pl.List(pl.String),
    "charts": pl.List(pl.String),  # "<ChartType>@<anchor cell>", e.g. "BarChart@E2"
    "pivots": pl.List(pl.String),  # pivot table names
    "n_images": pl.Int32,
    "n_data_validations": pl.Int32,
    "conditional_formats": pl.List(pl.String),  # "<range> <rule type> <formula>"
}

CELLS_SCHEMA = {
    "workbook_id": pl.String,
    "sheet": pl.String,
    "address": pl.String,  # "B7"
    "row": pl.Int32,  # 1-based
    "col": pl.Int32,  # 1-based
    "value": pl.String,  # canonical text of the (cached) value; null when a formula has none
    "value_num": pl.Float64,  # numeric value for I/F/B (dates as Excel serials); else null
    "type": pl.String,  # T | I | F | D | B | E; null when a formula has no cached value
    "formula": pl.String,  # "=SUM(A1:A10)"; null for constants
    "number_format": pl.String,
    "fill": pl.String,  # fill colour ("FFFF00", "theme4", "indexed10") when the cell is filled
    "font_color": pl.String,  # font colour when not the default
}


@dataclass(frozen=True)
class Cell:
    """One non-empty cell: its cached value, Finch type, formula and number format."""

    sheet: str
    row: int
    col: int
    value: object  # str | int | float | bool | datetime | date | time | None
    type: str | None
    formula: str | None
    number_format: str = "General"
    fill: str | None = None
    font_color: str | None = None

    @property
    def address(self) -> str:
        return f"{get_column_letter(self.col)}{self.row}"

    @cached_property
    def text(self) -> str | None:
        """The value as canonical text (the form diffs and encodings compare)."""
        return value_text(self.value)


@dataclass
class Sheet:
    """A worksheet's cells keyed by (row, col) plus its layout notes."""

    name: str
    index: int
    state: str = "visible"
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    merged_ranges: list[str] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)
    pivots: list[str] = field(default_factory=list)
    n_images: int = 0
    n_data_validations: int = 0
    conditional_formats: list[str] = field(default_factory=list)

    @property
    def max_row(self) -> int:
        return max((r for r, _ in self.cells), default=0)

    @property
    def max_col(self) -> int:
        return max((c for _, c in self.cells), default=0)

    @property
    def min_row(self) -> int:
        return min((r for r, _ in self.cells), default=0)

    @property
    def min_col(self) -> int:
        return min((c for _, c in self.cells), default=0)

    @property
    def used_range(self) -> str | None:
        """Bounding box of the non-empty cells ("A1:Z100"), or None for an empty sheet."""
        if not self.cells:
            return None
        first = f"{get_column_letter(self.min_col)}{self.min_row}"
        last = f"{get_column_letter(self.max_col)}{self.max_row}"
        return f"{first}:{last}"

    def get(self, row: int, col: int) -> Cell | None:
        return self.cells.get((row, col))


@dataclass
class Workbook:
    """A workbook read into memory: sheets in workbook order."""

    path: Path
    workbook_id: str
    source_format: str
    sheets: dict[str, Sheet]
    converted_path: Path | None = None
    recalculated: int = 0  # formula values LibreOffice computed because none were cached

    @property
    def sheet_names(self) -> list[str]:
        return list(self.sheets)

    def sheet(self, name: str) -> Sheet:
        if name not in self.sheets:
            raise KeyError(f"{self.path}: no sheet {name!r} (sheets: {self.sheet_names})")
        return self.sheets[name]


def excel_serial(value: dt.datetime | dt.date | dt.time) -> float:
    """The Excel serial number (1900 date system) of a date, datetime or time."""
    if isinstance(value, dt.time):
        return (value.hour * 3600 + value.minute * 60 + value.second) / 86400
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    delta = value - dt.datetime(1899, 12, 30)
    return delta.days + delta.seconds / 86400 + delta.microseconds / 86400e6


def value_number(value: object) -> float | None:
    """The numeric reading of a value (booleans 1/0, dates as serials), else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return excel_serial(value)
    return None


def sniff_format(path: Path) -> str:
    """The container format by magic bytes: ``xlsx`` (zip) or ``xls`` (OLE); else raise.

    Mail attachments named ``.xls`` are sometimes zipped OOXML (or HTML); the bytes
    decide, not the name.
    """
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(ZIP_MAGIC):
        return "xlsm" if path.suffix.lower() == ".xlsm" else "xlsx"
    if head == OLE_MAGIC:
        return "xls"
    raise WorkbookError(
        f"{storable_path(path)}: not a workbook (neither zip nor OLE container: {head!r})"
    )


def _chart_label(chart: object) -> str:
    anchor = getattr(chart, "anchor", None)
    marker = getattr(anchor, "_from", None)
    where = f"{get_column_letter(marker.col + 1)}{marker.row + 1}" if marker is not None else "?"
    return f"{type(chart).__name__}@{where}"


def _fill_color(cell: object) -> str | None:
    fill = getattr(cell, "fill", None)
    if fill is None or getattr(fill, "fill_type", None) in (None, "none"):
        return None
    return color_text(fill.fgColor)


def _font_color(cell: object) -> str | None:
    font = getattr(cell, "font", None)
    text = color_text(getattr(font, "color", None)) if font is not None else None
    # black and the default text theme colour are what "no colour" looks like
    return None if text in ("000000", "theme1", "indexed64") else text


def _conditional_formats(ws: object) -> list[str]:
    notes: list[str] = []
    for cf in ws.conditional_formatting:  # type: ignore[attr-defined]
        for rule in cf.rules:
            formula = ";".join(rule.formula or [])
            notes.append(f"{cf.sqref} {rule.type} {formula}".strip())
    return sorted(notes)


def _read_sheets(path: Path) -> dict[str, Sheet]:
    try:
        with warnings.catch_warnings():
            # "extension is not supported" notes about parts openpyxl drops are expected
            warnings.simplefilter("ignore", UserWarning)
            formulas = openpyxl.load_workbook(path, data_only=False)
            values = openpyxl.load_workbook(path, data_only=True)
    except Exception as exc:  # openpyxl raises many types for broken files
        raise WorkbookError(
            f"{path}: openpyxl cannot read it: {type(exc).__name__}: {exc}"
        ) from exc
    sheets: dict[str, Sheet] = {}
    for index, ws in enumerate(formulas.worksheets):
        wv = values[ws.title]
        sheet = Sheet(
            name=ws.title,
            index=index,
            state=ws.sheet_state,
            merged_ranges=sorted(str(r) for r in ws.merged_cells.ranges),
            charts=[_chart_label(c) for c in getattr(ws, "_charts", [])],
            pivots=[str(getattr(p, "name", "")) for p in getattr(ws, "_pivots", [])],
            n_images=len(getattr(ws, "_images", [])),
            n_data_validations=len(ws.data_validations.dataValidation),
            conditional_formats=_conditional_formats(ws),
        )
        cached = {
            (c.row, c.column): c for row in wv.iter_rows() for c in row if c.value is not None
        }
        for row in ws.iter_rows():
            for c in row:
                raw = c.value
                formula = formula_text(raw)
                vcell = cached.get((c.row, c.column))
                if formula is None:
                    value = raw
                    data_type = c.data_type
                else:
                    value = vcell.value if vcell is not None else None
                    data_type = vcell.data_type if vcell is not None else "n"
                if isinstance(value, str) and value == "" and formula is None:
                    continue  # an empty string is an empty cell to every reader
                if value is None and formula is None:
                    continue
                sheet.cells[(c.row, c.column)] = Cell(
                    sheet=ws.title,
                    row=c.row,
                    col=c.column,
                    value=value,
                    type=cell_type(value, data_type),
                    formula=formula,
                    number_format=str(c.number_format or "General"),
                    fill=_fill_color(c),
                    font_color=_font_color(c),
                )
        sheets[ws.title] = sheet
    formulas.close()
    values.close()
    return sheets


def fill_uncached_values(wb: Workbook, timeout: float = SOFFICE_TIMEOUT_S) -> int:
    """Compute the formulas that carry no cached value (files written by openpyxl and
    similar tools) by a LibreOffice round trip; returns how many got a value.

    Only the missing values are taken from LibreOffice: formulas and cached values
    Excel wrote stay as they are. A function LibreOffice lacks yields an error value.
    """
    missing = [
        (s.name, key)
        for s in wb.sheets.values()
        for key, c in s.cells.items()
        if c.formula and c.value is None
    ]
    if not missing:
        return 0
    source = wb.converted_path or wb.path
    with tempfile.TemporaryDirectory(prefix="lf-recalc-") as tmp:
        calc = convert_with_soffice(source, Path(tmp), "xlsx", timeout)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            values = openpyxl.load_workbook(calc, data_only=True)
        filled = 0
        for name, (row, col) in missing:
            if name not in values.sheetnames:
                continue
            vcell = values[name].cell(row=row, column=col)
            if vcell.value is None:
                continue
            old = wb.sheets[name].cells[(row, col)]
            kind = cell_type(vcell.value, vcell.data_type)
            wb.sheets[name].cells[(row, col)] = replace(old, value=vcell.value, type=kind)
            filled += 1
        values.close()
    wb.recalculated = filled
    return filled


def read_workbook(
    path: str | Path,
    convert_dir: str | Path | None = None,
    timeout: float = SOFFICE_TIMEOUT_S,
    recalculate: bool = False,
) -> Workbook:
    """Read an .xlsx/.xlsm (or an .xls through LibreOffice) into a :class:`Workbook`.

    ``convert_dir`` keeps the converted .xlsx of an .xls (named by the sha256 of the
    original bytes, so a second read reuses it); without it a temporary folder is used
    and the converted file is discarded. ``recalculate`` computes formulas that have no
    cached value (see :func:`fill_uncached_values`). Raises :class:`WorkbookError`
    naming the file.
    """
    wb = _read_workbook(Path(path), convert_dir, timeout)
    if recalculate:
        fill_uncached_values(wb, timeout)
    return wb


def _read_workbook(path: Path, convert_dir: str | Path | None, timeout: float) -> Workbook:
    if not path.is_file():
        raise WorkbookError(f"{storable_path(path)}: no such file")
    fmt = sniff_format(path)  # the header first: a file that is no workbook is not read
    with open(path, "rb") as fh:
        sha = hashlib.file_digest(fh, "sha256").hexdigest()  # streamed, never held whole
    if fmt != "xls":
        return Workbook(path=path, workbook_id=sha, source_format=fmt, sheets=_read_sheets(path))
    if convert_dir is not None:
        cached = Path(convert_dir) / f"{sha}.xlsx"
        if not cached.exists():
            produced = convert_xls(path, Path(convert_dir), timeout)
            os.replace(produced, cached)
        sheets = _read_sheets(cached)
        return Workbook(path, sha, "xls", sheets, converted_path=cached)
    with tempfile.TemporaryDirectory(prefix="lf-xls-") as tmp:
        produced = convert_xls(path, Path(tmp), timeout)
        # LibreOffice stores every formula result, so nothing is left to recalculate
        return Workbook(path, sha, "xls", _read_sheets(produced))


def workbook_frames(wb: Workbook, converted_sha256: str | None = None) -> dict[str, pl.DataFrame]:
    """The ``workbooks``, ``sheets`` and ``cells`` rows of one workbook."""
    cells = [
        {
            "workbook_id": wb.workbook_id,
            "sheet": c.sheet,
            "address": c.address,
            "row": c.row,
            "col": c.col,
            "value": c.text,
            "value_num": value_number(c.value),
            "type": c.type,
            "formula": c.formula,
            "number_format": c.number_format,
            "fill": c.fill,
            "font_color": c.font_color,
        }
        for s in wb.sheets.values()
        for c in s.cells.values()
    ]
    sheets = [
        {
            "workbook_id": wb.workbook_id,
            "sheet": s.name,
            "sheet_index": s.index,
            "state": s.state,
            "used_range": s.used_range,
            "n_cells": len(s.cells),
            "n_formulas": sum(c.formula is not None for c in s.cells.values()),
            "merged_ranges": s.merged_ranges,
            "charts": s.charts,
            "pivots": s.pivots,
            "n_images": s.n_images,
            "n_data_validations": s.n_data_validations,
            "conditional_formats": s.conditional_formats,
        }
        for s in wb.sheets.values()
    ]
    workbook = {
        "workbook_id": wb.workbook_id,
        "source_path": storable_path(wb.path),  # escaped when the name is not UTF-8
        "file_name": storable_path(wb.path.name),
        "source_format": wb.source_format,
        "converted_sha256": converted_sha256,
        "n_sheets": len(wb.sheets),
        "n_cells": len(cells),
        "n_formulas": sum(s["n_formulas"] for s in sheets),
        "read_mode": "formulas",
        "read_note": None,
    }
    return {
        "workbooks": pl.DataFrame([workbook], schema=WORKBOOKS_SCHEMA),
        "sheets": pl.DataFrame(sheets, schema=SHEETS_SCHEMA),
        "cells": pl.DataFrame(cells, schema=CELLS_SCHEMA),
    }


@dataclass
class WorkbookIngest:
    """The three tables of a batch of workbooks, what was quarantined, and (from
    :func:`pipeline.ingest.workbook_sources.ingest_workbook_sources`) one row per source."""

    workbooks: pl.DataFrame
    sheets: pl.DataFrame
    cells: pl.DataFrame
    intake: Intake
    sources: pl.DataFrame | None = None


def ingest_workbooks(
    paths: Iterable[str | Path], blobs: BlobStore, timeout: float = SOFFICE_TIMEOUT_S
) -> WorkbookIngest:
    """Read every workbook file in ``paths`` (a corpus without mail); store original
    (and converted) bytes as blobs. See :func:`~pipeline.ingest.workbook_sources.
    ingest_workbook_sources`: every path ends up ingested or quarantined with the reason,
    and a workbook seen twice (same sha256) is one workbook with two sources.
    """
    from pipeline.ingest.workbook_sources import WorkbookSource, ingest_workbook_sources

    items = [WorkbookSource.corpus(p) for p in paths]
    return ingest_workbook_sources(items, blobs, per_file_s=timeout)
