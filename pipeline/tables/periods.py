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
from datetime import date, timedelta
from functools import cached_property

from rapidfuzz.distance import Levenshtein

from pipeline.tables.year_spans import years_span

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
MONTH_WORD = _MONTH  # a month named anywhere in a label ("1939-Apr.", "February 1940")
_MONTH_NAME = re.compile(r"\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?"
                         r"|sept?(ember)?|oct(ober)?|nov(ember)?|dec(ember)?)\b", re.I)  # fmt: skip
MONTH_NAME = _MONTH_NAME  # a month word itself ("Jan.", "June"), not "Marketable"
_YEAR = re.compile(r"(?<![\d/.])(1[89]\d\d|20\d\d)(?![\d%])")
_YEAR_SPAN = re.compile(r"\b(1[89]\d\d|20\d\d)\s*[-\u2013\u2014]\s*(\d{2}|\d{4})\b")
_QUARTER_RANGE = re.compile(
    rf"\b({_MONTH_ALT})[a-z]*\.?\s*[-\u2013\u2014]+\s*({_MONTH_ALT})[a-z]*\.?", re.IGNORECASE
)
_QUARTER_WORD = re.compile(
    r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b|\bq([1-4])\b", re.IGNORECASE
)
# a year joined to a short word or one digit: a month row ("1939-Mar.") or its misreading
_YEAR_AND_WORD = re.compile(r"\b(1[89]\d\d|20\d\d)\s*[-\u2013\u2014]\s*([A-Za-z]{1,6}|\d)\b")
_DAY_DATE = re.compile(rf"\b({_MONTH_ALT})[a-z]*\.?\s+(\d{{1,2}}),?\s*(1[89]\d\d|20\d\d)\b", re.I)
DAY_DATE = _DAY_DATE  # a day named anywhere in a text ("Sept. 30, 1940")
_ESTIMATE = re.compile(r"\bestimated?\b|\best\.|\bprojected\b|\bbudget estimate", re.IGNORECASE)
_TO_DATE = re.compile(r"\bto\s+date\b|\byear[- ]to[- ]date\b|\bytd\b", re.IGNORECASE)
_CUMULATIVE = re.compile(r"\binception\b|\bcumulative\b|\borganization\b", re.IGNORECASE)
# "due" is a maturity ("Notes due 1951"), but "due from" / "due to" someone names a
# debtor or creditor ("Receivable Due from the Public, as of Sept. 30, 1983", 1984-06 p88)
_NOT_PERIOD = re.compile(
    r"%|\bbonds?\b|\bnotes?\b|\bbills?\b|\bseries\s+[a-z]\b|\bdue\b(?!\s+(from|to)\s+[a-z])"
    r"|\bmaturit|\bcertificates?\b"
    r"|\bcalled\b|\bcoupon\b|\brate\b",
    re.IGNORECASE,
)
_FISCAL = re.compile(r"\bfiscal\b|\bf\.\s?y\.|\bfy\b", re.IGNORECASE)
_CALENDAR = re.compile(r"\bcalendar\b", re.IGNORECASE)
# Words of a title, stub head or unit line that make a dated column a position (a stock
# at the end of the period), not a flow over it.
_STOCK = re.compile(
    r"\bend of\b|\boutstanding\b|\bposition\b|\bholdings?\b|\bas of\b"
    r"|\bclaims\b|\bliabilities\b|\bownership\b|\breport(\s+\w+)?\s+date\b"
    r"|\bmonetary\s+stocks?\b|\bstocks?\s+of\s+(gold|silver|money|currency)\b",
    re.IGNORECASE,
)
STOCK_WORDS = _STOCK  # words that make a dated figure a position ("Monetary Stock")
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

    @cached_property
    def key(self) -> tuple[str, str, str]:
        """Identity of the period: two cells share a period only if kind and dates agree."""
        return (self.kind, _iso(self.start), _iso(self.end))

    @cached_property
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


_COLUMN_NUMBER = re.compile(r"\(\d{1,2}\)|\b[rp]\b\.?|\s[rp]$|(?<=\d)[rp]\b")
_THROUGH = re.compile(
    rf"\b({_MONTH_ALT})[a-z]*\.?\s*(?:through|thru|to|[-\u2013\u2014])\s*({_MONTH_ALT})[a-z]*\.?",
    re.IGNORECASE,
)
_PRIOR = re.compile(r"\b(prior|previous|preceding|last)\b", re.IGNORECASE)
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})\b")


# "1935 = 100", "1935-39 = 100", "1928 average of daily quotations = 100": the base of
# an index, printed over its columns; the year names what the figures are counted from,
# not the period they cover
_INDEX_BASE = re.compile(
    r"\b(1[89]\d\d|20\d\d)(\s*[-\u2013]\s*\d{2,4})?(\s+[A-Za-z][A-Za-z ]{0,40}?)?\s*=\s*100\b"
)


def clean_header(text: str) -> str:
    """A header without column numbers "(3)", preliminary / revised marks and an index
    base ("1935 = 100")."""
    text = _INDEX_BASE.sub(" ", read_period_words(text or ""))
    return " ".join(_COLUMN_NUMBER.sub(" ", text).split())


# The words that decide a period's kind; OCR of old pages misspells them by one letter
# ("Fiecal yoer or manth", "caleadar") and a misspelt "Fiscal" would leave the year's kind
# unknown. Words of five letters or more, same first letter, one edit away, are read as
# the word (none of these is one edit from another English word a stub head prints).
_PERIOD_WORDS = ("fiscal", "calendar", "month", "quarter", "through", "estimate", "outstanding")
_WORD = re.compile(r"[A-Za-z]{5,}")


def _period_word(m: re.Match) -> str:
    word = m.group(0)
    low = word.lower()
    for target in _PERIOD_WORDS:
        if low.startswith(target):  # the word itself, a plural or "monthly"
            return word
        if low[0] == target[0] and Levenshtein.distance(low, target) == 1:
            return target.capitalize() if word[0].isupper() else target
    return word


_GLUED_YEAR = re.compile(r"\b((?:18|19|20)\d\d)(?=[A-Za-z]{3,})")


def split_glued_year(text: str) -> str:
    """A year OCR glued to the month after it, split: "1947July" -> "1947-July"."""
    return _GLUED_YEAR.sub(r"\1-", text)


def read_period_words(text: str) -> str:
    """``text`` with one-letter OCR slips of the period words corrected, "Ted of fiscal"
    read as "End of fiscal", "Oec." (its D read as O, 1984-06 p62) as "Dec.", and a year
    glued to its month ("1947July") split."""
    text = _WORD.sub(_period_word, text)
    text = re.sub(r"\bOec\b", "Dec", text)
    text = re.sub(
        r"\b[A-Za-z]{0,2}[dD]\s+of\s+(?=(fiscal|calendar)\b)", "End of ", text, flags=re.I
    )
    return split_glued_year(text)


def parse_period(header: str, context: str = "", reference: Period | None = None) -> Period | None:
    """The period a header path names, read with the ``context`` printed around it.

    ``header`` is the column (or row) label, spanner levels joined by ``" / "``;
    ``context`` is the table title, the stub head, the unit line and any heading that
    governs the label (e.g. "Fiscal years", "[Position at end of period ...]").
    ``reference`` is the table's own date (from its title), which dates headers such as
    "This fiscal year to date" or "Prior fiscal year to date" that print no year.
    The deepest header level that names a year decides; a spanner supplies a year to a
    level that names only months ("2006" over "Jan. through Sept."). Returns ``None``
    when the header names no period at all (an item label), :data:`NOT_A_PERIOD` for a
    year that is not a period (a maturity "1960-65", a rate), else the period.
    """
    levels = [clean_header(p) for p in (header or "").split(" / ")]
    # a spanner read twice ("2006 / 2006 / Jan. through Sept.") is one level
    levels = [p for i, p in enumerate(levels) if p and (i == 0 or p != levels[i - 1])]
    if not levels:
        return None
    context = read_period_words(context)
    leaf = levels[-1]
    upper = " ".join(levels[:-1])
    joined = " ".join(levels)
    if len(levels) > 1 and (
        len(_DAY_DATE.findall(joined)) >= 2 or re.search(r"\bthrough\b|\bthru\b", joined, re.I)
    ):
        # a span printed over two head lines ("Jan. through" / "June", "Oct. 1, 1983 -" /
        # "Dec. 31, 1983") is one period: read the levels together, from the first that
        # names a date (an item spanner above, "Corporate bonds", is the dimension)
        # ("Marketable Treasury bonds" names no month: a month word, not "Mar" + letters)
        dated = [i for i, p in enumerate(levels) if _YEAR.search(p) or _MONTH_NAME.search(p)]
        first = dated[0] if dated else 0
        items = " ".join(levels[:first])
        return _parse_level(" ".join(levels[first:]), f"{items} {context}", reference)
    if _YEAR.search(leaf) or _NUMERIC_DATE.search(leaf):
        return _parse_level(leaf, f"{upper} {context}", reference)
    upper_years = _YEAR.findall(upper)
    if len(set(upper_years)) > 1 and (_MONTH.search(leaf) or _TO_DATE.search(leaf)):
        # "Calendar Years 1938 and 1939, and first quarter 1940" over "Apr.": which year?
        return NOT_A_PERIOD
    if upper_years and (_MONTH.search(leaf) or _TO_DATE.search(leaf)):
        return _parse_level(f"{leaf} {upper_years[-1]}", f"{upper} {context}", reference)
    text = " ".join(levels)
    if _YEAR.search(text):
        return _parse_level(text, context, reference)
    if reference is not None and reference.end is not None and _TO_DATE.search(text):
        return _reference_to_date(text, context, reference)
    return None


def _reference_to_date(text: str, context: str, reference: Period) -> Period:
    """ "This fiscal year to date" / "Prior fiscal year to date" dated by the table."""
    end = reference.end
    fiscal = not _CALENDAR.search(f"{text} {context}")
    year = end.year
    if fiscal and fiscal_year_bounds(year)[1] < end:
        year += 1  # the reference month opens the next fiscal year (e.g. Oct. 2016)
    if _PRIOR.search(text):
        year -= 1
        end = month_end(end.year - 1, end.month)
    start = fiscal_year_bounds(year)[0] if fiscal else date(year, 1, 1)
    what = f"fiscal year {year}" if fiscal else f"calendar year {year}"
    return Period("year_to_date", start, end, f"{what} through {_month_name(end.month)} {end.year}")


def _parse_level(text: str, context: str, reference: Period | None) -> Period | None:
    numeric = _NUMERIC_DATE.search(text)
    if numeric and not _YEAR.search(text.replace(numeric.group(0), "")):
        if _NOT_PERIOD.search(text):
            return NOT_A_PERIOD  # "2-1/2% Bond - 6/15/64-69": a maturity, no date of the table
        m, d, y = (int(g) for g in numeric.groups())
        if y < 100:  # "6/20/49": the century of the years printed around it, if any
            near = [int(v) for v in _YEAR.findall(context)] or [1900 + y if y >= 50 else 2000 + y]
            y = min((1900 + y, 2000 + y), key=lambda v: min(abs(v - n) for n in near))
        if 1 <= m <= 12 and 1 <= d <= calendar.monthrange(y, m)[1]:
            day = date(y, m, d)
            return Period("as_of_date", day, day, _day_text(day))
        if 1 <= m <= 12 and 1 <= d <= 31:
            return NOT_A_PERIOD  # "2/30/83" (OCR lost the 1 of "12/30/83"): no such day
    years = [int(y) for y in _YEAR.findall(text)]
    if not years:
        return None
    glued = _YEAR_AND_WORD.search(text)
    if glued and not _MONTH.match(glued.group(2)) and not _ESTIMATE.search(text):
        return NOT_A_PERIOD  # "1938-Bov", "1939-Har", "1938-5": a month row OCR garbled
    if _NOT_PERIOD.search(text):
        return NOT_A_PERIOD
    both = f"{text} {context}"
    if _YEAR_SPAN.search(text) and not _QUARTER_RANGE.search(text):
        return _years_span(text, both)
    year = years[-1]
    if _CUMULATIVE.search(text):
        return _cumulative(text, year)
    days = list(_DAY_DATE.finditer(text))
    if len(days) >= 2:
        between = text[days[0].end() : days[-1].start()]
        return _between_dates(days[0], days[-1], between, text[: days[0].start()])
    day = days[0] if days else None
    if day:
        d = _day(day)
        if d is None:
            return NOT_A_PERIOD  # "Feb. 30, 1940": a misread date names no period
        if _THROUGH_DAY.search(text[: day.start()]):
            return _flow_through(text, d)  # "... through Dec. 31, 1983": a flow's end
        if _YEAR_ENDING.search(text[: day.start()]) and not _STOCK.search(f"{text} {context}"):
            return _year_ending(text[: day.start()], d)
        return Period("as_of_date", d, d, _day_text(d))
    first = _FIRST_MONTHS.search(text)
    if first:
        return _first_months(first, year, both)
    if _YEAR_THROUGH_MONTH.search(text):
        # "1967 through June p" (1967-08 p107): the year to date, not the month; from
        # January or from the fiscal year's start as the page says, else no period
        if not (_FISCAL.search(both) or _CALENDAR.search(both)):
            return NOT_A_PERIOD
        return _year_to_date(text, year, both, reference)
    if _TO_DATE.search(text):
        return _year_to_date(text, year, both, reference)
    span = _span(text, year, both)
    if span is not None:
        return span
    if len(set(years)) > 1:
        return NOT_A_PERIOD  # several years and no range word: not one period
    quarter = _quarter(text, year)
    if quarter is not None:
        return quarter
    if _THROUGH.search(text):
        return NOT_A_PERIOD  # "Feb.-May 1940": a span of months, never its first month
    if not _ESTIMATE.search(text) and re.search(r"\(\s*[A-Za-z]{2,12}\.?\s*(\)|$)", text):
        # "1968 (Zet.)", "1954 (Ret.", "1949 (Zetiaated)": a year qualified by a word OCR
        # garbled (an estimate? preliminary?)
        return NOT_A_PERIOD
    if _ESTIMATE.search(text):
        fiscal = not _CALENDAR.search(both)
        start, end = fiscal_year_bounds(year) if fiscal else (date(year, 1, 1), date(year, 12, 31))
        what = "fiscal year" if fiscal else "calendar year"
        return Period("estimate", start, end, f"the {what} {year} estimate")
    stock = bool(_STOCK.search(context) or re.search(r"\bend of\b", both, re.IGNORECASE))
    month = _MONTH.search(text)
    if month and len(set(years)) == 1:
        m = month_number(month.group(1))
        if stock:
            end = month_end(year, m)
            return Period("as_of_date", end, end, f"the end of {_month_name(m)} {year}")
        return Period("month", date(year, m, 1), month_end(year, m), f"{_month_name(m)} {year}")
    if len(set(years)) != 1:
        return NOT_A_PERIOD  # two different years and no range word: not one period
    calendar_year = bool(
        _CALENDAR.search(text) or _CALENDAR.search(both) and not _FISCAL.search(text)
    )
    fiscal = bool(_FISCAL.search(both)) and not calendar_year
    if stock and (fiscal or calendar_year):
        end = fiscal_year_bounds(year)[1] if fiscal else date(year, 12, 31)
        what = f"fiscal year {year}" if fiscal else f"calendar year {year}"
        return Period("as_of_date", end, end, f"the end of {what} ({_day_text(end)})")
    if fiscal:
        start, end = fiscal_year_bounds(year)
        return Period("fiscal_year", start, end, f"fiscal year {year}")
    if calendar_year:
        return Period(
            "calendar_year", date(year, 1, 1), date(year, 12, 31), f"calendar year {year}"
        )
    return Period("year", None, date(year, 12, 31), str(year))


def _years_span(text: str, both: str) -> Period:
    """A span of whole years ("1941-1945" under "Fiscal years:"), or no period."""
    stock = bool(_STOCK.search(both) or re.search(r"\bend of\b", both, re.IGNORECASE))
    calendar_year = bool(_CALENDAR.search(both) and not _FISCAL.search(text))
    fiscal = bool(_FISCAL.search(both)) and not calendar_year
    span = years_span(text, fiscal=fiscal, calendar_year=calendar_year, stock=stock)
    return NOT_A_PERIOD if span is None else Period(*span)


_YEAR_ENDING = re.compile(r"\byear\s+end(ing|ed)\W*$", re.IGNORECASE)


def _year_ending(before: str, d: date) -> Period:
    """ "Fiscal Year Ending June 30, 1939" (1940-05 p15): the fiscal year that ends on
    that day, a flow over the year, not a position on the day (a stock table keeps the
    day); "year ended December 31" the calendar year. A day that ends no such year
    names no period."""
    if _FISCAL.search(before):
        start, end = fiscal_year_bounds(d.year)
        if end == d:
            return Period("fiscal_year", start, end, f"fiscal year {d.year}")
    elif (d.month, d.day) == (12, 31):
        return Period("calendar_year", date(d.year, 1, 1), d, f"calendar year {d.year}")
    return NOT_A_PERIOD


def _span(text: str, year: int, both: str) -> Period | None:
    """ "Jan. through Sept. 2006", "2011 Jan. - June": a quarter, a calendar or fiscal
    year to date."""
    m = _THROUGH.search(text)
    if not m:
        return None
    m0, m1 = month_number(m.group(1)), month_number(m.group(2))
    y0 = year - 1 if m0 > m1 else year
    start, end = date(y0, m0, 1), month_end(year, m1)
    months = (m1 - m0) % 12 + 1
    label = f"{_month_name(m0)}–{_month_name(m1)} {year}"
    if months == 3:
        return Period("quarter", start, end, f"the {label} quarter")
    fiscal_start = fiscal_year_bounds(year if m0 <= m1 else year)[0].month
    if m0 == 1 or m0 == fiscal_start:
        return Period("year_to_date", start, end, label)
    return None


# a year run to a month: "1967 through June", "Fiscal year 1967 through June"
_YEAR_THROUGH_MONTH = re.compile(
    rf"\b(1[89]\d\d|20\d\d)\s+(?:through|thru|to)\s+({_MONTH_ALT})[a-z]*\.?(?!\s*\d)",
    re.IGNORECASE,
)
# a date a span runs to ("Current quarter through Mar. 31, 1997"): the end of a flow
_THROUGH_DAY = re.compile(r"\b(through|thru|to)\s*$", re.IGNORECASE)


def _flow_through(text: str, end: date) -> Period:
    """A flow that runs to ``end`` (1997-09 ESF-2 "Current quarter through Mar. 31, 1997"):
    the quarter or the year to date ending there, when the head says which and ``end``
    closes a month; never the position at that date."""
    if end != month_end(end.year, end.month):
        return NOT_A_PERIOD
    if _QUARTER_WORD.search(text) or re.search(r"\bquarter\b", text, re.IGNORECASE):
        first = end.month - 2 if end.month > 2 else end.month + 10
        start = date(end.year if end.month > 2 else end.year - 1, first, 1)
        label = f"{_month_name(start.month)}–{_month_name(end.month)} {end.year}"
        return Period("quarter", start, end, f"the {label} quarter")
    if _TO_DATE.search(text):
        fiscal = bool(_FISCAL.search(text)) or not _CALENDAR.search(text)
        fy = end.year + 1 if fiscal and end > fiscal_year_bounds(end.year)[1] else end.year
        start = fiscal_year_bounds(fy)[0] if fiscal else date(end.year, 1, 1)
        what = f"fiscal year {fy}" if fiscal else f"calendar year {end.year}"
        return Period(
            "year_to_date", start, end, f"{what} through {_month_name(end.month)} {end.year}"
        )
    return NOT_A_PERIOD


def _between_dates(first: re.Match, last: re.Match, between: str = "", before: str = "") -> Period:
    """ "Apr. 1, 2016, through June 30, 2016": a quarter when it is one; so is the change
    between two month-end balances, "Mar. 31, 2022, through June 30, 2022" (2022-09
    ESF-1: the April-June quarter); a span from the first day of a fiscal or calendar
    year that the head calls "to date" is that year to date ("Fiscal year to date Oct.
    1, 1996, through Mar. 31, 1997", 1997-09 ESF-2). Any other span between two dates
    is no period a question can name in one of the kinds."""
    start, end = _day(first), _day(last)
    spans = re.search(r"\b(through|thru|to)\b|[-\u2013\u2014]", between, re.IGNORECASE)
    balance = None  # the first of two balance dates: the column is the change between them
    if spans and start is not None and start == month_end(start.year, start.month):
        balance, start = start, start + timedelta(days=1)  # from the close of March: April 1
    if start is None or end is None or start.day != 1 or end != month_end(end.year, end.month):
        return NOT_A_PERIOD
    months = (end.year - start.year) * 12 + end.month - start.month + 1
    if months != 3:
        if _TO_DATE.search(before) and 1 <= months <= 12:
            to_date = _flow_through(before + " through", end)
            if to_date.kind == "year_to_date" and to_date.start == start:
                return to_date
        return NOT_A_PERIOD
    label = f"{_month_name(start.month)}–{_month_name(end.month)} {end.year}"
    if balance is not None:
        # a question names the change, not the quarter alone: over a table of balances
        # "in the January-March 1997 quarter" reads as the balance at its end as well
        # (audit 2026-12-02, 1997-09 ESF-1 "Dec. 31, 1996, through Mar. 31, 1997")
        text = f"the change from {_day_text(balance)} to {_day_text(end)} (the {label} quarter)"
        return Period("quarter", start, end, text)
    return Period("quarter", start, end, f"the {label} quarter")


def _day(match: re.Match) -> date | None:
    """The date of a "Sept. 30, 1940" match; None for an impossible one (an OCR slip)."""
    try:
        return date(int(match.group(3)), month_number(match.group(1)), int(match.group(2)))
    except ValueError:
        return None


def _cumulative(text: str, year: int) -> Period:
    day = _DAY_DATE.search(text)
    end = _day(day) if day else None
    if day and end is None:
        return NOT_A_PERIOD
    if not day:
        month = _MONTH.search(text)
        end = month_end(year, month_number(month.group(1))) if month else date(year, 12, 31)
        if not month:
            return Period("cumulative_to_date", None, None, f"cumulative to {year}")
    return Period("cumulative_to_date", None, end, f"cumulative to {_day_text(end)}")


# a unit line that counts every figure from the start ("(Cumulative - In millions of
# dollars)", OCR's "Cumalative" too): one letter of the word may be misread
_CUMULATIVE_UNIT = re.compile(r"^\W*cum[a-z]{1,2}lative\b", re.IGNORECASE)
_RUNNING_FROM = frozenset({"fiscal_year", "calendar_year", "month", "as_of_date"})


def running_totals(periods: list[Period | None], unit_line: str) -> list[Period | None]:
    """Under a unit line "(Cumulative - In millions of dollars)" (1941-01 p21, the Old-Age
    and Survivors Insurance Trust Fund) a row "1937" under "End of fiscal year" or
    "1940-July" is the running total from the fund's start to the end of that fiscal
    year or month: cumulative to that day, not the year's or month's flow. A period with
    no end of its own (a year of unknown kind, a quarter, a year to date) names none."""
    if not _CUMULATIVE_UNIT.match(unit_line or ""):
        return periods
    out: list[Period | None] = []
    for p in periods:
        if p is None or p is NOT_A_PERIOD:
            out.append(p)
        elif p.kind in _RUNNING_FROM and p.end is not None:
            out.append(
                Period("cumulative_to_date", None, p.end, f"cumulative to {_day_text(p.end)}")
            )
        else:
            out.append(NOT_A_PERIOD)
    return out


_COUNT_WORDS = {w: i for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), start=1
)}  # fmt: skip
_FIRST_MONTHS = re.compile(
    r"\bfirst\s+(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven)\s+months\b",
    re.IGNORECASE,
)


def _first_months(m: re.Match, year: int, both: str) -> Period | None:
    """ "for the First 4 Months, Fiscal Year 1940": the fiscal (or calendar) year to the
    end of its fourth month."""
    word = m.group(1).lower()
    n = int(word) if word.isdigit() else _COUNT_WORDS[word]
    if not 1 <= n <= 11:
        return NOT_A_PERIOD
    fiscal = not _CALENDAR.search(both)
    start = fiscal_year_bounds(year)[0] if fiscal else date(year, 1, 1)
    last = start.month + n - 1
    end = month_end(start.year + (last - 1) // 12, (last - 1) % 12 + 1)
    what = f"fiscal year {year}" if fiscal else f"calendar year {year}"
    return Period("year_to_date", start, end, f"{what} through {_month_name(end.month)} {end.year}")


def _year_to_date(text: str, year: int, both: str, reference: Period | None = None) -> Period:
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
    ref_end = reference.end if reference is not None else None
    if ref_end is not None and start <= ref_end <= date(year + 1, 12, 31):
        return Period(
            "year_to_date",
            start,
            ref_end,
            f"{what} through {_month_name(ref_end.month)} {ref_end.year}",
        )
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
