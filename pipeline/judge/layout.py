"""Sheet layout the cells do not show: hidden rows and columns, autofilters.

Read straight from the workbook's XML (a regular-expression scan of each sheet's
part, linear in its size), because the ingest reader keeps cells only. A task that
hides rows, hides columns or adds a filter changes nothing a cell diff can see; the
checker compares these where the reference changes them.

An ``.xls`` is read from its converted ``.xlsx`` when the reader kept it; otherwise,
and for any file whose parts cannot be read, the layout is unknown (``None``) and
the checker says so instead of guessing.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from openpyxl.utils import get_column_letter, range_boundaries

from pipeline.detect.diffs import WorkbookDiff
from pipeline.ingest.workbooks import Workbook

_ROW_TAG = re.compile(rb"<(?:\w+:)?row\b([^>]*)>")
_COL_TAG = re.compile(rb"<(?:\w+:)?col\b([^>]*)>")
_FILTER_TAG = re.compile(rb"<(?:\w+:)?autoFilter\b([^>]*)>")
_ATTR = re.compile(rb'([\w:]+)\s*=\s*"([^"]*)"')
_NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


@dataclass(frozen=True)
class SheetLayout:
    """Hidden rows and columns (1-based) and the autofilter range of one sheet."""

    hidden_rows: frozenset[int] = frozenset()
    hidden_cols: frozenset[int] = frozenset()
    autofilter: str | None = None

    def filter_box(self) -> tuple[int, int, int] | None:
        """(header row, first column, last column) of the autofilter, or None."""
        if not self.autofilter:
            return None
        try:
            c1, r1, c2, _ = range_boundaries(self.autofilter.replace("$", ""))
        except (ValueError, TypeError):
            return None
        if c1 is None or r1 is None or c2 is None:
            return None
        return r1, c1, c2


def _attrs(raw: bytes) -> dict[str, str]:
    return {k.decode().split(":")[-1]: v.decode() for k, v in _ATTR.findall(raw)}


def _true(value: str | None) -> bool:
    return value in ("1", "true")


def parse_sheet_layout(xml: bytes) -> SheetLayout:
    """The layout of one worksheet part."""
    rows: set[int] = set()
    last = 0
    for m in _ROW_TAG.finditer(xml):
        a = _attrs(m.group(1))
        last = int(a["r"]) if a.get("r", "").isdigit() else last + 1
        if _true(a.get("hidden")):
            rows.add(last)
    cols: set[int] = set()
    for m in _COL_TAG.finditer(xml):
        a = _attrs(m.group(1))
        if _true(a.get("hidden")) and a.get("min", "").isdigit() and a.get("max", "").isdigit():
            lo, hi = int(a["min"]), min(int(a["max"]), 16_384)
            cols.update(range(lo, hi + 1))
    flt = _FILTER_TAG.search(xml)
    ref = _attrs(flt.group(1)).get("ref") if flt else None
    return SheetLayout(frozenset(rows), frozenset(cols), ref or None)


def sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> the zip member of its worksheet part."""
    book = ET.fromstring(archive.read("xl/workbook.xml"))
    rels = ET.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target", "") for r in rels}
    parts: dict[str, str] = {}
    for el in book.iter():
        if el.tag.rsplit("}", 1)[-1] != "sheet":
            continue
        target = targets.get(el.get(f"{{{_NS_REL}}}id"), "")
        if not target:
            continue
        member = target.lstrip("/") if target.startswith("/") else posixpath.join("xl", target)
        parts[el.get("name", "")] = posixpath.normpath(member)
    return parts


def read_layouts(path: str | Path) -> dict[str, SheetLayout] | None:
    """Every worksheet's layout by sheet name; None when the file's parts are unreadable."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            return {
                sheet: parse_sheet_layout(archive.read(member))
                for sheet, member in sheet_parts(archive).items()
                if member in names
            }
    except (OSError, KeyError, zipfile.BadZipFile, ET.ParseError, ValueError):
        return None


_CACHE: dict[tuple[str, str], dict[str, SheetLayout] | None] = {}


def workbook_layouts(wb: Workbook) -> dict[str, SheetLayout] | None:
    """The layouts of a workbook read by the ingest reader (cached by file and content)."""
    source = wb.converted_path or wb.path
    key = (str(source), wb.workbook_id)
    if key not in _CACHE:
        if len(_CACHE) > 64:
            _CACHE.clear()
        ok = wb.source_format in ("xlsx", "xlsm") or wb.converted_path is not None
        _CACHE[key] = read_layouts(source) if ok and Path(source).is_file() else None
    return _CACHE[key]


@dataclass(frozen=True)
class LayoutRequirement:
    """A layout the reference changed: hidden rows/columns, autofilter, sheet state."""

    sheet: str
    kind: str  # hidden_rows | hidden_cols | autofilter | sheet_state
    expected: object
    limit: int = 0  # rows/columns beyond this are ignored (past the data)


def hidden_within(layout: SheetLayout | None, kind: str, limit: int) -> frozenset[int]:
    if layout is None:
        return frozenset()
    values = layout.hidden_rows if kind == "hidden_rows" else layout.hidden_cols
    return frozenset(v for v in values if v <= limit)


def _layout_value(layout: SheetLayout | None, req: LayoutRequirement, state: str | None) -> object:
    if req.kind == "sheet_state":
        return state
    if req.kind == "autofilter":
        return layout.filter_box() if layout else None
    return hidden_within(layout, req.kind, req.limit)


def show_layout(value: object) -> str:
    if isinstance(value, frozenset):
        return "{" + ", ".join(str(v) for v in sorted(value)) + "}" if value else "none"
    if isinstance(value, tuple):  # autofilter: header row, first and last column
        row, c1, c2 = value
        return f"{get_column_letter(c1)}{row}:{get_column_letter(c2)}"
    return str(value) if value is not None else "none"


def check_layout(
    requirements: list[LayoutRequirement], output: Workbook
) -> list[tuple[str, str, str, str, bool]]:
    """(sheet, kind, expected, got, ok) for every layout requirement on ``output``."""
    if not requirements:
        return []
    layouts = workbook_layouts(output)
    out = []
    for req in requirements:
        sheet = output.sheets.get(req.sheet)
        want = show_layout(req.expected)
        if sheet is None or (layouts is None and req.kind != "sheet_state"):
            why = "sheet missing" if sheet is None else "layout unreadable"
            out.append((req.sheet, req.kind, want, why, False))
            continue
        got = _layout_value((layouts or {}).get(req.sheet), req, sheet.state)
        out.append((req.sheet, req.kind, want, show_layout(got), got == req.expected))
    return out


def unexpected_layout(
    input_wb: Workbook, output: Workbook, decided: set[tuple[str, str]]
) -> list[tuple[str, str, str]]:
    """(sheet, kind, detail) for rows or columns the output hid or showed where the
    reference did not ask for it (``decided``: the sheet/kind pairs it did)."""
    before, after = workbook_layouts(input_wb), workbook_layouts(output)
    if before is None or after is None:
        return []
    out = []
    for name, sheet in output.sheets.items():
        src = input_wb.sheets.get(name)
        if src is None:
            continue
        limit_r = max(src.max_row, sheet.max_row)
        limit_c = max(src.max_col, sheet.max_col)
        for kind, limit in (("hidden_rows", limit_r), ("hidden_cols", limit_c)):
            if (name, kind) in decided:
                continue
            a = hidden_within(before.get(name), kind, limit)
            b = hidden_within(after.get(name), kind, limit)
            if a != b:
                out.append((name, kind, f"{show_layout(a)} -> {show_layout(b)}"))
    return out


def layout_requirements(
    input_wb: Workbook, reference_wb: Workbook, diff_ref: WorkbookDiff
) -> list[LayoutRequirement]:
    before, after = workbook_layouts(input_wb), workbook_layouts(reference_wb)
    reqs: list[LayoutRequirement] = []
    for sd in diff_ref.sheets:
        if sd.status in ("added", "removed"):
            continue
        ref_sheet = reference_wb.sheets[sd.sheet]
        in_sheet = input_wb.sheets[sd.before_name or sd.sheet]
        if ref_sheet.state != in_sheet.state:
            reqs.append(LayoutRequirement(sd.sheet, "sheet_state", ref_sheet.state))
        if before is None or after is None:
            continue
        lay_in, lay_ref = before.get(in_sheet.name), after.get(sd.sheet)
        limit_r = max(ref_sheet.max_row, in_sheet.max_row)
        limit_c = max(ref_sheet.max_col, in_sheet.max_col)
        for kind, limit in (("hidden_rows", limit_r), ("hidden_cols", limit_c)):
            want = hidden_within(lay_ref, kind, limit)
            if want != hidden_within(lay_in, kind, limit):
                reqs.append(LayoutRequirement(sd.sheet, kind, want, limit))
        box_ref = lay_ref.filter_box() if lay_ref else None
        if box_ref != (lay_in.filter_box() if lay_in else None):
            reqs.append(LayoutRequirement(sd.sheet, "autofilter", box_ref))
    return reqs
