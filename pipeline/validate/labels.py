"""Is a row or column label readable enough to name in a question?

OCR of faded print turns some labels into noise ("E869 00 0000000", "Rural
Administration..........6+"). A question that names such a label cannot be answered
by reading the page, so the validation rejects it (rule ``unreadable_label``). The
test is deliberately conservative: it rejects glyph noise, not misspellings.
"""

from __future__ import annotations

import re

from pipeline.tables.periods import NOT_A_PERIOD, parse_period

ALLOWED = re.compile(r"^[A-Za-z0-9 .,\-/()&'%$:;+*]+$")
REPEATED = re.compile(r"([^\s])\1\1")  # three of the same glyph: leaders, rules, "000"
MIXED = re.compile(r"[A-Za-z][0-9]|[0-9][A-Za-z]")
# Tokens that legitimately mix letters and digits.
MIXED_OK = re.compile(r"^(\d+(st|nd|rd|th|s)|(FY|Q|H)\d{1,4}|\d{1,2}/|\d{4}r?)[.,;:)]?$", re.I)
PERIOD = re.compile(
    r"^((fiscal|calendar) years?\s*)?"
    r"(FY\s?\d{2,4}|\d{4}(\s*[-/]\s*\d{2,4})?|[A-Z][a-z]{2,8}\.?\s*\d{0,4})\s*[r*]?$"
)


def label_problem(label: str | None) -> str | None:
    """Why ``label`` is unreadable, or None when it reads as a label.

    Each level of a header path (" / ") is tested: only ordinary label characters;
    no glyph repeated three times; no token mixing letters and digits (except
    ordinals, fiscal-year and quarter names, footnote marks); at least half of the
    characters letters, unless the level is a period ("1948", "1947-48", "June 1939").
    """
    if label is None or not label.strip():
        return "empty label"
    for level in (part.strip() for part in label.split(" / ")):
        if not level:
            return "empty header level"
        if not ALLOWED.match(level):
            return f"unexpected characters in {level!r}"
        if REPEATED.search(level):
            return f"repeated glyphs in {level!r}"
        bad = [t for t in level.split() if MIXED.search(t) and not MIXED_OK.match(t)]
        if bad:
            return f"letters and digits mixed in {bad[0]!r}"
        if PERIOD.match(level) or parse_period(level) not in (None, NOT_A_PERIOD):
            continue
        chars = [c for c in level if not c.isspace()]
        if sum(c.isalpha() for c in chars) < 0.5 * len(chars):
            return f"too few letters in {level!r}"
    return None
