"""Estimate rows of a year stub: "1948 (Estimated)", "1954 (Est.)", "1968 (Est.)".

A budget table of the 1940s-1960s bulletins prints its actual fiscal years, then the
budget's estimates for the year in progress and the next one, then the months of the
year in progress (1948-05 p18: 1940 ... 1947, "1948 (Estimated)", "1949 (Estimated)",
"1947-July" ...). An estimate is never of a year the stub already prints as closed: that
order is what lets a misread year be told from the year it stands for.
"""

from __future__ import annotations

import re

from rapidfuzz.distance import Levenshtein

from pipeline.tables.lexicon import SLIP_COST, slip_cost
from pipeline.tables.periods import NOT_A_PERIOD, Period
from pipeline.tables.row_order import ANNUAL_ROW
from pipeline.tables.stub_periods import one_digit_off

# a year with a word in parentheses after it: "1943 (Estimated)", "1954 (Est.)"
_QUALIFIED_YEAR = re.compile(r"^(\W*)((?:18|19|20)\d\d)(\s*\(\s*[A-Za-z].*)$")
_ANNUAL_KINDS = ("fiscal_year", "calendar_year", "year")
# the budget estimates the year in progress and the year after it
MAX_YEARS_AHEAD = 2
# a year with a word in parentheses after it, on any line of the page ("1954 (Est.)")
_YEAR_AND_WORD = re.compile(r"\b((?:18|19|20)\d\d)\s*\(\s*([A-Za-z]{3,12})\.?\s*\)")
# a qualifier in parentheses, however OCR garbled it: "(Ket.)", "(Zetiaated)"
_QUALIFIER = re.compile(r"^\(\s*([A-Za-z]{3,12})\.?\s*\)?\W*$")
MAX_MARK_EDITS = 2


def page_estimate_marks(texts: list[str]) -> dict[int, str]:
    """Year -> the estimate mark a line of the page prints after it, read right or
    with the typewriter "s" read as "e" (a look-alike, ``lexicon.slip_cost``): "1954" ->
    "(Est.)" from Table 3's "1954 (Eet.)", 1953-09 p16."""
    marks: dict[int, str] = {}
    for text in texts:
        for m in _YEAR_AND_WORD.finditer(text or ""):
            word = m.group(2).lower()
            for mark in ("est", "estimated"):
                if slip_cost(word, mark) <= SLIP_COST:
                    marks.setdefault(int(m.group(1)), "(Est.)" if mark == "est" else "(Estimated)")
    return marks


def restore_estimate_marks(labels: list[str], marks: dict[int, str]) -> list[str]:
    """A year row whose qualifier OCR garbled ("1954 (Ket.)", Table 4 of 1953-09 p16)
    where another stub of the page prints the same year with an estimate mark read
    right ("1954 (Est.)", Table 3 above it, the two tables' stubs set alike) and the
    garbled word is within ``MAX_MARK_EDITS`` letters of that mark: the mark. Alone,
    "(Ket.)" may be any short word (the period reader makes such a row no period); a
    qualifier far from the mark ("(Bonds)", "(Notes)") is another word and stays."""
    out = list(labels)
    for i, label in enumerate(labels):
        m = _QUALIFIED_YEAR.match(label or "")
        if not m or int(m.group(2)) not in marks:
            continue
        mark = marks[int(m.group(2))]
        word = _QUALIFIER.match(m.group(3).strip())
        if not word or _tail(word.group(1)) == _tail(mark):
            continue
        if Levenshtein.distance(word.group(1).lower(), _tail(mark)) <= MAX_MARK_EDITS:
            out[i] = f"{m.group(1)}{m.group(2)} {mark}"
    return out


def _tail(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def restore_estimate_years(labels: list[str]) -> list[str]:
    """A qualified year row standing between the rows of the years before and after
    its place, whose year is one digit off the year between them and whose qualifier
    one of them prints too, is that year: 1948-05 p18 read "1943 (Estimated)" between
    "1947" and "1949 (Estimated)" (the typewriter 8 taken for a 3), and no year but
    1948 stands between 1947 and 1949 in a stub that runs a year a row. A row with
    another qualifier, or more than one digit off, is left as read (and the order
    check below finds it no period)."""
    out = list(labels)
    for i in range(1, len(labels) - 1):
        m = _QUALIFIED_YEAR.match(labels[i] or "")
        above = ANNUAL_ROW.match(labels[i - 1] or "")
        below = ANNUAL_ROW.match(labels[i + 1] or "")
        if not (m and above and below):
            continue
        year, before, after = int(m.group(2)), int(above.group(1)), int(below.group(1))
        if after - before != 2 or year == before + 1 or not one_digit_off(year, before + 1):
            continue
        tail = _tail(m.group(3))
        if tail not in (_tail(labels[i - 1][above.end() :]), _tail(labels[i + 1][below.end() :])):
            continue
        out[i] = f"{m.group(1)}{before + 1}{m.group(3)}"
    return out


def restore_estimate_rows(labels: list[str], marks: dict[int, str]) -> list[str]:
    """The stub's estimate rows with their garbled marks and misread years restored
    (``restore_estimate_marks``, then ``restore_estimate_years``)."""
    return restore_estimate_years(restore_estimate_marks(labels, marks))


def estimates_after_actuals(periods: list[Period | None]) -> list[Period | None]:
    """An estimate row read as of a year at or before the last actual year the stub
    prints above it, or more than ``MAX_YEARS_AHEAD`` years past it, took a misread
    year ("1943 (Estimated)" under 1940 ... 1947, 1948-05 p18): it names no period.
    Estimates with no actual year above them (a stub running newest first, a table of
    estimates alone) are left as read."""
    out = list(periods)
    last: int | None = None
    for i, p in enumerate(periods):
        if p is None or p is NOT_A_PERIOD or p.end is None:
            continue
        if p.kind in _ANNUAL_KINDS:
            last = p.end.year if last is None else max(last, p.end.year)
        elif p.kind == "estimate" and last is not None:
            if not last < p.end.year <= last + MAX_YEARS_AHEAD:
                out[i] = NOT_A_PERIOD
    return out
