"""A small in-memory workbook for the synthetic corpus, written as deterministic .xlsx bytes.

The generator needs to *edit* workbooks the way people do (insert a row inside a
block so the totals' ranges grow, insert a column so every reference to its right
moves) and to know exactly what changed. openpyxl's own ``insert_rows`` does not
adjust formulas, so the model keeps cells in a plain dict and shifts references with
openpyxl's formula :class:`~openpyxl.formula.Tokenizer`.

Files written by openpyxl carry no cached formula values, which a real Excel file
always has (and ingestion would otherwise recompute with one LibreOffice start per
file). The formulas this generator writes are a closed set (``SUM``/``MAX``/``MIN``
over ranges and arithmetic on references), so :func:`evaluate` computes them and
:func:`xlsx_bytes` writes the results as cached ``<v>`` values. They must be the values
a spreadsheet program computes from the same formulas: full double precision, the
formula's own evaluation order, no rounding the formula does not ask for (an earlier
version rounded every intermediate result to 6 decimals, so ``=C5*Pool!$B$9`` cached
the product of a rounded share, and nobody recalculating in Excel or LibreOffice could
reproduce a task's reference). ``tests/synth/test_cached_values.py`` recalculates a
sample with LibreOffice and compares. Zip entry times and
the core properties' created/modified stamps are fixed, so the same book gives the
same bytes.
"""

from __future__ import annotations

import copy
import datetime as dt
import decimal
import io
import math
import re
import zipfile
from dataclasses import dataclass, field

import openpyxl
from openpyxl.formula import Tokenizer
from openpyxl.formula.translate import Translator
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import column_index_from_string, get_column_letter

Key = tuple[int, int]  # (row, col), 1-based
_REF = re.compile(r"^(\$?)([A-Z]{1,3})(\$?)(\d+)$")
_CACHED = re.compile(rb'<c r="([A-Z]+\d+)"( s="\d+")?><f>([^<]*)</f><v\s*/>')
CORE_DATE = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:)")


class FormulaError(ValueError):
    """A formula outside the closed set the generator writes."""


@dataclass
class Cell:
    value: object = None  # number or text; ignored when ``formula`` is set
    formula: str | None = None  # with leading "="
    fmt: str | None = None  # number format
    bold: bool = False
    fill: str | None = None  # RGB hex


@dataclass
class Book:
    """Ordered sheets of cells plus the document properties written to the file."""

    sheets: dict[str, dict[Key, Cell]] = field(default_factory=dict)
    created: dt.datetime = dt.datetime(2001, 1, 2, 9, 0)
    modified: dt.datetime = dt.datetime(2001, 1, 2, 9, 0)
    creator: str = "Calder Energy"
    widths: dict[str, dict[str, float]] = field(default_factory=dict)

    def copy(self) -> Book:
        return copy.deepcopy(self)

    def sheet(self, name: str) -> dict[Key, Cell]:
        return self.sheets.setdefault(name, {})

    def set(self, sheet: str, address: str, value: object = None, **kw: object) -> Cell:
        """Put a value (or a formula, when text starting with "=") at ``address``."""
        row, col = parse_address(address)
        cell = Cell(**kw)  # type: ignore[arg-type]
        if isinstance(value, str) and value.startswith("="):
            cell.formula = value
        else:
            cell.value = value
        self.sheet(sheet)[(row, col)] = cell
        return cell

    def get(self, sheet: str, address: str) -> Cell | None:
        return self.sheets.get(sheet, {}).get(parse_address(address))


def parse_address(address: str) -> Key:
    m = _REF.match(address.replace("$", "") if "$" in address else address)
    if m is None:
        raise FormulaError(f"not a cell address: {address!r}")
    return int(m.group(4)), column_index_from_string(m.group(2))


def address(row: int, col: int) -> str:
    return f"{get_column_letter(col)}{row}"


def _split_sheet(ref: str) -> tuple[str | None, str]:
    if "!" not in ref:
        return None, ref
    sheet, rest = ref.rsplit("!", 1)
    return sheet.strip("'").replace("''", "'"), rest


def _quote_sheet(name: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    return "'" + name.replace("'", "''") + "'"


def _shift_part(part: str, axis: str, at: int, n: int) -> str:
    m = _REF.match(part)
    if m is None:
        raise FormulaError(f"unsupported reference {part!r}")
    dc, col, dr, row = m.group(1), m.group(2), m.group(3), int(m.group(4))
    c = column_index_from_string(col)
    if axis == "row" and row >= at:
        row += n
    if axis == "col" and c >= at:
        c += n
    return f"{dc}{get_column_letter(c)}{dr}{row}"


def shift_formula(formula: str, home: str, sheet: str, axis: str, at: int, n: int) -> str:
    """``formula`` (on sheet ``home``) after ``n`` rows/cols are inserted at ``at`` in ``sheet``.

    Excel's rule: every reference at or beyond the insertion point moves; a range whose
    start is before and end at or beyond it grows.
    """
    tok = Tokenizer(formula)
    for item in tok.items:
        if item.type != "OPERAND" or item.subtype != "RANGE":
            continue
        ref_sheet, ref = _split_sheet(item.value)
        if (ref_sheet or home) != sheet:
            continue
        parts = ref.split(":")
        moved = [_shift_part(p, axis, at, n) for p in parts]
        prefix = item.value[: len(item.value) - len(ref)]
        item.value = prefix + ":".join(moved)
    return tok.render()


def insert(book: Book, sheet: str, axis: str, at: int, n: int = 1) -> None:
    """Insert ``n`` empty rows (``axis="row"``) or columns at index ``at`` of ``sheet``."""
    moved: dict[Key, Cell] = {}
    for (r, c), cell in book.sheets[sheet].items():
        if axis == "row" and r >= at:
            r += n
        elif axis == "col" and c >= at:
            c += n
        moved[(r, c)] = cell
    book.sheets[sheet] = moved
    for home, cells in book.sheets.items():
        for cell in cells.values():
            if cell.formula:
                cell.formula = shift_formula(cell.formula, home, sheet, axis, at, n)


def moved_formula(formula: str, origin: str, dest: str) -> str:
    """The formula copied from ``origin`` to ``dest`` (relative references follow)."""
    return Translator(formula, origin).translate_formula(dest)


def _values_of(book: Book, ref_sheet: str, ref: str, memo: dict) -> list[object]:
    parts = [parse_address(p.replace("$", "")) for p in ref.split(":")]
    (r1, c1), (r2, c2) = parts[0], parts[-1]
    return [
        evaluate_cell(book, ref_sheet, (r, c), memo)
        for r in range(r1, r2 + 1)
        for c in range(c1, c2 + 1)
    ]


def _num(values: list[object]) -> list[float]:
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]


_FUNCS = {
    "SUM(": "_sum(",
    "MAX(": "_max(",
    "MIN(": "_min(",
    "ROUND(": "_round(",
}


def _excel_round(x: object, digits: object = 0) -> float:
    """Excel's ROUND: halves away from zero on the shortest decimal form of the value
    (Python's ``round`` rounds halves to even on the binary value)."""
    d = int(float(digits))  # type: ignore[arg-type]
    exact = decimal.Decimal(repr(float(x)))  # type: ignore[arg-type]
    return float(exact.quantize(decimal.Decimal(1).scaleb(-d), decimal.ROUND_HALF_UP))


def evaluate_cell(book: Book, sheet: str, key: Key, memo: dict) -> object:
    """The value of one cell, computing its formula (memoised in ``memo``)."""
    if (sheet, key) in memo:
        return memo[(sheet, key)]
    cell = book.sheets.get(sheet, {}).get(key)
    if cell is None:
        return None
    if cell.formula is None:
        return cell.value
    memo[(sheet, key)] = None  # cycle guard
    env: dict[str, object] = {
        "_sum": lambda *a: math.fsum(_num(_flat(a))),
        "_max": lambda *a: max(_num(_flat(a)) or [0.0]),
        "_min": lambda *a: min(_num(_flat(a)) or [0.0]),
        "_round": _excel_round,
    }
    expr: list[str] = []
    for i, item in enumerate(Tokenizer(cell.formula).items):
        if item.type == "OPERAND" and item.subtype == "RANGE":
            ref_sheet, ref = _split_sheet(item.value)
            vals = _values_of(book, ref_sheet or sheet, ref, memo)
            name = f"_r{i}"
            if ":" in ref:
                env[name] = vals
            else:
                v = vals[0]
                env[name] = v if isinstance(v, (int, float)) else 0.0
            expr.append(name)
        elif item.type == "OPERAND" and item.subtype == "NUMBER":
            expr.append(item.value)
        elif item.type == "FUNC":
            if item.subtype == "OPEN":
                if item.value.upper() not in _FUNCS:
                    raise FormulaError(f"{cell.formula}: unsupported function {item.value}")
                expr.append(_FUNCS[item.value.upper()])
            else:
                expr.append(")")
        elif item.type in ("OPERATOR-INFIX", "OPERATOR-PREFIX"):
            expr.append("**" if item.value == "^" else item.value)
        elif item.type == "PAREN":
            expr.append(item.value)
        elif item.type == "SEP":
            expr.append(",")
        elif item.type == "WHITE-SPACE":
            continue
        else:
            raise FormulaError(f"{cell.formula}: unsupported token {item.value!r}")
    try:
        value = eval("".join(expr), {"__builtins__": {}}, env)  # noqa: S307 - closed grammar
    except ZeroDivisionError:
        value = 0.0
    value = float(value)  # full precision, as a spreadsheet stores it
    memo[(sheet, key)] = value
    return value


def _flat(args: tuple) -> list[object]:
    out: list[object] = []
    for a in args:
        out.extend(a if isinstance(a, list) else [a])
    return out


def evaluate(book: Book) -> dict[tuple[str, Key], object]:
    """Every formula cell's value, keyed by (sheet, (row, col))."""
    memo: dict = {}
    for name, cells in book.sheets.items():
        for key, cell in cells.items():
            if cell.formula:
                evaluate_cell(book, name, key, memo)
    return {k: v for k, v in memo.items() if book.sheets[k[0]][k[1]].formula}


def _fixed_zip(raw: bytes, when: dt.datetime, patch) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    stamp = (max(when.year, 1980), when.month, when.day, when.hour, when.minute, 0)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as dst:
        for info in src.infolist():
            data = patch(info.filename, src.read(info.filename))
            zi = zipfile.ZipInfo(info.filename, date_time=stamp)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o600 << 16
            dst.writestr(zi, data)
    return out.getvalue()


def _patcher(book: Book, values: dict[tuple[str, Key], object]):
    names = list(book.sheets)
    created = book.created.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    modified = book.modified.strftime("%Y-%m-%dT%H:%M:%SZ").encode()

    def patch(name: str, data: bytes) -> bytes:
        if name == "docProps/core.xml":

            def stamp(m: re.Match) -> bytes:
                return m.group(1) + (created if m.group(2) == b"created" else modified) + m.group(3)

            return CORE_DATE.sub(stamp, data)
        m = re.fullmatch(r"xl/worksheets/sheet(\d+)\.xml", name)
        if m is None:
            return data
        sheet = names[int(m.group(1)) - 1]

        def cached(mc: re.Match) -> bytes:
            key = parse_address(mc.group(1).decode())
            v = values.get((sheet, key))
            text = "" if v is None else repr(float(v)).removesuffix(".0")
            return b'<c r="%s"%s><f>%s</f><v>%s</v>' % (
                mc.group(1),
                mc.group(2) or b"",
                mc.group(3),
                text.encode(),
            )

        return _CACHED.sub(cached, data)

    return patch


def xlsx_bytes(book: Book) -> bytes:
    """The book as .xlsx bytes with cached formula values; identical for identical books."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, cells in book.sheets.items():
        ws = wb.create_sheet(name)
        for (r, c), cell in sorted(cells.items()):
            target = ws.cell(row=r, column=c)
            target.value = cell.formula if cell.formula else cell.value
            if cell.fmt:
                target.number_format = cell.fmt
            if cell.bold:
                target.font = Font(bold=True)
            if cell.fill:
                target.fill = PatternFill("solid", fgColor=cell.fill)
        for col, width in book.widths.get(name, {}).items():
            ws.column_dimensions[col].width = width
    wb.properties.creator = book.creator
    wb.properties.lastModifiedBy = book.creator
    raw = io.BytesIO()
    wb.save(raw)
    return _fixed_zip(raw.getvalue(), book.modified, _patcher(book, evaluate(book)))
