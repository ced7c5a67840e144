"""Column heads that print a run of months ("Jan. Feb. Mar. ... Dec. Jan. Feb."), read
when OCR garbled some of the month words.

A month head line names one month a column, in calendar order. Tesseract often misreads
a few of them on the typewritten bulletins ("dan." "eb." "Jane" "Deo." "wov." for Jan.,
Feb., June, Dec., Nov.) and drops the spanner years over them. When most words of the
line read as the month their position in the run gives, and none reads as another
month, the run names every column between its first and last read month. Their years
come from what the page prints about the run: a full year printed over a part of the
run, or a period the title names whose months are exactly one part of the run ("...,
and first quarter, 1940" over the run's last "Jan. Feb. Mar."). A run whose years
nothing on the page gives names no period.
"""

from __future__ import annotations

import re

from pipeline.tables.headers import Column, _territories, _territory_of
from pipeline.tables.labels import _misread_month, _month_of
from pipeline.tables.lines import Line
from pipeline.tables.periods import MONTHS, Period, month_end, parse_period
from pipeline.tables.stub_periods import one_digit_off

_MONTH_NAMES = [m.capitalize() for m in MONTHS]
_YEAR = re.compile(r"^\W*((?:18|19|20)\d\d)\W*$")
_WORD = re.compile(r"^[A-Za-z]{2,5}\.?$")
# "Calendar years 1938 and 1939", "fiscal years 1938, 1939 and 1940"
_KIND_YEARS = re.compile(
    r"\b(calendar|fiscal)\s+years?\s+((?:(?:18|19|20)\d\d(?:\s*,\s*|\s+and\s+))*(?:18|19|20)\d\d)\b",
    re.IGNORECASE,
)
# a line that names periods in words ("Calendar Years 1938 and 1939, and first quarter,
# 1940") is a subtitle: its years stand where the words put them, over no column
_PROSE = re.compile(r"\b(and|quarter|through|ended|ending|months?)\b", re.IGNORECASE)
_PARTS = frozenset({"quarter", "year_to_date", "month"})
# the head of a column a month head run shows misread: it names no period
MISREAD = ""
_MIN_EXACT = 3  # month words read exactly in the run
_MIN_SHARE = 0.5  # of the run's columns whose word fits their month
# ... or this many words in the run each one slip from the month of its place, though
# none reads exactly ("Jen. eb. . May dune duly Ave. . dot. Bor. Deo. Jaa. . var.",
# 1940-05 p79, second panel): that many misreadings fall in calendar order by no chance
_MIN_FITS_ALONE = 8


def column_words(line: Line, columns: list[Column]) -> list[str | None]:
    """The word a head line prints over each value column (None: none, or several)."""
    bounds = _territories(columns)
    found: list[list[str]] = [[] for _ in columns]
    for chunk in line.chunks:
        words = chunk.text.split()
        lo = _territory_of(chunk.x0, bounds)
        hi = _territory_of(chunk.x1, bounds)
        if lo == hi or len(words) == 1:
            found[_territory_of((chunk.x0 + chunk.x1) / 2, bounds)] += words
        elif hi - lo + 1 == len(words):  # one word a column ("Sort. oct." over two)
            for k, w in enumerate(words):
                found[lo + k].append(w)
        elif all(_WORD.match(w) for w in words):
            # short words whose columns cannot be told ("Sort. oct." in a box over
            # three): unread, their columns take their months by position in a run
            for k in range(lo, hi + 1):
                found[k].append("")
        else:
            for k in range(lo, hi + 1):
                found[k].append("?")
    return [w[0] or None if len(w) == 1 else ("?" if "?" in w else None) for w in found]


def month_run(words: list[str | None]) -> list[int | None]:
    """Per column, the month (0-11) a month head run names, or None.

    The run is the stretch from the first to the last column whose word fits its
    position; inside it a column whose word was lost or misread past recognition takes
    its position's month. Every word in the stretch must be a short word (no year, no
    figure) that reads as no other month; at least three read exactly and at least half
    of the stretch fits. Columns outside the stretch ("Total", the year columns to its
    left) are no part of it.
    """
    n = len(words)
    best: tuple[int, int, int, int] | None = None  # (fits, start, end, offset)
    for offset in range(12):
        fit = [
            w is not None and _WORD.match(w) is not None
            and _misread_month(w, (offset + i) % 12) is not None
            for i, w in enumerate(words)
        ]  # fmt: skip
        # the longest stretch whose words all fit, are lost, or read as no month at all
        i = 0
        while i < n:
            if not fit[i]:
                i += 1
                continue
            j = i
            k = i
            while k + 1 < n and _fits_or_blank(words[k + 1], (offset + k + 1) % 12):
                k += 1
                if fit[k]:
                    j = k
            fits = sum(fit[i : j + 1])
            exact = sum(
                1 for t in range(i, j + 1)
                if words[t] and _month_of(words[t]) == (offset + t) % 12
            )  # fmt: skip
            size = j - i + 1
            if (exact >= _MIN_EXACT or fits >= _MIN_FITS_ALONE) and fits >= _MIN_SHARE * size:
                if best is None or fits > best[0]:
                    best = (fits, i, j, offset)
                elif fits == best[0] and (i, j) != best[1:3]:
                    best = (fits, -1, -1, -1)  # two readings fit as well: none
            i = j + 1
    if best is None or best[1] < 0:
        return [None] * n
    _, i, j, offset = best
    return [(offset + k) % 12 if i <= k <= j else None for k in range(n)]


def _fits_or_blank(word: str | None, month: int) -> bool:
    if word is None:
        return True
    if not _WORD.match(word):
        return False  # a year, a figure: the run ends
    exact = _month_of(word)
    return exact is None or exact == month


def _segments(months: list[int | None]) -> list[list[int]]:
    """Column indices of the run split where the months start a new year (Dec. -> Jan.)."""
    segs: list[list[int]] = []
    prev = None
    for c, m in enumerate(months):
        if m is None:
            continue
        if prev is None or m <= prev:
            segs.append([])
        segs[-1].append(c)
        prev = m
    return segs


_MONTH_ALT = r"(?:jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?"
# a part of a year named in words: "first quarter, 1940", "Jan.-Mar. 1940", "January
# through June 1940" (a whole year's twelve months stand in every year of a run alike)
_PART_OF_YEAR = re.compile(
    r"\b(?:(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter"
    rf"|{_MONTH_ALT}\s*(?:-|\u2013|\u2014|through|to)\s*{_MONTH_ALT})"
    r"[\s,.]*(?:of\s+)?(?:18|19|20)\d\d\b",
    re.IGNORECASE,
)


def _title_periods(texts: list[str]) -> list[Period]:
    """Parts of a year (a quarter, a span of months) named in the title and head lines."""
    out = []
    for text in texts:
        for m in _PART_OF_YEAR.finditer(text or ""):
            p = parse_period(m.group(0))
            if p is not None and p.kind in _PARTS and p.start and p.end:
                out.append(p)
    return out


def dated_month_run(
    months: list[int | None],
    spanner_years: list[tuple[int, float]],
    columns: list[Column],
    texts: list[str],
) -> list[str | None]:
    """The heads of a month head run with their years ("1939 / January"), when the page
    gives its years.

    ``spanner_years``: full years printed in the head lines above the run, with their x
    centre; one centred over a part of the run dates that part. ``texts``: the title and
    head lines; a period one of them names whose months are exactly a part's months
    ("first quarter, 1940" over "Jan. Feb. Mar.") dates that part. The parts follow each
    other a year apart; a reading that disagrees with another, or none, dates nothing.
    """
    segs = _segments(months)
    if not segs:
        return [None] * len(months)
    base: set[int] = set()  # the year of the first part, by each reading
    for k, seg in enumerate(segs):
        left, right = columns[seg[0]].x0, columns[seg[-1]].x1
        for year, x in spanner_years:
            if left <= x <= right:
                base.add(year - k)
        first, last = months[seg[0]], months[seg[-1]]
        for p in _title_periods(texts):
            if (
                p.start.year == p.end.year
                and p.start.month - 1 == first
                and p.end.month - 1 == last
                and p.start.day == 1
                and p.end == month_end(p.end.year, p.end.month)
            ):
                base.add(p.start.year - k)
    if len(base) != 1:
        return [None] * len(months)
    y0 = base.pop()
    out: list[str | None] = [None] * len(months)
    for k, seg in enumerate(segs):
        for c in seg:
            out[c] = f"{y0 + k} / {_MONTH_NAMES[months[c]]}"
    return out


def kind_of_years(texts: list[str]) -> dict[int, str]:
    """Years the title or heads name with their kind ("Calendar Years 1938 and 1939")."""
    out: dict[int, str] = {}
    for text in texts:
        for m in _KIND_YEARS.finditer(text or ""):
            kind = f"{m.group(1).lower()}_year"
            for y in re.findall(r"\d{4}", m.group(2)):
                if out.get(int(y), kind) != kind:
                    out[int(y)] = ""
                else:
                    out[int(y)] = kind
    return {y: k for y, k in out.items() if k}


def misread_month_under_year(label: str, parsed: Period | None, head: Period | None) -> bool:
    """A column head path whose last level is a month OCR garbled ("Hov.", "Deo.", "Oot.")
    right under its year spanner ("Number of vessels / 1939 / Hov.", 1941-01 p69): the
    path parses to the year alone, the month head run (``head``) to a month of that
    year, and the garbled word is a misreading of that very month: the run's month."""
    levels = [level.strip() for level in (label or "").split(" / ")]
    if (
        parsed is None
        or head is None
        or parsed.kind != "year"
        or head.kind != "month"
        or parsed.end is None
        or head.start is None
        or parsed.end.year != head.start.year
        or len(levels) < 2
        or not _YEAR.match(levels[-2])
        or int(_YEAR.match(levels[-2]).group(1)) != head.start.year
        or not _WORD.match(levels[-1])
    ):
        return False
    return _misread_month(levels[-1], head.start.month - 1) is not None


def spanner_text(line: Line) -> str:
    """A head line's text with its heads set apart: words a gutter apart (over two
    columns or more) are no phrase. "Calendar year" over the year columns and the
    "1939" over the month columns beside them read "Calendar year 1939" as one line
    (1941-01 p69): that names no year's kind, and 1938 under "Calendar year" is no
    misreading of it."""
    if not line.chunks:
        return ""
    heights = sorted(c.y1 - c.y0 for c in line.chunks)
    gutter = 1.5 * heights[len(heights) // 2]
    parts = [line.chunks[0].text]
    for prev, chunk in zip(line.chunks, line.chunks[1:], strict=False):
        parts.append((" | " if chunk.x0 - prev.x1 > gutter else " ") + chunk.text)
    return "".join(parts)


def month_run_heads(
    header_lines: list[Line], columns: list[Column], title: str, panel_texts: list[str] = ()
) -> list[str | None]:
    """Per value column, the head a month head run (and the year columns beside it) reads
    as ("1939 / January", "Calendar year 1938"), or None; the heads are parsed with the
    table's context (a stock table's months are month ends), for the columns whose own
    head paths OCR garbled past parsing. ``panel_texts``: for a second panel under the
    title of the table above, that table's preamble lines (its subtitle "Calendar Years
    1938 and 1939, and first quarter, 1940" is printed once, over both panels)."""
    out: list[str | None] = [None] * len(columns)
    if len(columns) < _MIN_EXACT:
        return out
    texts = [title, *panel_texts, *(line.text for line in header_lines)]
    for n, line in enumerate(header_lines):
        words = column_words(line, columns)
        months = month_run(words)
        if not any(m is not None for m in months):
            continue
        above = [
            (int(m.group(1)), (c.x0 + c.x1) / 2)
            for upper in header_lines[:n]
            if not _PROSE.search(upper.text)
            for c in upper.chunks
            if (m := _YEAR.match(c.text))
        ]
        out = dated_month_run(months, above, columns, texts)
        kinds = kind_of_years([title, *panel_texts, *(spanner_text(h) for h in header_lines)])
        dated = any(out)
        out = _named_year_slots(words, months, out, kinds)
        for c, w in enumerate(words):
            m = _YEAR.match(w or "")
            if out[c] is not None or months[c] is not None or not m:
                continue
            if int(m.group(1)) in kinds:
                out[c] = f"{kinds[int(m.group(1))].split('_')[0].capitalize()} year {m.group(1)}"
            elif kinds and dated:
                # a year the title does not name, beside a run the page dates: a
                # misreading ("1936" for the title's 1938, 1940-05 p79), no period
                out[c] = MISREAD
        break
    return out


# a year head OCR cut short after its century ("19%" for 1939): its first two digits
# and no other digit
_CUT_YEAR = re.compile(r"^\W*((?:18|19|20)\d?)[^\d\s]{1,2}\W*$")


def _named_year_slots(
    words: list[str | None], months: list[int | None], out: list[str | None], kinds: dict[int, str]
) -> list[str | None]:
    """The year columns left of a dated month run, read as the years the title names
    ("Calendar Years 1938 and 1939" over heads OCR read "1936", "19%", then "Jan."
    1939..., 1940-05 p79): as many headed columns left of the run as the title names years
    of one kind, every head read as its year in order (the year itself, one digit off it,
    or cut short after the century) and at least one read as a full year, the run not
    older than the last of them. Otherwise ``out`` unchanged."""
    run = [c for c, m in enumerate(months) if m is not None]
    if not run or out[run[0]] is None or len(set(kinds.values())) != 1:
        return out
    first_year = int(out[run[0]].split(" / ")[0])
    years = sorted(kinds)
    slots = [c for c in range(run[0]) if (words[c] or "").strip() and out[c] is None]
    if len(slots) != len(years) or years[-1] > first_year:
        return out
    full = 0
    for c, year in zip(slots, years, strict=True):
        w = words[c] or ""
        if (m := _YEAR.match(w)) is not None:
            if int(m.group(1)) != year and not one_digit_off(int(m.group(1)), year):
                return out
            full += 1
        elif not ((m := _CUT_YEAR.match(w)) and str(year).startswith(m.group(1))):
            return out
    if not full:
        return out
    kind = kinds[years[0]].split("_")[0].capitalize()
    out = list(out)
    for c, year in zip(slots, years, strict=True):
        out[c] = f"{kind} year {year}"
    return out
