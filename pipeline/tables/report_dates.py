"""A stub of report dates ("7/29/83", "8/31/83", ...): a date OCR lost a digit of, and a
date printed once over several rows that a text column right of the figures tells apart.

1984-06 p75 (Table FCP-IV-1, Nonbanking Firms' Positions) prints a report date per row
and, right of the figures, where the position is held ("Position held in:"). A month end
is one row ("United States"); a quarter end is three, the date on the first only:
"9/30/83" over the rows "Abroad", "United States" and, below a rule, "Worldwide". The
rows under the date are positions on that date, told apart only by the text column:
each is named "9/30/83 (Abroad)", "9/30/83 (United States)", "9/30/83 (Worldwide)".
OCR read the last date "12/30/83" as "2/30/83", its "1" as a stop on the line below.
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from statistics import median
from typing import Any

from pipeline.tables.lexicon import Lexicon
from pipeline.tables.stub_periods import debris_label

_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})$")
_TEXT_ENTRY = re.compile(r"^[A-Za-z][A-Za-z .,'-]*$")


def report_dates(
    labels: list[str], body: list[Any], columns: list[Any], height: float, lexicon: Lexicon | None
) -> list[str]:
    """``labels`` with a date that lost a digit restored (:func:`restore_lost_digit`) and
    the rows of a date printed over several rows named by the text column
    (:func:`name_date_groups`)."""
    texts = text_column(body, columns, height)
    if lexicon is not None:
        texts = [lexicon.correct(t)[0] if t else t for t in texts]
    return name_date_groups(restore_lost_digit(labels), texts)


def _read(label: str | None) -> date | None:
    m = _DATE.match((label or "").strip())
    if not m:
        return None
    month, day, year = (int(g) for g in m.groups())
    if year < 100:
        year += 1900 if year >= 50 else 2000
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        return None
    return date(year, month, day)


def restore_lost_digit(labels: list[str]) -> list[str]:
    """A date row that names no day ("2/30/83") restored by the one digit OCR lost, where
    exactly one digit put anywhere in it makes a day that falls in its run: after the
    date row above and before the one below, no further from its neighbour than the
    widest step between the run's other dates (monthly rows: "11/30/83" then "2/30/83"
    is "12/30/83", 1984-06 p75). Anything else is left as read."""
    dates = [_read(lb) for lb in labels]
    out = list(labels)
    known = [d for d in dates if d is not None]
    steps = [(b - a).days for a, b in zip(known, known[1:], strict=False)]
    if len(known) < 3 or any(s <= 0 for s in steps):
        return out  # no ascending run of dates to place a row in
    widest = max(steps)
    for i, label in enumerate(labels):
        text = (label or "").strip()
        if dates[i] is not None or not _DATE.match(text):
            continue
        before = next((d for d in reversed(dates[:i]) if d is not None), None)
        after = next((d for d in dates[i + 1 :] if d is not None), None)
        fits = set()
        for k in range(len(text) + 1):
            for digit in "0123456789":
                candidate = text[:k] + digit + text[k:]
                d = _read(candidate)
                if d is None:
                    continue
                if before is not None and not 0 < (d - before).days <= widest:
                    continue
                if after is not None and not 0 < (after - d).days <= widest:
                    continue
                fits.add((d, candidate))
        if len({d for d, _ in fits}) == 1:
            out[i] = label.replace(text, min(c for _, c in fits))
    return out


def text_column(body: list[Any], columns: list[Any], height: float) -> list[str]:
    """Per body row, the words it prints in a column of text right of the last figure
    column ("Abroad", "United States", "Worldwide"), or "". A column is one when at least
    three rows print words there starting at one x (within a text height)."""
    edge = columns[-1].x1 + 0.5 * height
    entries = [[c for c in row.values if c.x0 > edge and not c.is_number] for row in body]
    starts = [min(c.x0 for c in words) for words in entries if words]
    if len(starts) < 3:
        return [""] * len(body)
    x = median(starts)
    if sum(abs(s - x) <= height for s in starts) < 0.8 * len(starts):
        return [""] * len(body)
    out = []
    for words in entries:
        text = " ".join(c.text for c in sorted(words, key=lambda c: c.x0))
        at_column = bool(words) and abs(min(c.x0 for c in words) - x) <= height
        out.append(text if at_column and _TEXT_ENTRY.match(text) else "")
    return out


def name_date_groups(labels: list[str], texts: list[str]) -> list[str]:
    """A date row followed by rows whose stub is blank (or OCR debris), each row printing
    an entry of the text column and no two the same: the date is printed once for the
    group, and each row is named by it and its entry ("9/30/83 (Abroad)"). A blank row
    without an entry, or repeating one of its group, is no row of that date: the group
    then stays as read (a blank stub may be a total over dates)."""
    out = list(labels)
    i = 0
    while i < len(labels):
        if _read(labels[i]) is None or not texts[i]:
            i += 1
            continue
        j = i + 1
        while j < len(labels) and _blank(labels[j]) and texts[j]:
            j += 1
        blank_rest = j < len(labels) and _blank(labels[j])  # a blank row without its entry
        group = texts[i:j]
        if j - i >= 2 and len(set(group)) == len(group) and not blank_rest:
            date_text = labels[i].strip()
            for k in range(i, j):
                out[k] = f"{date_text} ({texts[k]})"
        i = j
    return out


def _blank(label: str | None) -> bool:
    return not (label or "").strip() or debris_label(label or "")
