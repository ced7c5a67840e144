"""Which period a column or row of a statement covers, as a structured value.

A bulletin header names a period in many ways: a bare year under a "Fiscal years"
spanner, "2010 Oct.-Dec." (a quarter), "Actual fiscal year to date 2011", "From
inception to Oct. 31, 1939", "Sept. 30, 1940" (a position on a date), "1968 estimate",
"1967-January" (a month), or no period at all ("2-3/4% bonds of 1960-65", "Loans"). This
module reads a header path (its levels joined by ``" / "``) together with the context
printed around it (title, spanner heads, stub head) into a :class:`Period`: a kind, a
start and end date and the words a question uses. A year whose kind (fiscal or
calendar) the page does not say is kind ``year``: the drafter must not state it as
either, so it rejects such a task as ``period_ambiguous`` rather than guess.

Kinds: ``calendar_year``, ``fiscal_year``, ``year`` (kind not printed), ``quarter``,
``month``, ``year_to_date``, ``cumulative_to_date``, ``as_of_date``, ``estimate``,
``not_a_period``.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

KINDS = (
    "calendar_year",
    "fiscal_year",
    "year",
    "quarter",
    "month",
    "year_to_date",
    "cumulative_to_date",
    "as_of_date",
    "estimate",
    "not_a_period",
)
# Kinds a question can state exactly (``year`` lacks fiscal/calendar; ``not_a_period``
# names no time at all).
STATABLE = frozenset(KINDS) - {"year", "not_a_period"}

MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH_ALT = r"jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_MONTH = re.compile(rf"\b({_MONTH_ALT})[a-z]*\.?", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d/.])(1[89]\d\d|20\d\d)(?![\d%])")
_YEAR_SPAN = re.compile(r"\b(1[89]\d\d|20\d\d)\s*[-\u2013\u2014]\s*(\d{2}|\d{4})\b")
_QUARTER_RANGE = re.compile(
    rf"\b({_MONTH_ALT})[a-z]*\.?\s*[-\u2013\u2014]+\s*({_MONTH_ALT})[a-z]*\.?", re.IGNORECASE
)
_QUARTER_WORD = re.compile(
    r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b|\bq([1-4])\b", re.IGNORECASE
)
_DAY_DATE = re.compile(rf"\b({_MONTH_ALT})[a-z]*\.?\s+(\d{{1,2}}),?\s+(1[89]\d\d|20\d\d)\b", re.I)
_ESTIMATE = re.compile(r"\bestimated?\b|\best\.|\bprojected\b|\bbudget estimate", re.IGNORECASE)
_TO_DATE = re.compile(r"\bto\s+date\b|\byear[- ]to[- ]date\b|\bytd\b", re.IGNORECASE)
_CUMULATIVE = re.compile(r"\binception\b|\bcumulative\b|\borganization\b", re.IGNORECASE)
_NOT_PERIOD = re.compile(
    r"%|\bbonds?\b|\bnotes?\b|\bbills?\b|\bseries\s+[a-z]\b|\bdue\b|\bmaturit|\bcertificates?\b"
    r"|\bcalled\b|\bcoupon\b|\brate\b",
    re.IGNORECASE,
)
_FISCAL = re.compile(r"\bfiscal\b|\bf\.\s?y\.|\bfy\b", re.IGNORECASE)
_CALENDAR = re.compile(r"\bcalendar\b", re.IGNORECASE)
_STOCK = re.compile(
    r"\bend of\b|\boutstanding\b|\bposition\b|\bholdings?\b|\bbalances?\b|\bas of\b"
    r"|\bclaims\b|\bliabilities\b|\bamount outstanding\b",
    re.IGNORECASE,
)
_QUARTER_BY_WORD = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
}


@dataclass(frozen=True)
class Period:
    """A structured period: kind, first and last day (either may be unknown) and wording."""

    kind: str
    start: date | None
    end: date | None
    text: str

    @property
    def key(self) -> tuple[str, str, str]:
        """Identity of the period: two cells share a period only if kind and dates agree."""
        return (self.kind, _iso(self.start), _iso(self.end))

    @property
    def order(self) -> tuple[str, str]:
        """Sort key: by end date, then start date."""
        return (_iso(self.end), _iso(self.start))

    @property
    def statable(self) -> bool:
        """A question can name this period exactly."""
        return self.kind in STATABLE and (self.end is not None or self.kind == "year_to_date")

    @property
    def year(self) -> int | None:
        return self.end.year if self.end else None

    @property
    def when(self) -> str:
        """The period as an adverbial a question uses: "in fiscal year 1939", "as of
        September 30, 1940", "cumulative to October 31, 1939"."""
        if self.kind == "as_of_date":
            return f"at {self.text}" if self.text.startswith("the end") else f"as of {self.text}"
        if self.kind == "cumulative_to_date":
            return self.text
        return f"in {self.text}"

    def comparable(self, other: Period) -> bool:
        """Two periods a question may compare: the same kind (a fiscal year with a fiscal
        year, a month with a month), never a year against a month or a year to date."""
        return self.kind == other.kind and self.statable and other.statable


NOT_A_PERIOD = Period("not_a_period", None, None, "")


def _iso(d: date | None) -> str:
    return d.isoformat() if d else ""


def month_number(word: str) -> int:
    return [m[:3] for m in MONTHS].index(word.lower()[:3]) + 1


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def fiscal_year_bounds(year: int) -> tuple[date, date]:
    """U.S. federal fiscal year: July-June through FY 1976, October-September from FY 1977."""
    if year <= 1976:
        return date(year - 1, 7, 1), date(year, 6, 30)
    return date(year - 1, 10, 1), date(year, 9, 30)


def _month_name(month: int) -> str:
    return MONTHS[month - 1].capitalize()


def _day_text(d: date) -> str:
    return f"{_month_name(d.month)} {d.day}, {d.year}"


def parse_period(header: str, context: str = "") -> Period | None:
    """The period a header path names, read with the ``context`` printed around it.

    ``header`` is the column (or row) label, spanner levels joined by ``" / "``;
    ``context`` is the table title, the stub head and any heading that governs the
    label (e.g. "Fiscal years"). Returns ``None`` when the header names no year at all
    (an item label, not a period), :data:`NOT_A_PERIOD` for a year that is not a period
    (a maturity "1960-65", a rate), else the structured period.
    """
    text = " ".join((header or "").split())
    if not text:
        return None
    years = [int(y) for y in _YEAR.findall(text)]
    if not years:
        return None
    if _NOT_PERIOD.search(text) or _YEAR_SPAN.search(text) and not _QUARTER_RANGE.search(text):
        return NOT_A_PERIOD
    both = f"{text} {context}"
    year = years[-1]
    if _CUMULATIVE.search(text):
        return _cumulative(text, year)
    day = _DAY_DATE.search(text)
    if day:
        d = date(int(day.group(3)), month_number(day.group(1)), int(day.group(2)))
        return Period("as_of_date", d, d, _day_text(d))
    if _TO_DATE.search(text):
        return _year_to_date(text, year, both)
    quarter = _quarter(text, year)
    if quarter is not None:
        return quarter
    if _ESTIMATE.search(text):
        fiscal = not _CALENDAR.search(both)
        start, end = fiscal_year_bounds(year) if fiscal else (date(year, 1, 1), date(year, 12, 31))
        what = "fiscal year" if fiscal else "calendar year"
        return Period("estimate", start, end, f"the {what} {year} estimate")
    month = _MONTH.search(text)
    if month and len(set(years)) == 1:
        m = month_number(month.group(1))
        if re.search(r"\bend of\b", both, re.IGNORECASE) or _STOCK.search(context):
            end = month_end(year, m)
            return Period("as_of_date", end, end, f"the end of {_month_name(m)} {year}")
        return Period("month", date(year, m, 1), month_end(year, m), f"{_month_name(m)} {year}")
    if len(set(years)) != 1:
        return NOT_A_PERIOD  # two different years and no range word: not one period
    if _FISCAL.search(both) and not _CALENDAR.search(text):
        start, end = fiscal_year_bounds(year)
        return Period("fiscal_year", start, end, f"fiscal year {year}")
    if _CALENDAR.search(both):
        return Period(
            "calendar_year", date(year, 1, 1), date(year, 12, 31), f"calendar year {year}"
        )
    return Period("year", None, date(year, 12, 31), str(year))


def _cumulative(text: str, year: int) -> Period:
    day = _DAY_DATE.search(text)
    if day:
        end = date(int(day.group(3)), month_number(day.group(1)), int(day.group(2)))
    else:
        month = _MONTH.search(text)
        end = month_end(year, month_number(month.group(1))) if month else date(year, 12, 31)
        if not month:
            return Period("cumulative_to_date", None, None, f"cumulative to {year}")
    return Period("cumulative_to_date", None, end, f"cumulative to {_day_text(end)}")


def _year_to_date(text: str, year: int, both: str) -> Period:
    """ "Fiscal year 2011 to date" (through the month printed nearby, when there is one)."""
    fiscal = bool(_FISCAL.search(both)) or not _CALENDAR.search(both)
    start = fiscal_year_bounds(year)[0] if fiscal else date(year, 1, 1)
    what = f"fiscal year {year}" if fiscal else f"calendar year {year}"
    month = _MONTH.search(text)
    if month:
        m = month_number(month.group(1))
        end_year = year if not fiscal or m <= fiscal_year_bounds(year)[1].month else year - 1
        end = month_end(end_year, m)
        return Period("year_to_date", start, end, f"{what} through {_month_name(m)} {end_year}")
    return Period("year_to_date", start, None, f"{what} to date")


def _quarter(text: str, year: int) -> Period | None:
    span = _QUARTER_RANGE.search(text)
    if span:
        m0, m1 = month_number(span.group(1)), month_number(span.group(2))
        if (m1 - m0) % 12 != 2:
            return None
        y0 = year - 1 if m0 > m1 else year
        start, end = date(y0, m0, 1), month_end(year, m1)
        return Period(
            "quarter", start, end, f"the {_month_name(m0)}–{_month_name(m1)} {year} quarter"
        )
    word = _QUARTER_WORD.search(text)
    if word and not _FISCAL.search(text):
        q = _QUARTER_BY_WORD[word.group(1).lower()] if word.group(1) else int(word.group(2))
        m0 = 3 * (q - 1) + 1
        start, end = date(year, m0, 1), month_end(year, m0 + 2)
        return Period(
            "quarter", start, end, f"the {_month_name(m0)}–{_month_name(m0 + 2)} {year} quarter"
        )
    return None


def carry_years(labels: list[str]) -> list[str]:
    """Month rows under a year row: "1966", "1967-January", "February" -> "February 1967".

    A label that names a month but no year takes the year of the nearest label above
    that names one; other labels are returned unchanged.
    """
    out, year = [], None
    for label in labels:
        years = _YEAR.findall(label or "")
        if years:
            year = years[-1]
            out.append(label)
        elif year and _MONTH.match((label or "").strip()):
            out.append(f"{label.strip().rstrip('.')} {year}")
        else:
            out.append(label)
    return out
