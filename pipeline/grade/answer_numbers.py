"""Numbers in one cleaned piece of a response, and the numbers that are not answers.

Used by ``answers.py``; the rules and their rationale are in that module's docstring.
Every pattern is linear in its input: alternatives never overlap inside a repetition,
two quantifiers that could match the same blanks are never adjacent (``\\s*(?:,\\s*)?``,
not ``\\s*,?\\s*``), and lookarounds are bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from pipeline.grade.answer_text import blank

# A number longer than this is not read: no answer key has 60 digits, and reading one
# would cost time for nothing (``unreadable_format``).
MAX_NUMBER_CHARS = 60


@dataclass(frozen=True)
class NumberToken:
    """One number found in a line, with its sign applied and what marks it as an amount."""

    value: Decimal
    start: int  # where its sign, parenthesis or currency sign starts
    end: int
    currency: bool
    percent: bool
    separators: bool  # thousands separator or decimal point
    digits_start: int = -1  # where its first digit (or decimal point) is
    text: str = ""  # the number as written, without sign or currency

    @property
    def is_amount(self) -> bool:
        return (self.currency or self.percent or self.separators) and not is_year(self)


_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.,'\u2019])(?<![A-Za-z]-)"
    r"(?:[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?"
    r"|[0-9]{1,3}(?:['\u2019][0-9]{3})+(?:\.[0-9]+)?"
    r"|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
    r"(?![0-9])"
)
_PREFIX = re.compile(
    r"(?P<open>\( ?)?(?P<sign1>[-+])?(?P<cur>(?:US\$|USD|EUR|GBP|\$|\u20ac|\u00a3|\u00a5) ?)?"
    r"(?P<sign2>[-+])?\Z"
)
_PERCENT = re.compile(r" ?(?:%|percent\b|per cent\b)", re.IGNORECASE)
_CLOSE = re.compile(r" ?(?:%|percent\b)? ?\)", re.IGNORECASE)
# "1,234.56-": a minus printed after the number (accounting print), not followed by
# another number ("4,500-4,600" is a range)
_TRAILING_MINUS = re.compile(r"-(?=[ .,;:)\]!?*]|$)(?! ?[-+0-9$\u20ac\u00a3\u00a5.])")


def numbers(line: str) -> list[NumberToken]:
    """Every number of a line with its sign, in reading order.

    Accepts ``2,602``, ``1'234'567``, ``$7,046,001.98``, ``9.89%``, ``-0.119``, ``.5``,
    ``-$5``, ``$-5``, ``(1,234)``, ``($1,234)``, ``1,234.56-`` and ``minus 1,412``. A
    number glued to letters or an underscore (``c07``, ``FY1941``, ``Q3``) or to a
    ``letter-`` prefix (``FD-1``) is an identifier, not a number. The sign comes from
    :func:`_is_negative` and :func:`_signed_by_word`.
    """
    tokens = []
    for match in _NUMBER.finditer(line):
        body = match.group(0)
        start, end = match.span()
        prefix = _PREFIX.search(line, max(0, start - 10), start)
        negative, currency = _is_negative(line, prefix, end)
        begins = prefix.start() if prefix and prefix.group(0) else start
        if not negative and begins == start and _signed_by_word(line, start):
            negative = True
        if len(body) > MAX_NUMBER_CHARS:
            value = Decimal(0)  # never read: unreadable_format() reports it
        else:
            value = Decimal(body.replace(",", "").replace("'", "").replace("\u2019", ""))
        tokens.append(
            NumberToken(
                value=-value if negative else value,
                start=begins,
                end=end,
                currency=currency,
                percent=_PERCENT.match(line, end) is not None,
                separators=any(mark in body for mark in ",.'\u2019"),
                digits_start=start,
                text=body,
            )
        )
    return tokens


_SIGN_WORD = re.compile(r"\b(?:minus|negative) \Z", re.IGNORECASE)


def _signed_by_word(line: str, start: int) -> bool:
    """True for "minus 1,412" or "negative 1,412", but not "5,000 minus 1,412" (a difference)."""
    word = _SIGN_WORD.search(line[max(0, start - 10) : start])
    if word is None:
        return False
    before = line[: start - len(word.group(0))].rstrip()
    return not before or before[-1] not in "0123456789)%"


def _is_negative(line: str, prefix: re.Match[str] | None, end: int) -> tuple[bool, bool]:
    """Whether a number reads negative, and whether a currency sign precedes it.

    Negative: a dash glued to the number or to its currency sign (``-5``, ``-$5``,
    ``$-5``) unless the dash follows a letter or digit (``10-20`` is a range, ``FY-5`` a
    name); accounting parentheses around the number alone (``(1,234)``, ``($5)``,
    ``(9.8%)``); or a trailing minus glued after it (``1,234.56-``) that no number
    follows. A dash with a space before the number (``- 5``) is punctuation.
    """
    negative = currency = False
    sign_before = False
    if prefix is not None:
        currency = prefix.group("cur") is not None
        negative = prefix.group("sign2") == "-"
        if prefix.group("sign1") == "-":
            at = prefix.start("sign1")
            before = prefix.string[at - 1] if at > 0 else " "
            negative = negative or not (before.isalnum() or before in "_.,")
        sign_before = prefix.group("sign1") is not None or prefix.group("sign2") is not None
        if prefix.group("open") and _CLOSE.match(line, end):
            negative = True
    if not sign_before and not negative and _TRAILING_MINUS.match(line, end):
        negative = True
    return negative, currency


def is_year(token: NumberToken) -> bool:
    """A plain four-digit integer from 1700 to 2100 with no sign, currency or percent."""
    value = token.value
    return (
        not (token.currency or token.percent or token.separators)
        and value == value.to_integral_value()
        and 1700 <= value <= 2100
    )


# --- formats the grader does not read -------------------------------------------------

_UNREADABLE_AFTER = (
    ("scientific notation", re.compile(r"[eE][-+]?[0-9]")),
    ("scientific notation", re.compile(r" ?x ?10 ?(?:\^|\*\*) ?[-+]?[0-9]")),
    ("scientific notation", re.compile(r" ?x ?10[\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u207b]")),
    ("decimal comma or irregular grouping", re.compile(r",[0-9]")),
    ("dots as thousands separators", re.compile(r"\.[0-9]")),
    ("apostrophes as thousands separators", re.compile(r"['\u2019][0-9]")),
    ("spaces as thousands separators", re.compile(r" [0-9]{3}(?![0-9])")),
)


def unreadable_format(line: str, token: NumberToken) -> str | None:
    """Why a number is written in a format the grader does not read, or None.

    Read on purpose as nothing rather than as a truncated number that could pass by
    accident: scientific notation (``4.6e9``, ``4.6 x 10^9``), decimal commas
    (``1.234,56``, ``3,5``), dots as thousands separators (``2.602.000``), plain spaces as
    thousands separators (``2 602``, only after a number of one to three digits with no
    separator of its own) and numbers longer than :data:`MAX_NUMBER_CHARS`.
    """
    if len(token.text) > MAX_NUMBER_CHARS:
        return "a number too long to be an answer"
    for reason, pattern in _UNREADABLE_AFTER:
        if reason.startswith("spaces") and (token.separators or len(token.text) > 3):
            continue
        if pattern.match(line, token.end):
            return reason
    return None


# --- scale words ----------------------------------------------------------------------

_SCALE_WORDS = {
    "thousand": 3,
    "k": 3,
    "million": 6,
    "mil": 6,
    "mln": 6,
    "mn": 6,
    "mm": 6,
    "m": 6,
    "billion": 9,
    "bn": 9,
    "bln": 9,
    "b": 9,
    "trillion": 12,
    "tn": 12,
}
_SCALE_AFTER = re.compile(
    r" ?(?:\( ?(?:in )?)?(?P<word>thousands?|millions?|billions?|trillions?|mil|mln|mn|mm|bn|bln"
    r"|tn|k|m|b)(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def scale_after(line: str, token: NumberToken) -> int | None:
    """The power of ten a scale word right after the number names (``4.6 billion`` -> 9).

    Accepts the words, their plurals and the usual abbreviations (``$5M``, ``845 bn``,
    ``12k``), also in parentheses (``640 (in millions of dollars)``). None when none.
    """
    match = _SCALE_AFTER.match(line, token.end)
    if match is None:
        return None
    word = match.group("word").lower()
    return _SCALE_WORDS[word.rstrip("s") if len(word) > 3 else word]


def task_scale(unit: object) -> int | None:
    """The power of ten of a task's unit (``millions of dollars`` -> 6), None if unknown.

    A unit that names no scale (``dollars``, ``percent``, ``number``) is 0; an empty or
    ``unknown`` unit is None, so no answer is checked against it.
    """
    if not isinstance(unit, str) or not unit.strip() or "unknown" in unit.lower():
        return None
    low = unit.lower()
    for word in ("trillion", "billion", "million", "thousand"):
        if word in low:
            return _SCALE_WORDS[word]
    return 0


# --- numbers that are not answers -----------------------------------------------------

_REFERENCE_ID = r"(?:[a-z]{1,4}-)?[0-9]+(?:\.[0-9]+)*[a-z]?(?![0-9]|,[0-9]{3})"
_REFERENCE = re.compile(
    r"\b(?:pages?|pp?\.|tables?|lines?|rows?|columns?|cols?\.?|exhibits?|schedules?|sections?"
    r"|figures?|figs?\.|charts?|notes?|footnotes?|appendix|appendices|volumes?|vols?\.|no\."
    r"|nos\.|items?|parts?|chapters?|sheets?|cells?|steps?)"
    rf" ?(?:[#:] ?)?{_REFERENCE_ID}(?: ?(?:-|to|through|and|&) ?{_REFERENCE_ID})*",
    re.IGNORECASE,
)


def drop_references(line: str) -> str:
    """Blank out numbers after page/table/line-like words (``page 43-47``, ``Table FD-1``).

    They locate the answer; they are not it. A number with a thousands separator after
    such a word (``line 1,234``) is kept: references are small integers.
    """
    return _REFERENCE.sub(blank, line)


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_YEAR = r"'?(?:1[7-9][0-9]{2}|20[0-9]{2}|2100)(?![0-9]|[.,][0-9])"
_YEAR_RANGE = r"(?: ?(?:-|/|to|through|and|&) ?(?:[0-9]{4}|[0-9]{2})(?![0-9]|[.,][0-9]))*"
_DAY = r"[0-9]{1,2}(?:st|nd|rd|th)?(?![0-9]|[.,][0-9])"
_DATE = re.compile(
    rf"\b{_MONTH} {_DAY}(?: ?(?:, ?)?{_YEAR}{_YEAR_RANGE})?"
    rf"|\b[0-9]{{1,2}} {_MONTH}(?: ?(?:, ?)?{_YEAR})?"
    rf"|\b{_MONTH} ?(?:, ?)?{_YEAR}{_YEAR_RANGE}"
    r"|\b[0-9]{1,2}/[0-9]{1,2}/(?:[0-9]{4}|[0-9]{2})\b"
    r"|\b[0-9]{4}-[0-9]{2}-[0-9]{2}\b",
    re.IGNORECASE,
)
_YEAR_AFTER_WORD = re.compile(
    r"\b(?:fiscal years?|fiscal|fy|calendar years?|cy|years?|in|for|during|since|through"
    rf"|until|ended|ending|as of|between|q[1-4]|h[12]) {_YEAR}{_YEAR_RANGE}",
    re.IGNORECASE,
)
# "1941-42", "1941/1942": a span of years is a period, never an amount
_YEAR_SPAN = re.compile(
    rf"(?<![0-9.,$]){_YEAR} ?[-/] ?(?:1[7-9][0-9]{{2}}|20[0-9]{{2}}|[0-9]{{2}})(?![0-9]|[.,][0-9])"
)


def drop_dates_and_years(line: str) -> str:
    """Blank out dates, spans of years and years named as periods.

    Accepts month-day(-year), day-month(-year), month-year, ``6/30/1941``, ISO dates,
    ``1941-42`` and a year after fiscal year/FY/in/for/during/as of/... A bare year with
    no such word is kept: it may be the answer (it is skipped later only when an amount
    follows it, ``answers._skip_year_labels``).
    """
    line = _YEAR_SPAN.sub(blank, _DATE.sub(blank, line))
    return _YEAR_AFTER_WORD.sub(blank, line)


def mask(line: str) -> str:
    """A cleaned line with references, dates and period years blanked (same length)."""
    return drop_dates_and_years(drop_references(line))
