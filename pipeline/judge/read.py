"""Reading workbooks for judging: styles the reader cannot handle are skipped, with a note.

The ingest reader (:func:`pipeline.ingest.workbooks.read_workbook`) reads fills as
pattern fills; a ``GradientFill`` (or a stylesheet openpyxl cannot load) makes it
fail. A judge must not: the workbook is read again from a copy whose gradient fills
are replaced by no fill, and failing that, from a copy without any cell styles. The
note says what was not compared (fills; then also number formats and font colours).
A file that is missing or not a workbook still raises :class:`WorkbookError`.
Formulas saved without a value are computed by LibreOffice (``recalculate``); when
that fails the workbook is judged without them, with a note.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from dataclasses import replace
from pathlib import Path

from pipeline.ingest.workbooks import (
    Workbook,
    WorkbookError,
    fill_uncached_values,
    read_workbook,
)

_GRADIENT = re.compile(
    rb"<(\w+:)?gradientFill\b.*?</(\w+:)?gradientFill>|<(\w+:)?gradientFill\b[^>]*/>", re.S
)
_STYLE_ATTR = re.compile(rb'(<(?:\w+:)?c\b[^>]*?)\s+s="\d+"')
_MINIMAL_STYLES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    b'<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
    b'<fills count="2"><fill><patternFill patternType="none"/></fill>'
    b'<fill><patternFill patternType="gray125"/></fill></fills>'
    b'<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    b'<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    b'<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
    b'<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    b"</styleSheet>"
)
NOTE_GRADIENT = "gradient fills skipped (unreadable style): fills there are not compared"
NOTE_STYLES = (
    "cell styles skipped (unreadable stylesheet): fills, font colours and number "
    "formats are not compared"
)


def _rewrite(src: Path, dest: Path, level: str) -> bool:
    """Copy ``src`` to ``dest`` with gradient fills (or all cell styles) removed;
    False when there was nothing to remove."""
    changed = False
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            name = item.filename.lower()
            if level == "gradient" and name == "xl/styles.xml":
                new = _GRADIENT.sub(b'<patternFill patternType="none"/>', data)
                changed |= new != data
                data = new
            elif level == "styles" and name == "xl/styles.xml":
                data, changed = _MINIMAL_STYLES, True
            elif level == "styles" and name.startswith("xl/worksheets/") and name.endswith(".xml"):
                data = _STYLE_ATTR.sub(rb"\1", data)
            zout.writestr(item, data)
    return changed


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, WorkbookError):
        return "openpyxl cannot read it" in str(exc)
    return True  # an error inside the reader (e.g. a GradientFill has no fgColor)


def read_for_judging(
    path: str | Path,
    convert_dir: str | Path | None = None,
    recalculate: bool = True,
) -> tuple[Workbook, list[str]]:
    """The workbook and notes on what could not be read (styles skipped, formulas
    left uncomputed because LibreOffice failed: their text is compared instead)."""
    path = Path(path)
    wb, notes = _read_styles_skipped(path, convert_dir)
    if recalculate:
        try:
            fill_uncached_values(wb)
        except WorkbookError as exc:
            notes.append(f"{path.name}: formulas without a cached value not recalculated ({exc})")
    return wb, notes


def _read_styles_skipped(path: Path, convert_dir: str | Path | None) -> tuple[Workbook, list[str]]:
    try:
        return read_workbook(path, convert_dir=convert_dir), []
    except Exception as exc:
        if not _retryable(exc) or not zipfile.is_zipfile(path):
            raise
        first = exc
    with tempfile.TemporaryDirectory(prefix="lf-judge-read-") as tmp:
        for level, note in (("gradient", NOTE_GRADIENT), ("styles", NOTE_STYLES)):
            copy = Path(tmp) / f"{level}{path.suffix or '.xlsx'}"
            try:
                if not _rewrite(path, copy, level):
                    continue
                wb = read_workbook(copy, convert_dir=convert_dir)
            except Exception:  # noqa: S112 - try the next, harsher level
                continue
            return replace(wb, path=path), [f"{path.name}: {note}"]
    raise first
