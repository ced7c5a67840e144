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

from pipeline.tables.balances import balance_days
from pipeline.tables.estimate_rows import estimates_after_actuals
from pipeline.tables.month_grid import grid_periods
from pipeline.tables.month_heads import MISREAD, misread_month_under_year
from pipeline.tables.periods import (
    DAY_DATE,
    MONTH_WORD,
    NOT_A_PERIOD,
    STOCK_WORDS,
    Period,
    parse_period,
    read_period_words,
    running_totals,
)
from pipeline.tables.row_order import BARE_YEAR, chronological, month_row_years, since_year
from pipeline.tables.security_rows import names_a_security
from pipeline.tables.stub_periods import (
    carry_years,
    one_digit_off,
    since_to_date,
    spelled_month_rows,
    title_month_days,
    unread_month_row,
)

# "End of calendar year or month", "Fiscal year or month", "Report date": what the rows
# are, printed over the first value column (its levels may come back in either order)
_STUB_HEAD = re.compile(
    r"\b(end of|fiscal|calendar)\b.*\b(year|month)\b|\byear or month\b|\breport\b.*\bdate\b",
    re.IGNORECASE,
)
# the words of a stub head that says what the rows are ("End of fiscal year or month")
_PERIOD_HEAD = re.compile(
    r"\b(years?|months?|fiscal|calendar|dates?|period|quarters?|weeks?|end|ended)\b", re.I
)
_DURING = re.compile(r"\bduring\b", re.IGNORECASE)  # a head that counts a flow over the period
_FLOWS = frozenset({"month", "quarter", "calendar_year", "fiscal_year"})
_PERIOD_SHARE = 0.5  # an axis is a period axis when at least half its labels are periods


@dataclass(frozen=True)
class CellPeriod:
    period: Period | None
    dimension: str | None  # the column (or row) words that are not the period, if needed
    axis: str  # "col", "row", "title", "grid" (row and column together) or "" (no period)


def _dimension(label: str) -> str:
    """The levels of a header path that name no period."""
    levels = [p.strip() for p in (label or "").split(" / ") if p.strip()]
    return " / ".join(p for p in levels if parse_period(p) is None)


def _share(periods: list[Period | None]) -> float:
    if not periods:
        return 0.0
    return sum(p is not None and p is not NOT_A_PERIOD for p in periods) / len(periods)


_KIND_OF_YEAR = re.compile(r"\b(calendar|fiscal)\b", re.IGNORECASE)
_KIND_FRAGMENT = re.compile(r"\b(calendar|fiscal|years?)\b|/", re.IGNORECASE)


def _spread_kind(col_labels: list[str]) -> list[str]:
    """A "Calendar year" spanner over a run of year columns, given to every one of them.

    The head words of a spanner land on the columns they overlap: "Calendar year" centred
    over 2006 ... 2009 comes back on "2007" alone (2011-09 CM-III-2), or split, "Calendar"
    on 1979 and "year" on 1980 (1984-06 CM-IV-1). Columns that print a bare year (with
    nothing but such fragments) next to one that names the kind, up to the first column
    that prints more ("2010 / Mar."), are of that kind; a bare year between two runs of
    different kinds is left as it is.
    """
    years = [_bare_year_head(c) for c in col_labels]
    kinds = [
        (m.group(1).lower() if (m := _KIND_OF_YEAR.search(c or "")) and y else None)
        for c, y in zip(col_labels, years, strict=True)
    ]
    out = list(col_labels)
    for i, year in enumerate(years):
        if year is None or kinds[i] is not None:
            continue
        found = set()
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(years) and years[j] is not None:
                if kinds[j] is not None:
                    found.add(kinds[j])
                    break
                j += step
        if len(found) == 1:
            out[i] = f"{found.pop().capitalize()} year / {year}"
    return out


# "as of Sept. 30, 1983 and 1982": one day of the year, printed for several years
_DAY_OF_YEARS = re.compile(
    r"\b(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?\s+(\d{1,2}),?\s*"
    r"((?:(?:18|19|20)\d\d\s*(?:,|and|&)?\s*){2,})",
    re.IGNORECASE,
)


def _title_day_years(title: str, col_labels: list[str]) -> list[str]:
    """Year columns under a title that names one day in each of them: "Accounts
    Receivable ... as of Sept. 30, 1983 and 1982" over "1983", "1982" (1984-06 p88)
    dates each column on Sept. 30 of its year. A year the title does not name, or a
    head that prints more than a year, is left as it is."""
    m = _DAY_OF_YEARS.search(title or "")
    if not m:
        return col_labels
    years = set(re.findall(r"(?:18|19|20)\d\d", m.group(3)))
    out = []
    for label in col_labels:
        levels = (label or "").split(" / ")
        year = re.sub(r"\W", "", levels[-1])
        if BARE_YEAR.match(levels[-1]) and year in years:
            levels[-1] = f"{m.group(1)}. {m.group(2)}, {year}"
            out.append(" / ".join(levels))
        else:
            out.append(label)
    return out


def _lost_subperiods(col_labels: list[str], cols: list[Period | None]) -> list[Period | None]:
    """Three or more columns that print the same year and nothing more (a stray letter or
    two): the months under a "1939" spanner whose month words OCR lost (1940-05 p29,
    "1939", "1939 ties", "1939" ... for Mar. ... Dec.). No column names the whole year."""
    same: dict[str, list[int]] = {}
    for c, (label, p) in enumerate(zip(col_labels, cols, strict=True)):
        m = re.fullmatch(r"\W*((?:18|19|20)\d\d)\b(.*)", label or "")
        if not m or p is None or p is NOT_A_PERIOD:
            continue
        if re.search(r"[A-Za-z]{5,}|\d|/", m.group(2)) or MONTH_WORD.search(m.group(2)):
            continue
        same.setdefault(m.group(1), []).append(c)
    out = list(cols)
    for where in same.values():
        if len(where) >= 3:
            for c in where:
                out[c] = NOT_A_PERIOD
    return out


def _bare_year_head(label: str) -> str | None:
    """The year of a column head that prints one year and at most the words of a
    "Calendar year" / "Fiscal years" spanner; else None."""
    rest = _KIND_FRAGMENT.sub(" ", label or "").strip()
    return rest if BARE_YEAR.match(rest) else None


# a stub heading that says which years the rows under it are ("Fiscal years:",
# "Calendar year:"), and nothing more
_KIND_HEADING = re.compile(r"^\W*(fiscal|calendar)\s+years?\W*$", re.IGNORECASE)


def _heading_kinds(headings: list[str] | None, n: int) -> list[str | None]:
    """Per row, the kind of year its stub heading names ("fiscal", "calendar"), else None."""
    out: list[str | None] = []
    for i in range(n):
        heading = (headings or [])[i] if i < len(headings or []) else ""
        m = _KIND_HEADING.match(read_period_words(heading or ""))
        out.append(m.group(1).lower() if m else None)
    return out


def _kind_context(context: str, kind: str | None) -> str:
    """The context a row is read in under a "Calendar years:" stub heading: the heading
    is nearer the row than the title or stub head, so their fiscal / calendar words give
    way to it ("Fiscal years:" rows, then "Calendar years:" rows, 1953-09 p29)."""
    if kind is None:
        return context
    return f"{_KIND_OF_YEAR.sub(' ', read_period_words(context))} {kind} years"


_STUB_PERIOD_WORDS = re.compile(r"\b(fiscal|calendar|years?|months?)\b", re.IGNORECASE)


def read_stub_head(lines: list[list], edge: float) -> str:
    """The stub head: the head words left of the first value column (``edge``).

    A phrase that OCR ran on from the stub into the column heads ("Fiscal year|" joined
    to "trust Interest on", 1953-09 p16 Table 4, the rule read as "|") gives the stub its
    words left of the edge when they say what the rows are ("Fiscal year"); other
    phrases across the edge (a heading over the whole table) stay out of it.
    """
    words = []
    for chunks in lines:
        for c in chunks:
            if c.x1 < edge:
                words.append(c.text)
            elif c.x0 < edge:
                left = " ".join(w.text for w in c.parts if w.x1 < edge)
                if _STUB_PERIOD_WORDS.search(read_period_words(left)):
                    words.append(left)
    return " ".join(words)


def position_heading(lines: list[str]) -> str:
    """A heading above a page's tables that names a position on one day, set in
    capitals: "TREASURY SURVEY OF OWNERSHIP, JUNE 30, 1967" (1967-08 p76, 1953-09 p41,
    1948-05 p43). The tables under it print no date of their own; it is theirs. Or one
    day of several years ("..., AS OF SEPT. 30, 1983 AND 1982", 1984-06 p88): it dates
    the year columns of the tables under it (see ``_title_day_years``), never a whole
    table."""
    for line in lines:
        letters = re.findall(r"[A-Za-z]", line)
        upper = sum(c.isupper() for c in letters)
        if (
            len(letters) >= 8
            and upper >= 0.8 * len(letters)
            and STOCK_WORDS.search(line)
            and len(DAY_DATE.findall(line)) == 1
            and (_one_year(line) or _DAY_OF_YEARS.search(line))
        ):
            return line
    return ""


def _one_year(text: str) -> bool:
    return len(re.findall(r"\b(?:18|19|20)\d\d\b", text)) == 1  # not "1983 AND 1982"


def _with_head(parsed: Period | None, head: Period | None) -> Period | None:
    """A column's period from its garbled path (``parsed``) and from the month head run
    (``head``): the run's where the path names none, or only the same year of unknown
    kind, or a year of unknown kind one digit off the run's (the run read the year heads
    as the years the title names, in order: "1936" for 1938, 1940-05 p79); where the
    path names another period, neither."""
    if head is None or (parsed is not None and parsed.key == head.key):
        return parsed
    if parsed is None or parsed is NOT_A_PERIOD:
        return head
    if parsed.kind == "year" and head.kind != "month" and parsed.end == head.end:
        return head
    if (
        parsed.kind == "year"
        and head.kind in ("calendar_year", "fiscal_year")
        and parsed.end is not None
        and head.end is not None
        and one_digit_off(parsed.end.year, head.end.year)
    ):
        return head
    return None


def axis_periods(
    col_labels: list[str],
    row_labels: list[str],
    title: str,
    stub_head: str,
    unit_line: str = "",
    row_headings: list[str] | None = None,
    page_heading: str = "",
    run_heads: list[str | None] | None = None,
) -> tuple[str, list[Period | None], Period | None]:
    """The period axis ("col", "row", "title" or ""), its periods, and the title's period.

    The title's own date (e.g. "..., June 2016 and Other Periods") dates headers that
    print none ("This fiscal year to date"). ``row_headings`` are the rows' stub headings
    ("Fiscal years:", "Calendar years:", "Months:"); one that names the kind of year
    decides the kind of the year rows under it. ``run_heads`` (per column, the heads of a
    month head run OCR garbled, see month_heads) date the columns whose own heads parse
    to none.
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
    if title_period is None and page_heading and _one_year(page_heading):
        # the day of a position heading over the page ("SURVEY OF OWNERSHIP, JUNE 30,
        # 1967") dates a table whose title names none
        heading = parse_period(page_heading)
        if heading is not None and heading is not NOT_A_PERIOD and heading.kind == "as_of_date":
            title_period = heading
    dated_heads = _spread_kind(col_labels)
    if _DAY_OF_YEARS.search(title or ""):
        dated_heads = _title_day_years(title, dated_heads)
    elif (
        title_period is None
        and page_heading
        and not re.search(r"\b(fiscal|calendar)\b", read_period_words(context), re.IGNORECASE)
    ):
        # a heading over the page that names one day of several years dates the year
        # columns of a table whose own words name no period and no kind of year
        dated_heads = _title_day_years(page_heading, dated_heads)
    cols = [parse_period(c, context, title_period) for c in dated_heads]
    cols = _lost_subperiods(col_labels, cols)
    if run_heads:
        heads = [
            NOT_A_PERIOD if h == MISREAD else h and parse_period(h, context, title_period)
            for h in run_heads
        ]
        cols = [
            h if misread_month_under_year(c, p, h) else _with_head(p, h)
            for c, p, h in zip(col_labels, cols, heads, strict=True)
        ]
    carried = carry_years(month_row_years(spelled_month_rows(row_labels)))
    carried = title_month_days(carried, title, context)
    kinds = _heading_kinds(row_headings, len(row_labels))
    rows = [
        NOT_A_PERIOD
        if unread_month_row(r) or names_a_security(row_labels[i])
        else parse_period(r, _kind_context(context, kinds[i]), title_period)
        for i, r in enumerate(carried)
    ]
    if _share(cols) >= _PERIOD_SHARE and _share(cols) >= _share(rows):
        return "col", running_totals(cols, unit_line), title_period
    if _share(rows) >= _PERIOD_SHARE:
        checked = chronological(row_labels, carried, since_year(carried, rows), kinds)
        checked = estimates_after_actuals(checked)
        rows = since_to_date(rows, checked)
        rows = running_totals(rows, unit_line)  # after the order check, which reads years
        if (
            not (title or "").strip()
            and STOCK_WORDS.search(" ".join(col_labels))
            and not STOCK_WORDS.search(context)
        ):
            # the title is lost and the heads (where OCR ran it) name a stock: the rows
            # may be positions or flows, and a question must not name either
            rows = [NOT_A_PERIOD if p is not None and p.kind in _FLOWS else p for p in rows]
        if _DURING.search(" ".join(col_labels)) and STOCK_WORDS.search(context):
            # a "Position" title over heads of "Transactions ... during period" and
            # "Holdings at end of period" (1967-08 p94): a row is a flow in some columns
            # and a position in others, and one period cannot state both
            rows = [NOT_A_PERIOD if p is not None and p.kind == "as_of_date" else p for p in rows]
        return "row", rows, title_period
    if title_period is not None and not _dated(col_labels + row_labels):
        return "title", [], title_period
    balances = balance_days(row_labels, rows)
    if any(balances):
        return "row", balances, title_period
    return "", [], None


_MONTH_WORD = re.compile(
    r"\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sept?(ember)?"
    r"|oct(ober)?|nov(ember)?|dec(ember)?)\.?(\s+\d{1,2}\b|$)",
    re.I,
)
# a security's coupon rate ("2-5/8 June", "1-1/4% April 1955"): its month is a maturity
_RATE = re.compile(r"%|\b\d{1,2}-\d/\d{1,2}\b|\b\d\.\d+\b")


def _dated(labels: list[str]) -> bool:
    """Labels that name months or days ("Sept. 6", "Week ended Oct. 13") date the cells
    more finely than the title does: the title's period is not theirs. A word that only
    opens like a month ("marine", "Public marketable") names none, and the month of a
    security ("2-5/8 June", 1953-09 p41) is when it matures."""
    return any(
        _MONTH_WORD.search(label or "") and not _RATE.search(label or "") for label in labels
    )


def cell_periods(
    col_labels: list[str],
    row_labels: list[str],
    title: str,
    stub_head: str,
    unit_line: str = "",
    stub_doubt: bool = False,
    row_headings: list[str] | None = None,
    page_heading: str = "",
    run_heads: list[str | None] | None = None,
) -> dict[tuple[int, int], CellPeriod]:
    """Per (row_idx, col_idx): the cell's period and dimension.

    Row periods take their kind from the stub head ("End of fiscal year or month"). When
    the stub head holds words the archive does not confirm (``stub_doubt``: "mato
    caleadar year or month") or names a date of its own ("... of fiscal year 1936": a
    base the rows are counted from), that kind cannot be trusted: the rows name no period.
    A doubtful stub head that names no period at all ("Ratios of in 39 =", a title OCR
    ran into the stub) gives the rows no kind to distrust.
    """
    context = " ".join([title, stub_head, unit_line, *(row_headings or [])])
    grid = grid_periods(col_labels, row_labels, context, row_headings)
    if grid is not None:  # month heads over year rows: row and column date a cell together
        return {rc: CellPeriod(p, None, "grid") for rc, p in grid.items()}
    axis, periods, title_period = axis_periods(
        col_labels, row_labels, title, stub_head, unit_line, row_headings, page_heading, run_heads
    )
    doubt = stub_doubt and bool(_PERIOD_HEAD.search(read_period_words(stub_head or "")))
    if axis == "row" and (doubt or re.search(r"\b(18|19|20)\d\d\b", stub_head or "")):
        periods = [None if p is None else NOT_A_PERIOD for p in periods]
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
