"""Which unit a table's figures are printed in, and where the page says so.

The unit is printed in a unit line under the title ("(In millions of dollars)",
"[Position at end of period in millions of dollars]"), inside the title, in a column
head ("Amount (in thousands)"), or once at the head of the page for every table on it.
:func:`read_unit` reads one piece of text (OCR-tolerant); :func:`table_unit` looks in
those places in that order. A table whose page prints no unit has unit ``unknown`` and
no multiplier: a unit is never assumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_SCALE = r"(thousand|million|billion)s?"
_PATTERNS = (
    # "in millions of dollars", "millions of dollars", "thousands of dollars"
    (re.compile(rf"\b{_SCALE}\s+of\s+dollars\b", re.I), "{s}s of dollars"),
    # "in millions of euros", "billions of Japanese yen", "millions of ounces"
    (
        re.compile(rf"\b{_SCALE}\s+of\s+([a-z]+(?:\s+(?:or|and)\s+[a-z]+|\s+[a-z]+)?)\b", re.I),
        "{s}s of {what}",
    ),
    # "dollars in millions", "dollar amounts in thousands"
    (re.compile(rf"\bdollars?(?:\s+amounts?)?\s+in\s+{_SCALE}\b", re.I), "{s}s of dollars"),
    # "(in millions)", "par value in billions"
    (re.compile(rf"\bin\s+{_SCALE}\b", re.I), "{s}s"),
    (re.compile(r"\bin\s+dollars\b", re.I), "dollars"),
    (re.compile(r"^\W*(in\s+)?percent(ages?)?\W*$", re.I), "percent"),
)


@dataclass(frozen=True)
class Unit:
    """A table's unit: the words a question uses, the scale, and where it was printed."""

    words: str  # "millions of dollars", "thousands", "dollars", "percent", "unknown"
    multiplier: int | None  # 1_000_000 for millions; None when unknown
    source: str  # title | unit_line | column_head | page_head | none
    printed: str = ""  # the printed text the unit was read from

    @property
    def known(self) -> bool:
        return self.multiplier is not None


UNKNOWN = Unit("unknown", None, "none")


def read_unit(text: str) -> tuple[str, int | None] | None:
    """The unit named in ``text`` as (words, multiplier), or None when it names none.

    The multiplier is None for a unit line that names two units ("In millions of ounces
    or dollars"): the unit then depends on the column, and no question may assume one.
    """
    low = " ".join((text or "").split())
    if not low:
        return None
    for pattern, words in _PATTERNS:
        m = pattern.search(low)
        if m:
            if words in ("dollars", "percent"):
                return words, 1
            scale = m.group(1).lower()
            what = m.group(2) if m.lastindex and m.lastindex >= 2 else ""
            if re.search(r"\s(or|and)\s", what):
                # "millions of ounces or dollars": the unit depends on the column
                return words.format(s=scale, what=what), None
            if fuzz.ratio(what.lower(), "dollars") >= 80:
                what = "dollars"  # OCR: "dollare", "dollara"
            return words.format(s=scale, what=what), _SCALES[scale]
    head = re.match(r"^(.{0,40}?\bdoll[a-z]*)", low, re.IGNORECASE)
    if head is not None:
        # an OCR-damaged unit line ("(In millioas of dollare)", "(Ia millicas of dollars
        # - on basis of daily Treasury statements)"): the scale word itself must be there
        # before "dollars", nearly spelled (or its first four letters and most of the
        # rest); "of dollars" alone names no scale
        scales = [
            (scale, fuzz.ratio(token, f"{scale}s") + (10 if token[:4] == scale[:4] else 0))
            for token in re.findall(r"[a-z]+", head.group(1).lower())
            for scale in _SCALES
        ]
        best = max(scales, key=lambda t: t[1], default=None)
        if best is not None and best[1] >= 80:
            return f"{best[0]}s of dollars", _SCALES[best[0]]
    return None


def is_unit_line(text: str) -> bool:
    """A short line that only states a unit (it may carry a period or a source, too)."""
    stripped = " ".join((text or "").split())
    if not stripped or read_unit(stripped) is None:
        return False
    opens = stripped[0] in "([" or stripped.lower().startswith(
        ("in ", "dollar", "amount", "position", "par value", "thousand", "million", "billion")
    )
    # a long unit line carries a note ("In millions of dollars; negative figures ...")
    return opens and (len(stripped) <= 110 or read_unit(stripped[:40]) is not None)


def table_unit(
    title: str,
    unit_lines: list[str],
    column_heads: list[str],
    page_head: list[str],
) -> Unit:
    """The table's unit from, in order: its unit line, its title, its column heads (when
    every head names the same unit), the head of its page."""
    for line in unit_lines:
        found = read_unit(line)
        if found:
            return Unit(*found, "unit_line", line.strip())
    found = read_unit(title)
    if found:
        return Unit(*found, "title", title.strip())
    # a unit in the heads counts only when every value column's head names it (a
    # spanner over them all): "Per capita (in dollars)" over one column says nothing
    # of the columns beside it
    read = [read_unit(h) for h in column_heads]
    heads = set(read) - {None}
    if len(heads) == 1 and all(r is not None for r in read):
        words, multiplier = heads.pop()
        return Unit(words, multiplier, "column_head", words)
    for line in page_head:
        found = read_unit(line)
        if found:
            return Unit(*found, "page_head", line.strip())
    return UNKNOWN
