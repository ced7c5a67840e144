"""A row or column that covers a run of whole years: "1941-1945" alone in a stub, under a
"Fiscal years:" or "Calendar years:" section (1953-09 p29, savings bonds sold by
periods), the years from the first through the last, of the kind the page prints.

Precision first: both years must be printed in full and be the whole label ("1948-50",
"2-1/4% February 1953-55 (Bonds)" are maturities or abbreviated spans, no period); a
span whose kind the page does not say, a position (a stock at the end of the span), or
a fiscal span across the 1976 change of the fiscal year (July-June to October-September,
with a transition quarter between) names no period exactly.
"""

from __future__ import annotations

import re
from datetime import date

_SPAN_LABEL = re.compile(r"\s*(1[89]\d\d|20\d\d)\s*[-\u2013\u2014]\s*(1[89]\d\d|20\d\d)\W*")
MAX_YEARS = 30


def _fiscal_bounds(year: int) -> tuple[date, date]:
    """U.S. federal fiscal year: July-June through FY 1976, October-September from FY 1977."""
    if year <= 1976:
        return date(year - 1, 7, 1), date(year, 6, 30)
    return date(year - 1, 10, 1), date(year, 9, 30)


def years_span(
    text: str, *, fiscal: bool, calendar_year: bool, stock: bool
) -> tuple[str, date, date, str] | None:
    """(kind, start, end, words) of a label that is a span of whole years, else None."""
    m = _SPAN_LABEL.fullmatch(text)
    if not m or stock:
        return None
    y0, y1 = int(m.group(1)), int(m.group(2))
    if not y0 < y1 <= y0 + MAX_YEARS:
        return None
    if fiscal and not calendar_year and not y0 <= 1976 < y1:
        return (
            "fiscal_year",
            _fiscal_bounds(y0)[0],
            _fiscal_bounds(y1)[1],
            f"fiscal years {y0}-{y1}",
        )
    if calendar_year and not fiscal:
        return ("calendar_year", date(y0, 1, 1), date(y1, 12, 31), f"calendar years {y0}-{y1}")
    return None
