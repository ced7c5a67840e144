"""Near-misses: a reference workbook with one required cell changed, to show the
checker fails what is almost right.

The cell is one the task changed (inside the answer position when the task gives
one), else another required cell. The copy is the reference file byte for byte
except that one cell of one worksheet part: a number gets +1, a text a suffix, a
boolean flips, an error or empty cell becomes 1. A formula cell keeps its formula
and gets the changed cached value, so the near-miss also shows that a value differing
from the reference never passes because the formula reads the same.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from openpyxl.utils import column_index_from_string

from pipeline.judge.checker import RequiredCell, WorkbookChecker
from pipeline.judge.compare import same_content
from pipeline.judge.layout import sheet_parts

SUFFIX = " (near miss)"


@dataclass(frozen=True)
class NearMiss:
    """Which cell was changed, from what to what."""

    path: Path
    sheet: str
    address: str
    before: str | None
    after: str


def _cell_pattern(address: str) -> re.Pattern[bytes]:
    addr = re.escape(address.encode())
    return re.compile(
        rb"<(?:\w+:)?c\b[^>]*\br=\"" + addr + rb"\"[^>]*?(?:/>|>.*?</(?:\w+:)?c>)", re.S
    )


def _attr(tag: bytes, name: bytes) -> bytes | None:
    m = re.search(rb"\b" + name + rb'="([^"]*)"', tag)
    return m.group(1) if m else None


def _changed_cell(address: str, element: bytes | None, text: str | None) -> tuple[bytes, str]:
    """The new ``<c>`` element and the new value as text."""
    head = element.split(b">", 1)[0] if element else b""
    style = _attr(head, b"s")
    s_attr = b' s="' + style + b'"' if style else b""
    kind = _attr(head, b"t") or b"n"
    formula = re.search(rb"<(?:\w+:)?f\b[^>]*?(?:/>|>.*?</(?:\w+:)?f>)", element or b"", re.S)
    value = re.search(rb"<(?:\w+:)?v>(.*?)</(?:\w+:)?v>", element or b"", re.S)
    f_xml = formula.group(0) if formula else b""
    raw = value.group(1).decode() if value else None
    if kind == b"b" and raw in ("0", "1"):
        new = "FALSE" if raw == "1" else "TRUE"
        t, body = b"b", b"<v>" + (b"0" if raw == "1" else b"1") + b"</v>"
    elif kind in (b"s", b"str", b"inlineStr") and text is not None:
        new = text + SUFFIX
        if f_xml:
            t, body = b"str", b"<v>" + escape(new).encode() + b"</v>"
        else:
            t, body = (
                b"inlineStr",
                b'<is><t xml:space="preserve">' + escape(new).encode() + b"</t></is>",
            )
    else:
        try:
            number = float(raw) + 1 if raw is not None and kind == b"n" else 1.0
        except ValueError:
            number = 1.0
        new = str(int(number)) if number.is_integer() else repr(number)
        t, body = b"n", b"<v>" + new.encode() + b"</v>"
    t_attr = b' t="' + t + b'"' if t != b"n" else b""
    cell = b'<c r="' + address.encode() + b'"' + s_attr + t_attr + b">" + f_xml + body + b"</c>"
    return cell, new


def _column(address: str) -> int:
    return column_index_from_string(re.match(r"[A-Z]+", address).group(0))  # type: ignore[union-attr]


def _insert_cell(xml: bytes, address: str, cell: bytes) -> bytes:
    """Put a new cell into its row (creating the row) in column order."""
    row = int(re.search(r"\d+", address).group(0))  # type: ignore[union-attr]
    row_re = re.compile(
        rb"<(?:\w+:)?row\b[^>]*\br=\"" + str(row).encode() + rb"\"[^>]*?(?:/>|>.*?</(?:\w+:)?row>)",
        re.S,
    )
    m = row_re.search(xml)
    if m:
        element = m.group(0)
        if element.endswith(b"/>"):
            new = element[:-2] + b">" + cell + b"</row>"
        else:
            at = element.rfind(b"</")
            col = _column(address)
            for c in re.finditer(rb"<(?:\w+:)?c\b[^>]*\br=\"([A-Z]+)\d+\"", element):
                if column_index_from_string(c.group(1).decode()) > col:
                    at = c.start()
                    break
            new = element[:at] + cell + element[at:]
        return xml[: m.start()] + new + xml[m.end() :]
    new_row = b'<row r="' + str(row).encode() + b'">' + cell + b"</row>"
    for r in re.finditer(rb"<(?:\w+:)?row\b[^>]*\br=\"(\d+)\"", xml):
        if int(r.group(1)) > row:
            return xml[: r.start()] + new_row + xml[r.start() :]
    if re.search(rb"<(?:\w+:)?sheetData\s*/>", xml):
        return re.sub(
            rb"<((?:\w+:)?)sheetData\s*/>",
            rb"<\1sheetData>" + new_row + rb"</\1sheetData>",
            xml,
            count=1,
        )
    end = re.search(rb"</(?:\w+:)?sheetData>", xml)
    if end is None:
        raise ValueError("worksheet part has no sheetData")
    return xml[: end.start()] + new_row + xml[end.start() :]


def choose_cell(checker: WorkbookChecker) -> RequiredCell | None:
    """The required cell to change: one the task changed, in the answer position if
    there is one; never a formula the reference left uncomputed (its text would decide)."""
    candidates = [
        r
        for r in checker.required
        if not (r.expected is not None and r.expected.formula and r.expected.text is None)
    ]
    if checker.scope:
        inside = [r for r in candidates if checker.in_scope(r.sheet, r.row, r.col)]
        candidates = inside or candidates
    sheet_of = checker.input.sheets.get
    changed = [
        r
        for r in candidates
        if not same_content(r.expected, (s.get(r.row, r.col) if (s := sheet_of(r.sheet)) else None))
    ]
    filled = [r for r in changed if r.expected is not None and r.expected.text not in (None, "")]
    pool = filled or changed or candidates
    return pool[0] if pool else None


def write_near_miss(checker: WorkbookChecker, dest: str | Path) -> NearMiss | None:
    """Write the reference of ``checker`` with one required cell changed to ``dest``;
    None when the checker has nothing to change (an undecidable task)."""
    if checker.undecidable:
        return None
    target = choose_cell(checker)
    if target is None:
        return None
    source = Path(checker.reference.converted_path or checker.reference.path)
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    before = target.expected.text if target.expected is not None else None
    new_text = ""
    with zipfile.ZipFile(source) as zin:
        member = sheet_parts(zin).get(target.sheet)
        if member is None:
            return None
        with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
            for item in zin.infolist():
                data = zin.read(item.filename)
                if item.filename == member:
                    m = _cell_pattern(target.address).search(data)
                    cell, new_text = _changed_cell(
                        target.address, m.group(0) if m else None, before
                    )
                    if m:
                        data = data[: m.start()] + cell + data[m.end() :]
                    else:
                        data = _insert_cell(data, target.address, cell)
                zout.writestr(item, data)
    return NearMiss(dest, target.sheet, target.address, before, new_text)
