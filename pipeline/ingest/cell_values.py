"""Cell values as LedgerForge compares them: canonical text, the Finch type letter, the
formula of a formula-mode value and colours as text.

Pure functions over openpyxl values (no polars, no I/O), shared by workbook ingestion
(:mod:`pipeline.ingest.workbooks`) and the sandbox's workbook reader
(:mod:`oracles._workbook`), so a checker in the sandbox sees a cell exactly as the
pipeline stored it.
"""

from __future__ import annotations

import datetime as dt

from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula


def value_text(value: object) -> str | None:
    """Canonical text of a cell value: integers without ".0", ISO dates, TRUE/FALSE."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value)


def cell_type(value: object, data_type: str) -> str | None:
    """Finch type letter for a cached value (openpyxl ``data_type`` marks errors)."""
    if value is None:
        return None
    if data_type == "e":
        return "E"
    if isinstance(value, bool):
        return "B"
    if isinstance(value, int):
        return "I"
    if isinstance(value, float):
        # Excel stores every number as a double; a whole number reads as an integer
        return "I" if value.is_integer() else "F"
    if isinstance(value, dt.datetime | dt.date | dt.time | dt.timedelta):
        return "D"
    return "T"


def formula_text(raw: object) -> str | None:
    """The formula of a formula-mode cell value, or None for a constant."""
    if isinstance(raw, ArrayFormula):
        return raw.text
    if isinstance(raw, DataTableFormula):
        return f"=TABLE({raw.r1 or ''},{raw.r2 or ''})"
    if isinstance(raw, str) and raw.startswith("=") and len(raw) > 1:
        return raw
    return None


def color_text(color: object) -> str | None:
    """A colour as comparable text: RGB without alpha, or "theme<n>" / "indexed<n>"."""
    if color is None:
        return None
    kind = getattr(color, "type", None)
    if kind == "rgb" and isinstance(color.rgb, str):
        return color.rgb[-6:].upper()
    if kind == "theme":
        tint = getattr(color, "tint", 0.0) or 0.0
        return f"theme{color.theme}" + (f"{tint:+.2f}" if tint else "")
    if kind == "indexed":
        return f"indexed{color.indexed}"
    return None
