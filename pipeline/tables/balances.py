"""The rows of a balance statement: the balance carried on a day, and the flows between
an opening and a closing balance.

A reconciliation prints a balance on a day, the year's additions and deductions, and the
balance on a later day (1984-06 p88, Summary Reconciliation of Gross Accounts and Loans
Receivable: "Beginning balance, Sept. 30, 1982", "New receivables", "Repayments and
reclassifications", "Amounts written off", "Ending balance, Sept. 30, 1983"). The
balances are positions on their days; the rows between carry the first balance to the
second, so they are flows over the days after the first and through the second. Split
out of :mod:`pipeline.tables.stub_periods`, which reads runs of period rows.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from pipeline.tables.periods import MONTHS, Period, fiscal_year_bounds, month_end

# a balance carried on a day, the day printed in its label ("Beginning balance, Sept. 30,
# 1982", "Ending balance, Sept. 30, 1983")
_BALANCE_ON_DAY = re.compile(
    r"^\W*(beginning|ending|opening|closing)?\s*balances?\b.*\b\d{1,2},?\s+(18|19|20)\d\d\W*$",
    re.IGNORECASE,
)
_OPENING = re.compile(r"^\W*(beginning|opening)\s+balances?\b", re.IGNORECASE)
_CLOSING = re.compile(r"^\W*(ending|closing)\s+balances?\b", re.IGNORECASE)


def balance_days(labels: list[str], parsed: list[Period | None]) -> list[Period | None]:
    """The rows of a stub too few of whose rows name periods to date it by its rows
    that state a balance on a day: that day, a position; the rows between an opening and
    a closing balance: the span they carry the one to the other over (see
    :func:`flows_between`)."""
    days = [
        p if p is not None and p.kind == "as_of_date" and _BALANCE_ON_DAY.match(lb or "") else None
        for lb, p in zip(labels, parsed, strict=True)
    ]
    return flows_between(labels, days)


def flows_between(labels: list[str], days: list[Period | None]) -> list[Period | None]:
    """``days`` (the balance rows' positions, None elsewhere) with each row between an
    opening balance ("Beginning balance, Sept. 30, 1982") and the next balance row, a
    closing one ("Ending balance, Sept. 30, 1983"), dated by the span from the day after
    the first through the second, where that span is one period a question can name
    (:func:`span_after`). The page need not print the span's kind: Oct. 1, 1982 through
    Sept. 30, 1983 is fiscal year 1983 by the dates alone (1984-06 p88). Rows without
    a label, or between balances whose span names no period, stay undated."""
    out = list(days)
    for i, (label, opening) in enumerate(zip(labels, days, strict=True)):
        if opening is None or opening.end is None or not _OPENING.match(label or ""):
            continue
        j = next((k for k in range(i + 1, len(days)) if days[k] is not None), None)
        if j is None or j == i + 1 or not _CLOSING.match(labels[j] or ""):
            continue
        closing = days[j].end
        span = span_after(opening.end, closing) if closing is not None else None
        if span is None:
            continue
        for k in range(i + 1, j):
            if (labels[k] or "").strip():
                out[k] = span
    return out


def span_after(first: date, last: date) -> Period | None:
    """The period from the day after ``first`` through ``last``, when it is a federal
    fiscal year, a calendar year, a calendar quarter or a month; else None (a span of
    other months names no period of the kinds)."""
    start = first + timedelta(days=1)
    if last < start or start.day != 1 or last != month_end(last.year, last.month):
        return None
    if (start, last) == fiscal_year_bounds(last.year):
        return Period("fiscal_year", start, last, f"fiscal year {last.year}")
    if (start, last) == (date(last.year, 1, 1), date(last.year, 12, 31)):
        return Period("calendar_year", start, last, f"calendar year {last.year}")
    months = (last.year - start.year) * 12 + last.month - start.month + 1
    first_name = MONTHS[start.month - 1].capitalize()
    last_name = MONTHS[last.month - 1].capitalize()
    if months == 3 and start.month in (1, 4, 7, 10):
        return Period("quarter", start, last, f"the {first_name}–{last_name} {last.year} quarter")
    if months == 1:
        return Period("month", start, last, f"{first_name} {last.year}")
    return None
