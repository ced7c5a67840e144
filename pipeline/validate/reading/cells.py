"""Checking a question reading against the cells its oracle reads.

Part of :mod:`pipeline.validate.reading`; see its docstring for the whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from pipeline.draft.twins import table_code
from pipeline.validate.reading.questions import (
    CHANGE_OPERATIONS,
    PERCENT_OPERATIONS,
    SPAN_OPERATIONS,
    PeriodReading,
    QuestionReading,
    read_period,
)

# ---------------------------------------------------------------------------------------
# Checking a reading against the cells the oracle reads
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceCell:
    """One cell an oracle reads, as validation knows it.

    The labels and ``period`` text come from the draft's ``sources``; the rest from the
    table stage (``tables`` and ``table_cells``) and is ``None`` where unknown: then
    the period is read from ``period`` and a plain label may carry up to two
    parenthesised suffixes (the parent heading and the column dimension a question adds).
    """

    row_label: str
    col_label: str
    period: str = ""
    doc_id: str = ""
    page_no: int = -1
    table_no: int = -1
    row_idx: int = -1
    col_idx: int = -1
    period_key: tuple[str, date | None, date | None] | None = None
    period_axis: str | None = None  # where the period is printed: col | row | title | grid
    row_parent: str | None = None
    dimension: str | None = None
    statement: str | None = None
    table_number: str = ""  # "Table CM-IV-4" as the table stage read it; "" if none
    unit: str | None = None
    # (row_idx, col_idx) of every cell of its table this cell is the total of, through
    # subtotals (the table's identities); None when unknown
    adds_up: frozenset[tuple[int, int]] | None = None

    @classmethod
    def from_source(cls, source: dict, **known: object) -> SourceCell:
        """A cell from one draft ``sources`` entry plus what else is ``known`` of it."""
        names = ("doc_id", "page_no", "table_no", "row_idx", "col_idx")
        return cls(
            row_label=source.get("row_label") or "",
            col_label=source.get("col_label") or "",
            period=source.get("period") or "",
            **{k: source[k] for k in names if source.get(k) is not None},
            **known,  # type: ignore[arg-type]
        )


def _table_names(cell: SourceCell) -> set[str]:
    """How a question may name the cell's table: by its statement, or (a volume printing
    its title over several tables, see pipeline.draft.twins) by number and statement."""
    names = {norm(cell.statement)}
    code = table_code(cell.table_number)
    if code:
        names.add(norm(f"Table {code}, {cell.statement}"))
    return names


def norm(text: str | None) -> str:
    """Labels compared as a question uses them: case, spacing and quote style ignored."""
    text = (text or "").replace("\u2019", "'").replace("\u2013", "-").casefold()
    return " ".join(text.split()).strip(" .:")


def _label_names(label: str, cell: SourceCell) -> tuple[set[str], bool]:
    """(names a question may give this label, whether unknown suffixes are allowed)."""
    levels = [p.strip() for p in label.split(" / ") if p.strip()]
    if not levels:
        return set(), False
    head, parents = levels[-1], levels[:-1]
    if parents:  # a header path: "Income tax (internal revenue)"
        return {norm(f"{head} ({', '.join(parents)})")}, False
    names = {norm(head)}
    if cell.row_parent:
        names.add(norm(f"{head} ({cell.row_parent})"))
    if cell.dimension:
        names |= {norm(f"{n} ({cell.dimension})") for n in list(names)}
    return names, cell.row_parent is None and cell.dimension is None


_BARE_TOTAL = re.compile(r"(?:grand )?total", re.IGNORECASE)
_SUFFIXES = re.compile(r"^(?P<base>.*?)((?: \([^()]*\)){1,2})$")


def item_matches(name: str, cell: SourceCell, statement: str = "") -> bool:
    """Does the item a question names denote this cell's row (or column) item?

    The item is the label that is not the period: the column header path where rows are
    periods ("Social security / Total" is named "Total (social security)"), else the row
    label, optionally with the drafter-style parenthesised parent heading and column
    dimension. A bare "Total" is named with its statement ("Total budget receipts").
    """
    wanted = norm(name)
    labels = {
        "row": [cell.col_label],
        "col": [cell.row_label],
        "title": [cell.row_label],
        "grid": [cell.row_parent or ""],  # a month grid's rows are years under a heading
    }
    statements = {norm(s) for s in (cell.statement, statement) if s}
    for label in labels.get(cell.period_axis or "", [cell.row_label, cell.col_label]):
        names, loose = _label_names(label, cell)
        bare = {n for n in names if _BARE_TOTAL.fullmatch(n)}
        names |= {f"{n} {s}" for n in bare for s in statements}
        if wanted in names:
            return True
        suffixed = _SUFFIXES.match(wanted)
        if loose and suffixed and norm(suffixed["base"]) in names:
            return True
    return False


def cell_period(cell: SourceCell) -> tuple[str, date | None, date | None] | None:
    """The structured period of a cell: the table stage's, else read from its text."""
    if cell.period_key is not None:
        return cell.period_key
    period = read_period(cell.period)
    return period.key if period is not None else None


def _role_names(operation: str, n: int) -> list[str]:
    names = {
        "value": ["the value"],
        "difference": ["the minuend", "the subtracted item"],
        "excess": ["the compared item", "the base"],
        "share": ["the part", "the total"],
        "change": ["the earlier value", "the later value"],
        "percent_change": ["the base (earlier) value", "the later value"],
    }
    return names.get(operation, [f"item {i + 1}" for i in range(n)])


def _describe(cell: SourceCell) -> str:
    return f"row {cell.row_label!r} col {cell.col_label!r} ({cell.period or 'no period'})"


def _roles(reading: QuestionReading, items: tuple[str, ...]) -> list[tuple[str, PeriodReading]]:
    """(item, period) of each cell the question asks for, in the operation's order."""
    op, periods = reading.operation, reading.periods
    if op in CHANGE_OPERATIONS:
        return [(items[0], periods[0]), (items[0], periods[1])]
    return [(item, periods[0]) for item in items]


def _order_problems(
    reading: QuestionReading, items: tuple[str, ...], cells: Sequence[SourceCell]
) -> list[str]:
    """Items and periods against the cells, in the operation's order (rules 2 and 3)."""
    op = reading.operation
    if op in SPAN_OPERATIONS:
        return _span_problems(reading, items[0], cells)
    roles = _roles(reading, items)
    if len(roles) != len(cells):
        return [f"{op} of {len(roles)} value(s) asked, the oracle reads {len(cells)} cell(s)"]
    found = []
    if op == "sum":  # order-free: each named item is one cell
        unused = list(cells)
        for item, _ in roles:
            hit = next((c for c in unused if item_matches(item, c, reading.statement)), None)
            if hit is None:
                found.append(f"{item!r} is not among the cells read")
            else:
                unused.remove(hit)
        found += [f"the oracle also reads {_describe(c)}, not named" for c in unused]
    else:
        for name, (item, _), cell in zip(_role_names(op, len(roles)), roles, cells, strict=True):
            if not item_matches(item, cell, reading.statement):
                found.append(f"{name} is {item!r} but the oracle reads {_describe(cell)} there")
    for (_, period), cell in zip(roles, cells, strict=True):
        key = cell_period(cell)
        if key is None:
            found.append(f"the period of {_describe(cell)} is unknown")
        elif key != period.key:
            found.append(f"the question says {period.text!r}, the oracle reads {_describe(cell)}")
    return found


def _order(key: tuple[str, date | None, date | None]) -> tuple[date, date]:
    return (key[2] or date.max, key[1] or date.min)


_REGULAR_MONTHS = {"fiscal_year": 12, "calendar_year": 12, "quarter": 3, "month": 1}


def _span_problems(reading: QuestionReading, item: str, cells: Sequence[SourceCell]) -> list[str]:
    """A statistic reads the named item in every period of the span and nowhere else."""
    first, last = reading.periods
    found = [
        f"{item!r} is not {_describe(c)}"
        for c in cells
        if not item_matches(item, c, reading.statement)
    ]
    keys = [cell_period(c) for c in cells]
    if first.kind != last.kind:
        found.append(f"the span mixes {first.kind} and {last.kind}")
    if any(k is None for k in keys):
        return found + ["a cell of the span has no known period"]
    known = [k for k in keys if k is not None]
    if len(set(known)) != len(known):
        found.append("the oracle reads one period twice")
    outside = [k for k in known if k[0] != first.kind or not first.order <= _order(k) <= last.order]
    found += [
        f"period {k[0]} ending {k[2]} is outside {first.text} through {last.text}" for k in outside
    ]
    if first.key not in known or last.key not in known:
        found.append(f"the span {first.text} through {last.text} is not read end to end")
    step = _REGULAR_MONTHS.get(first.kind)
    if step and first.end and last.end:
        months = (last.end.year - first.end.year) * 12 + last.end.month - first.end.month
        if len(known) != months // step + 1:
            found.append(
                f"{first.text} through {last.text} has {months // step + 1} periods, "
                f"the oracle reads {len(known)}"
            )
    if len(cells) < 2:
        found.append("a statistic over one value")
    return found


def check_reading(
    reading: QuestionReading,
    cells: Sequence[SourceCell],
    *,
    unit: str | None = None,
    places: int | None = None,
    oracle_source: str | None = None,
) -> list[str]:
    """Every way the question disagrees with the cells its oracle reads (empty: agrees).

    ``cells`` are the oracle's cells in the order it reads them (the draft's
    ``sources``); ``unit`` and ``places`` the task's. The rules:

    1. *inputs*: the operation reads as many cells as the question names (one for a
       value, each listed item for a sum, two for a difference, share, excess or change,
       the span for a statistic);
    2. *items and order*: each named item is the label of its cell, in the order the
       operation uses them (minuend first, the base of an excess second, the part then
       the named total of a share, the earlier period first for a change or percent
       change), a sum in any order; any reading of an ambiguous item list may agree;
    3. *periods*: each cell's period (the table stage's) is the period the question
       names for it; a statistic reads every period from the first to the last named,
       each once, and for years, quarters and months the span has no gap;
    4. *statement*: every cell lies in the table the question names;
    5. *unit*: the question's unit is the task's (and the table's, for amounts); a
       percent operation is answered in percent;
    6. *precision*: the decimal places asked are the task's;
    7. *sign*: a stated sign convention fits the operation (a decrease for a change,
       the smaller item for a difference or excess); a difference or excess states one;
    8. *share of a total*: where the table's identities are known, the total a share
       names adds up the part (directly or through subtotals), not merely shares an
       identity with it (two members of one grand total);
    9. *arithmetic*: given ``oracle_source``, the oracle's program, run on probe numbers
       in place of its cells, computes what the question asks of those cells, rounds to
       the asked places and emits the asked unit.
    """
    found: list[str] = []
    op = reading.operation
    best: list[str] | None = None
    for items in reading.item_readings:
        problems = _order_problems(reading, items, cells)
        if best is None or len(problems) < len(best):
            best = problems
        if not problems:
            break
    found += best or []
    named = norm(reading.statement)
    for cell in cells:
        if cell.statement is not None and named not in _table_names(cell):
            found.append(
                f"the question names table {reading.statement!r}, {_describe(cell)} "
                f"is in {cell.statement!r}"
            )
            break
    if op in PERCENT_OPERATIONS and norm(reading.unit) != "percent":
        found.append(f"a {op} is answered in percent, the question asks {reading.unit!r}")
    if unit is not None and norm(unit) != norm(reading.unit):
        found.append(f"the question asks {reading.unit!r}, the task's unit is {unit!r}")
    if op not in PERCENT_OPERATIONS:
        for cell in cells:
            if cell.unit is not None and norm(cell.unit) != norm(reading.unit):
                found.append(f"the question asks {reading.unit!r}, the table prints {cell.unit!r}")
                break
    if places is not None and places != reading.places:
        found.append(f"the question asks {reading.places} decimal places, the task {places}")
    found += _sign_problems(reading)
    found += _share_problems(reading, cells)
    if oracle_source:
        # the probe runner builds on this module's cells; imported here, not at the top
        from pipeline.validate.reading.probes import oracle_problems

        found += oracle_problems(reading, cells, oracle_source)
    return found


def _share_problems(reading: QuestionReading, cells: Sequence[SourceCell]) -> list[str]:
    if reading.operation != "share" or len(cells) != 2 or cells[1].adds_up is None:
        return []
    part, whole = cells
    same_table = (part.doc_id, part.page_no, part.table_no) == (
        whole.doc_id,
        whole.page_no,
        whole.table_no,
    )
    if same_table and (part.row_idx, part.col_idx) in whole.adds_up:
        return []
    part_name, total_name = reading.items
    return [f"the named total {total_name!r} does not add up {part_name!r} in its table"]


def _sign_problems(reading: QuestionReading) -> list[str]:
    op, sign = reading.operation, reading.sign
    if sign == "decrease" and op not in CHANGE_OPERATIONS:
        return [f"a {op} question says a negative answer means a decrease"]
    if sign == "smaller" and op not in ("difference", "excess"):
        return [f"a {op} question says a negative answer means the smaller item"]
    if op in ("difference", "excess") and not sign:
        return [f"the {op} question does not say what a negative answer means"]
    return []
