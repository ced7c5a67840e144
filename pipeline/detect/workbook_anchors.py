"""Formula anchors: workbook totals whose cached value their own source cells confirm.

A scanned table's total anchors the numbers it adds up (:mod:`pipeline.detect.anchors`).
A workbook says more: a total is a formula, ``=SUM(B2:B9)``, naming its members. A
formula cell that is exactly one ``SUM`` over a one-column range (a total row) or a
one-row range (a total column) of its own sheet, whose value Excel cached agrees with
the sum of the members' values recomputed here with ``Decimal``, is *confirmed*: the
members and the total vouch for each other, as a printed table's total does. One whose
cached value disagrees is *stale* (a workbook saved without recalculation, or a total
typed over): its members still define the sum, and the stale value is the classic wrong
answer a reader copies from the sheet.

Formulas are split with openpyxl's formula tokenizer (no regex over formula text);
SUM's own rules hold: text, booleans and empty cells in the range are ignored. A range
holding an error, a date, or the total itself (circular), or fewer than two numbers,
anchors nothing. Labels (the row label left of a member, the column header above the
range) are kept so questions can name cells as a person would.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import polars as pl
from openpyxl.formula.tokenizer import Token, Tokenizer
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import range_boundaries

NUMERIC_TYPES = ("I", "F")
RELATIVE_TOLERANCE = Decimal("1e-9")  # Excel adds binary doubles; Decimal adds exactly
MIN_MEMBERS = 2

WORKBOOK_ANCHORS_SCHEMA = {
    "anchor_id": pl.String,  # sha256[:16] of workbook_id, sheet, address
    "workbook_id": pl.String,
    "sheet": pl.String,
    "address": pl.String,  # the total cell
    "row": pl.Int32,
    "col": pl.Int32,
    "formula": pl.String,
    "axis": pl.String,  # column (a total row: SUM down a column) | row (a total column)
    "range": pl.String,  # "B2:B9" as the formula names it, without $
    "first_row": pl.Int32,
    "first_col": pl.Int32,
    "last_row": pl.Int32,
    "last_col": pl.Int32,
    "members": pl.List(pl.String),  # addresses of the numeric cells the SUM adds
    "member_values": pl.List(pl.String),  # their values as the cells asset holds them
    "member_labels": pl.List(pl.String),  # row label (column sums) or header (row sums)
    "label": pl.String,  # the total's own label ("Total"), as the row/header names it
    "header": pl.String,  # column header of a column sum; row label of a row sum
    "cached": pl.String,  # the total's cached value
    "recomputed": pl.String,  # Decimal sum of member_values
    "status": pl.String,  # confirmed | stale
}


@dataclass(frozen=True)
class SumRange:
    """The one range of a ``=SUM(range)`` formula (1-based bounds)."""

    first_row: int
    first_col: int
    last_row: int
    last_col: int

    @property
    def text(self) -> str:
        first = f"{get_column_letter(self.first_col)}{self.first_row}"
        last = f"{get_column_letter(self.last_col)}{self.last_row}"
        return f"{first}:{last}"

    def cells(self) -> list[tuple[int, int]]:
        return [
            (r, c)
            for r in range(self.first_row, self.last_row + 1)
            for c in range(self.first_col, self.last_col + 1)
        ]


def sum_range(formula: str | None) -> SumRange | None:
    """The range of a formula that is exactly ``=SUM(<range on this sheet>)`` over one
    row or one column; else None."""
    if not formula or "sum" not in formula.lower():
        return None
    try:
        tokens = [t for t in Tokenizer(formula).items if t.type != Token.WSPACE]
    except Exception:  # noqa: BLE001 - the tokenizer raises bare errors on odd formulas
        return None
    if len(tokens) != 3:
        return None
    opening, operand, closing = tokens
    if (opening.type, opening.subtype, opening.value.upper()) != ("FUNC", "OPEN", "SUM("):
        return None
    if (operand.type, operand.subtype) != ("OPERAND", "RANGE") or "!" in operand.value:
        return None
    if (closing.type, closing.subtype) != ("FUNC", "CLOSE"):
        return None
    try:
        c1, r1, c2, r2 = range_boundaries(operand.value.replace("$", ""))
    except (ValueError, TypeError):
        return None  # a name, a whole column "B:B", ...
    if None in (c1, r1, c2, r2) or (c1 != c2 and r1 != r2):
        return None
    return SumRange(r1, c1, r2, c2)


def decimal_of(text: str | None) -> Decimal | None:
    try:
        value = Decimal(text) if text is not None else None
    except InvalidOperation:
        return None
    return value if value is not None and value.is_finite() else None


def agrees(cached: Decimal, recomputed: Decimal) -> bool:
    """Equal up to binary floating-point noise (relative 1e-9)."""
    return abs(cached - recomputed) <= RELATIVE_TOLERANCE * max(abs(recomputed), Decimal(1))


def anchor_id(workbook_id: str, sheet: str, address: str) -> str:
    return hashlib.sha256(f"{workbook_id}|{sheet}|{address}".encode()).hexdigest()[:16]


class _Grid:
    """One sheet's cells by (row, col): value text, type; and its text labels."""

    def __init__(self, rows: list[dict]):
        self.cells = {(r["row"], r["col"]): r for r in rows}

    def text(self, row: int, col: int) -> str | None:
        cell = self.cells.get((row, col))
        if cell is None or cell["type"] != "T" or not (cell["value"] or "").strip():
            return None
        return cell["value"].strip()

    def row_label(self, row: int, col: int) -> str:
        """The nearest text left of (row, col)."""
        for c in range(col - 1, 0, -1):
            found = self.text(row, c)
            if found is not None:
                return found
        return ""

    def header(self, row: int, col: int) -> str:
        """The nearest text above (row, col)."""
        for r in range(row - 1, 0, -1):
            found = self.text(r, col)
            if found is not None:
                return found
        return ""


def _anchor(total: dict, rng: SumRange, grid: _Grid) -> dict | None:
    here = (total["row"], total["col"])
    spots = rng.cells()
    if here in spots:
        return None  # circular
    members, values = [], []
    for r, c in spots:
        cell = grid.cells.get((r, c))
        if cell is None or cell["type"] in ("T", "B") or cell["value"] is None:
            continue  # SUM ignores empty cells, text and booleans in a range
        if cell["type"] not in NUMERIC_TYPES:
            return None  # an error or a date in the range
        value = decimal_of(cell["value"])
        if value is None:
            return None
        members.append((r, c))
        values.append(cell["value"])
    if len(members) < MIN_MEMBERS:
        return None
    cached = decimal_of(total["value"]) if total["type"] in NUMERIC_TYPES else None
    if cached is None:
        return None  # no cached number to confirm
    recomputed = sum((Decimal(v) for v in values), Decimal(0))
    column_sum = rng.first_col == rng.last_col and rng.first_row != rng.last_row
    if column_sum:
        member_labels = [grid.row_label(r, c) for r, c in members]
        label = grid.row_label(*here)
        header = grid.header(rng.first_row, rng.first_col)
    else:
        member_labels = [grid.header(r, c) for r, c in members]
        label = grid.header(*here)
        header = grid.row_label(rng.first_row, rng.first_col)
    return {
        "anchor_id": anchor_id(total["workbook_id"], total["sheet"], total["address"]),
        "workbook_id": total["workbook_id"],
        "sheet": total["sheet"],
        "address": total["address"],
        "row": total["row"],
        "col": total["col"],
        "formula": total["formula"],
        "axis": "column" if column_sum else "row",
        "range": rng.text,
        "first_row": rng.first_row,
        "first_col": rng.first_col,
        "last_row": rng.last_row,
        "last_col": rng.last_col,
        "members": [f"{get_column_letter(c)}{r}" for r, c in members],
        "member_values": values,
        "member_labels": member_labels,
        "label": label,
        "header": header,
        "cached": total["value"],
        "recomputed": str(recomputed),
        "status": "confirmed" if agrees(cached, recomputed) else "stale",
    }


def find_workbook_anchors(cells: pl.DataFrame) -> pl.DataFrame:
    """Every SUM total of the ``cells`` frame (``CELLS_SCHEMA``), confirmed or stale
    (``WORKBOOK_ANCHORS_SCHEMA``), ordered by workbook, sheet, row, column."""
    totals = cells.filter(
        pl.col("formula").str.contains(r"(?i)^=\s*SUM\s*\(")
        & pl.col("type").is_in(list(NUMERIC_TYPES))
    )
    parsed = []
    for row in totals.iter_rows(named=True):
        rng = sum_range(row["formula"])
        if rng is not None:
            parsed.append((row, rng))
    if not parsed:
        return pl.DataFrame(schema=WORKBOOK_ANCHORS_SCHEMA)
    wanted = pl.DataFrame(
        {
            "workbook_id": [r["workbook_id"] for r, _ in parsed],
            "sheet": [r["sheet"] for r, _ in parsed],
        }
    ).unique()
    sheets = cells.join(wanted, on=["workbook_id", "sheet"], how="semi").select(
        "workbook_id", "sheet", "row", "col", "value", "type"
    )
    grids = {
        key: _Grid(part.to_dicts())
        for key, part in sheets.partition_by(["workbook_id", "sheet"], as_dict=True).items()
    }
    out = []
    for total, rng in parsed:
        found = _anchor(total, rng, grids[(total["workbook_id"], total["sheet"])])
        if found is not None:
            out.append(found)
    frame = pl.DataFrame(out, schema=WORKBOOK_ANCHORS_SCHEMA)
    return frame.sort("workbook_id", "sheet", "row", "col")
