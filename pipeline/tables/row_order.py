"""The order a stub prints its period rows in, and the rows that break it.

Stubs run one way, oldest first or newest first, one year (or month) a row. A row whose
year OCR misread stands off that run: it turns back against the stub's way, jumps further
than a stub steps, prints a year another row prints too, or a month outside the table's
annual years. :func:`chronological` finds such rows among the periods
:mod:`pipeline.tables.axes` reads, and they name no period; :func:`month_row_years`
reads a month row's year back from the annual rows before the rows are read. Split out
of :mod:`pipeline.tables.axes`, which decides a table's period axis.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from itertools import product

from pipeline.tables.periods import MONTH_WORD, NOT_A_PERIOD, Period
from pipeline.tables.stub_periods import debris_label, one_digit_off, restated_year

_DAY = timedelta(days=1)

BARE_MONTH = re.compile(
    r"^\W*(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?\W*$", re.I
)
BARE_YEAR = re.compile(r"^\W*((?:18|19|20)\d\d)\W*$")


def _months(label: str, p: Period | None) -> int | None:
    """A month row's month number since year 0 (a month, or a month-end position)."""
    if p is None or p is NOT_A_PERIOD or p.end is None or not MONTH_WORD.search(label or ""):
        return None
    if p.kind == "month" or (p.kind == "as_of_date" and (p.end + _DAY).day == 1):
        return p.end.year * 12 + p.end.month
    return None


_ESTIMATE_YEAR = re.compile(r"^\W*(18|19|20)\d\d\s*\((est|estimated)\.?\)\W*$", re.IGNORECASE)


def _annual_year(label: str, p: Period | None) -> int | None:
    """An annual row's year (a bare year stub read as a year, fiscal year, calendar year or
    year-end position, or a year's estimate: "1943 (Estimated)" between "1947" and "1949
    (Estimated)" is a misread 1948, 1948-05 p18), else None."""
    if p is None or p is NOT_A_PERIOD or p.end is None:
        return None
    if p.kind == "estimate" and _ESTIMATE_YEAR.match(label or ""):
        return p.end.year
    if not BARE_YEAR.match(label or ""):
        return None
    return p.end.year if p.kind in ("year", "fiscal_year", "calendar_year", "as_of_date") else None


def _direction(values: list[int | None]) -> int:
    """+1 when most steps between neighbouring values go up, -1 when most go down."""
    steps = [
        b - a for a, b in zip(values, values[1:], strict=False) if a is not None and b is not None
    ]
    ups, downs = sum(s > 0 for s in steps), sum(s < 0 for s in steps)
    return 1 if ups >= downs else -1


def _strays(years: list[int | None], limit: int) -> list[int]:
    """Annual rows further than ``limit`` years from every annual row near them, two
    on either side ("1987" above "1948", "1949", ...: a misread "1947"). Such a row must
    not anchor the order check, or every good row after it would be judged against it;
    a good row next to a stray ("1934" over "1993", "1936") has another neighbour."""
    known = [i for i, y in enumerate(years) if y is not None]
    out = []
    for k, i in enumerate(known):
        near = [years[j] for j in known[max(0, k - 2) : k + 3] if j != i]
        if near and all(abs(years[i] - y) > limit for y in near):
            out.append(i)
    return out


_KIND_WORD = re.compile(r"\b(fiscal|calendar)\b", re.IGNORECASE)


def since_year(labels: list[str], periods: list[Period | None]) -> list[Period | None]:
    """ "1957 to date" under annual rows 1957, 1958, ..., 1967 is the total since 1957
    (cumulative), not fiscal year 1957 to date: a year-to-date row whose year the stub
    also prints as a whole year, or a later one, names no period it can state."""
    annual = [
        p.end for p in periods
        if p is not None and p.kind in ("fiscal_year", "calendar_year", "year") and p.end
    ]  # fmt: skip
    out = list(periods)
    for i, p in enumerate(periods):
        if (
            p is not None
            and p.kind == "year_to_date"
            and p.start is not None
            and not _KIND_WORD.search(labels[i] or "")
            and any(end > p.start for end in annual)
        ):
            out[i] = NOT_A_PERIOD
    return out


def _sections(kinds: list[str | None] | None, n: int) -> list[range]:
    """The runs of rows under one kind of stub heading: a stub that prints fiscal years
    1946-1953, then calendar years 1946-1952 (1953-09 p29), is two runs of years, not one
    that turns back on itself and prints each year twice."""
    kinds = kinds or [None] * n
    out, start = [], 0
    for i in range(1, n + 1):
        if i == n or kinds[i] != kinds[start]:
            out.append(range(start, i))
            start = i
    return out


def _off_step(
    labels: list[str], years: list[int | None], out: list[Period | None], sections: list[range]
) -> list[int]:
    """Two annual rows whose years do not step one a row across the rows between them,
    every one a year OCR garbled to digits and a letter or two ("1942", "192", "1983",
    "19", "1985", "19", "1947" for
    1941 ... 1947 under "Calendar years:", 1948-05 p36): one of them is misread, and
    which cannot be told, so neither names a period. Rows with no row between may step
    any way the stub runs (1930, 1935, 1940)."""
    bad: set[int] = set()
    for rows in sections:
        read = [i for i in rows if years[i] is not None]  # a stray counts: it was read
        for i, j in zip(read, read[1:], strict=False):
            between = [(k, labels[k] or "") for k in range(i + 1, j)]
            if not between or not all(
                re.search(r"\d", t) and not re.search(r"[A-Za-z]{3}|(18|19|20)\d\d", t)
                for k, t in between
            ):
                continue  # a blank, an item, a month or a whole year between: no run
            if abs(years[j] - years[i]) != j - i:
                bad.update((i, j))
    return sorted(bad)


def chronological(
    labels: list[str],
    carried: list[str],
    periods: list[Period | None],
    kinds: list[str | None] | None = None,
) -> list[Period | None]:
    """Row periods checked against the order the stub prints them in.

    Stubs run one way, oldest first or (2016-09 OFS-2) newest first, and the way most
    neighbouring rows go is the table's. A month row that turns back against it, or
    stands more than a year from the last good month, took a year OCR misread (a
    "February" carried from the year above a lost "1940-January"); so does an annual row
    more than ten years from the last good one ("1909" after "1938") or from both its
    annual neighbours ("1987" over "1948" for "1947"), and a month row
    outside the table's annual years ("1947-Jan." for "1967-Jan." under 1966-1968). A bare
    year row right above a bare month row ("1947" over "August") is a month row whose
    month OCR lost ("1947-July"). None of these names a period. The order and the copies
    of a year are checked within each run of rows under one kind of stub heading
    (``kinds``); the month rows, against all the table's annual years.
    """
    out = list(periods)
    months = [_months(carried[i], p) for i, p in enumerate(periods)]
    years = [_annual_year(labels[i], p) for i, p in enumerate(periods)]
    sections = _sections(kinds, len(periods))
    again: set[int] = set()  # the second row of a year printed again (a restated series)
    for rows in sections:
        for i in _off_run_duplicates(years[rows.start : rows.stop]):
            out[rows.start + i], years[rows.start + i] = NOT_A_PERIOD, None
        part = years[rows.start : rows.stop]
        annual = [i for i, y in enumerate(part) if y is not None]
        again |= {
            rows.start + b
            for a, b in zip(annual, annual[1:], strict=False)
            if part[a] == part[b] and restated_year(part, annual, [a, b])
        }
    for i in _strays(years, 10):  # a stray is judged by all the table's years
        out[i] = NOT_A_PERIOD
    for (series, limit), rows in product(((months, 13), (years, 10)), sections):
        way = _direction(series[rows.start : rows.stop])
        last = None
        for i in rows:
            v = series[i]
            if out[i] is NOT_A_PERIOD or (series is years and i in again):
                continue
            if v is None:
                if series is months and (labels[i] or "").strip() and not debris_label(labels[i]):
                    last = None  # an annual row, a heading or an item ends a month run;
                continue  # a row whose label OCR lost ("" or "¢" for "Apr.") does not
            if last is not None and not 0 < way * (v - last) <= limit:
                out[i] = NOT_A_PERIOD
                continue
            last = v
    for i in _off_step(labels, years, out, sections):
        out[i] = NOT_A_PERIOD
    good_years = [y for i, y in enumerate(years) if y is not None and out[i] is not NOT_A_PERIOD]
    if good_years:
        low, high = min(good_years) - 1, max(good_years) + 2
        for i, m in enumerate(months):
            if m is not None and not low <= (m - 1) // 12 <= high:
                out[i] = NOT_A_PERIOD
    for i in range(len(labels) - 1):
        if BARE_YEAR.match(labels[i] or "") and BARE_MONTH.match(labels[i + 1] or ""):
            out[i] = NOT_A_PERIOD
    return out


_YEAR_MONTH_ROW = re.compile(r"^(\W*)((?:18|19|20)\d\d)(\s*[-\u2013\u2014~]\s*[A-Za-z].*)$")
# a row opening on a year that is no month row ("1947", "1967 p", "1949 (Estimated)"; not
# "1947-July")
ANNUAL_ROW = re.compile(r"^\W*((?:18|19|20)\d\d)(?!\d)(?!\s*[-\u2013\u2014~]\s*[A-Za-z])")


def month_row_years(labels: list[str]) -> list[str]:
    """A month row's year OCR misread by one digit, read from the table's annual rows.

    Month rows fall within the years the stub's annual rows span (the months of the
    last year or two, 1967-08 p24: 1966, "1967p", "1968 (Est.)", then "1966-July" ...
    "1967-Jan."). A "1947-Jan." more than ten years from that span is "1967-Jan." when
    exactly one year of the span is one digit from 1947; with none or several, or a year
    near the span (a side panel's "1942-Jan." beside annual rows 1933-1938, 1948-05
    p47), the row is left as read (and the order check finds it no period).
    """
    annual = [int(m.group(1)) for label in labels if (m := ANNUAL_ROW.match(label or ""))]
    if len(annual) < 2:
        return labels
    span = range(min(annual) - 1, max(annual) + 2)
    out = list(labels)
    for i, label in enumerate(labels):
        m = _YEAR_MONTH_ROW.match(label or "")
        if not m or min(abs(int(m.group(2)) - y) for y in span) <= 10:
            continue  # a month near the annual years may be the table's (a side panel)
        near = [y for y in span if one_digit_off(int(m.group(2)), y)]
        if len(near) == 1:
            out[i] = f"{m.group(1)}{near[0]}{m.group(3)}"
    return out


def _off_run_duplicates(years: list[int | None]) -> list[int]:
    """Annual rows that print a year another annual row prints too ("1935" read for
    "1933" above a "1935"): the stub runs one year a row, so the copy standing off the
    run most annual rows fit (row ``i`` prints ``a + i``) is the misread; when neither
    or both fit, all copies are doubtful."""
    offsets = Counter(y - i for i, y in enumerate(years) if y is not None)
    best = max(offsets, key=offsets.get) if offsets else None
    if best is None or offsets[best] < 3:
        best = None
    where: dict[int, list[int]] = {}
    for i, y in enumerate(years):
        if y is not None:
            where.setdefault(y, []).append(i)
    annual = [i for i, y in enumerate(years) if y is not None]
    out = []
    for rows in where.values():
        if len(rows) < 2:
            continue
        if len(rows) == 2 and restated_year(years, annual, rows):
            continue
        fit = [i for i in rows if best is not None and years[i] - i == best]
        out += [i for i in rows if len(fit) != 1 or i not in fit]
    return out
