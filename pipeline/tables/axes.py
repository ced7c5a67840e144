"""Which axis of a table carries its periods, and each cell's period and dimension.

A statement table prints periods down its columns ("1965", "1966", "1967-January"), down
its rows (year rows, month rows under a year row), or once in its title ("as of
October 31, 1939") with items in both axes. Where one period has several value columns
("Loans" and "Outstanding" under "1939"), the other words of the column head are the
column's *dimension*, and a question must name it. :func:`cell_periods` decides the axis
for a whole table and returns, per cell position, the period and dimension a question
about that cell states.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from pipeline.tables.periods import NOT_A_PERIOD, Period, carry_years, parse_period

# "End of calendar year or month", "Fiscal year or month", "Report date": what the rows
# are, printed over the first value column (its levels may come back in either order)
_STUB_HEAD = re.compile(
    r"\b(end of|fiscal|calendar)\b.*\b(year|month)\b|\byear or month\b|\breport\b.*\bdate\b",
    re.IGNORECASE,
)
_PERIOD_SHARE = 0.5  # an axis is a period axis when at least half its labels are periods


@dataclass(frozen=True)
class CellPeriod:
    period: Period | None
    dimension: str | None  # the column (or row) words that are not the period, if needed
    axis: str  # "col", "row", "title" or "" (no period)


def _dimension(label: str) -> str:
    """The levels of a header path that name no period."""
    levels = [p.strip() for p in (label or "").split(" / ") if p.strip()]
    return " / ".join(p for p in levels if parse_period(p) is None)


def _share(periods: list[Period | None]) -> float:
    if not periods:
        return 0.0
    return sum(p is not None and p is not NOT_A_PERIOD for p in periods) / len(periods)


def axis_periods(
    col_labels: list[str], row_labels: list[str], title: str, stub_head: str, unit_line: str = ""
) -> tuple[str, list[Period | None], Period | None]:
    """The period axis ("col", "row", "title" or ""), its periods, and the title's period.

    The title's own date (e.g. "..., June 2016 and Other Periods") dates headers that
    print none ("This fiscal year to date").
    """
    # a stub head printed over the first value column is read as that column's head
    stub_heads = [
        c
        for c in col_labels
        if _STUB_HEAD.search(c or "") and not re.search(r"\d", c) and len(c.split()) <= 8
    ]
    context = " ".join([title, stub_head, *stub_heads, unit_line])
    if re.fullmatch(r"\W*(report\s+)?dates?\W*", stub_head or "", re.IGNORECASE):
        context += " as of"  # rows under a "Date" stub are positions on those dates
    title_period = parse_period(title, f"{stub_head} {unit_line}")
    if title_period is NOT_A_PERIOD:
        title_period = None
    cols = [parse_period(c, context, title_period) for c in col_labels]
    rows = [parse_period(r, context, title_period) for r in carry_years(row_labels)]
    if _share(cols) >= _PERIOD_SHARE and _share(cols) >= _share(rows):
        return "col", cols, title_period
    if _share(rows) >= _PERIOD_SHARE:
        return "row", rows, title_period
    if title_period is not None and not _dated(col_labels + row_labels):
        return "title", [], title_period
    return "", [], None


_MONTH_WORD = re.compile(
    r"\b(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?(\s+\d{1,2}\b|$)", re.I
)


def _dated(labels: list[str]) -> bool:
    """Labels that name months or days ("Sept. 6", "Week ended Oct. 13") date the cells
    more finely than the title does: the title's period is not theirs."""
    return any(_MONTH_WORD.search(label or "") for label in labels)


def cell_periods(
    col_labels: list[str], row_labels: list[str], title: str, stub_head: str, unit_line: str = ""
) -> dict[tuple[int, int], CellPeriod]:
    """Per (row_idx, col_idx): the cell's period and dimension."""
    axis, periods, title_period = axis_periods(col_labels, row_labels, title, stub_head, unit_line)
    out: dict[tuple[int, int], CellPeriod] = {}
    n_rows, n_cols = len(row_labels), len(col_labels)
    if axis == "col":
        repeats = Counter(p.key for p in periods if p is not None)
        for c, period in enumerate(periods):
            dim = (
                _dimension(col_labels[c])
                if period is not None and repeats[period.key] > 1
                else None
            )
            for r in range(n_rows):
                out[(r, c)] = CellPeriod(period, dim or None, "col")
    elif axis == "row":
        for r, period in enumerate(periods):
            for c in range(n_cols):
                out[(r, c)] = CellPeriod(period, None, "row")  # the columns are the items
    elif axis == "title":
        for r in range(n_rows):
            for c in range(n_cols):
                dim = col_labels[c] if n_cols > 1 else None
                out[(r, c)] = CellPeriod(title_period, dim or None, "title")
    return out
