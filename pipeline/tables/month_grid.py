"""Month grids: month heads ("Jan." ... "Dec.", "Total") over rows of years.

1940-05 p20, "Monthly Receipts, Expenditures and Excess of Expenditures", prints one row
per year under each stub heading ("Receipts", "Expenditures") and one column per month,
then a "Total". Neither axis dates a cell alone: a cell's period is its row's year and its
column's month together (January 1935), and the Total column holds the whole year's
figure. The order of the heads says which year: heads that run January ... December count
calendar years; heads that run July ... June count fiscal years, whose July-December
columns fall in the calendar year before the row's (fiscal year 1939 opens in July 1938).

:func:`grid_periods` recognises such a table and dates each cell; anything else (a head
that is neither a month nor "Total", months out of order, too few year rows, a title or
stub that names the other kind of year than the heads imply) is not a grid, and the
table's periods are left to the one-axis readers. A year row is dated only where the
year before or after it in the same section confirms it.
"""

from __future__ import annotations

import re
from datetime import date

from pipeline.tables.month_heads import month_run
from pipeline.tables.periods import MONTHS, Period, fiscal_year_bounds, month_end, month_number
from pipeline.tables.row_order import BARE_MONTH, BARE_YEAR
from pipeline.tables.stub_labels import SECTION_HEAD

_TOTAL_HEAD = re.compile(r"^\W*total\W*$", re.I)
_FISCAL = re.compile(r"\bfiscal\b", re.I)
_CALENDAR = re.compile(r"\bcalendar\b", re.I)
_MIN_MONTHS = 6  # a run of at least six month heads, in order


def head_months(col_labels: list[str]) -> list[int] | None:
    """Per column its month number (1-12), or 0 for the year's total column; None when the
    heads are not one run of consecutive months (January or July first) and a total.

    A head OCR misread ("Fed." for Feb., "Ang." for Aug., 1940-05 p20) takes the month its
    place in the run gives when the run reads as one (pipeline.tables.month_heads)."""
    texts = [(label or "").strip() for label in col_labels]
    totals = [i for i, t in enumerate(texts) if _TOTAL_HEAD.match(t)]
    if len(totals) > 1 or (totals and totals[0] != len(texts) - 1):
        return None  # one total, after the months
    heads = texts[:-1] if totals else texts
    if len(heads) < _MIN_MONTHS or len(heads) > 12:
        return None
    if all(BARE_MONTH.match(t) for t in heads):
        months = [month_number(re.sub(r"^\W+", "", t)) for t in heads]
    else:
        run = month_run([t or None for t in heads])
        if any(m is None for m in run):
            return None  # a head that is no month, or a run that does not read as one
        months = [m + 1 for m in run if m is not None]
    if months[0] not in (1, 7):
        return None
    if any((b - a) % 12 != 1 for a, b in zip(months, months[1:], strict=False)):
        return None
    return months + [0] * len(totals)


def _row_years(row_labels: list[str], sections: list[str]) -> list[int | None]:
    """Per row, the year it prints, where a neighbour in its section confirms it by one
    year's step: OCR misreads a year's digits ("1934" for 1940, "1398" for 1939, 1940-05
    p20), and a year out of step with its section dates no cell."""
    printed: list[int | None] = []
    for label in row_labels:
        m = BARE_YEAR.match(label or "")
        printed.append(int(m.group(1)) if m else None)
    out: list[int | None] = []
    for i, year in enumerate(printed):
        confirmed = year is not None and any(
            0 <= j < len(printed)
            and sections[j] == sections[i]
            and printed[j] is not None
            and printed[j] - year == j - i
            for j in (i - 1, i + 1)
        )
        out.append(year if confirmed else None)
    return out


def _month(year: int, m: int) -> Period:
    text = f"{MONTHS[m - 1].capitalize()} {year}"
    return Period("month", date(year, m, 1), month_end(year, m), text)


def _year(year: int, fiscal: bool) -> Period:
    if fiscal:
        start, end = fiscal_year_bounds(year)
        return Period("fiscal_year", start, end, f"fiscal year {year}")
    return Period("calendar_year", date(year, 1, 1), date(year, 12, 31), f"calendar year {year}")


def grid_periods(
    col_labels: list[str],
    row_labels: list[str],
    context: str = "",
    row_headings: list[str] | None = None,
) -> dict[tuple[int, int], Period] | None:
    """Per (row_idx, col_idx) of a month grid, the cell's period; None when the table is
    not one. ``context`` is the title, stub head, unit line and row headings: a table that
    names fiscal years over January-first heads (or calendar years over July-first heads)
    says something the grid reading cannot square, and is left alone."""
    months = head_months(col_labels)
    if months is None:
        return None
    years = _row_years(row_labels, row_headings or [""] * len(row_labels))
    dated = [y for y in years if y is not None]
    filled = [label for label in row_labels if (label or "").strip()]
    if len(dated) < 2 or len(dated) * 2 < len(filled):
        return None
    fiscal = next(m for m in months if m) == 7
    if fiscal and fiscal_year_bounds(max(dated))[0].month != 7:
        return None  # fiscal years from 1977 run October-September, not July-June
    if _CALENDAR.search(context) if fiscal else _FISCAL.search(context):
        return None
    out: dict[tuple[int, int], Period] = {}
    for r, year in enumerate(years):
        if year is None:
            continue
        for c, m in enumerate(months):
            if m == 0:
                out[(r, c)] = _year(year, fiscal)
            else:
                out[(r, c)] = _month(year - 1 if fiscal and m >= 7 else year, m)
    return out


def first_section(
    parents: list[str], row_labels: list[str], stub_head: str, grid: bool
) -> tuple[list[str], str]:
    """(row parents, stub head) of a month grid whose first section heading was read as
    its stub head: a grid prints no stub head, and the heading over its first year rows
    ("Receipts", 1940-05 p20) sits where a stub head would. The first rows sit under it
    while their years run on one by one; a row that breaks the run (the next section's
    heading glued to its first year, "Expenditures 193") and every row after it keep
    their own parents."""
    if not grid or not SECTION_HEAD.fullmatch((stub_head or "").strip()):
        return parents, stub_head
    out = list(parents)
    expected = None
    for i, (parent, label) in enumerate(zip(parents, row_labels, strict=True)):
        m = BARE_YEAR.match(label or "")
        year = int(m.group(1)) if m else None
        if parent or year is None or (expected is not None and year != expected):
            break
        out[i], expected = stub_head.strip(), year + 1
    return out, ""
