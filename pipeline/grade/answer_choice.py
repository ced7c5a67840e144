"""Which number of a piece of a response answers, and whether the response declines.

Used by ``answers.py`` (rules 10-15 and 18 of its docstring): Markdown table rows, equation
results, year labels, ranges and alternatives, correction lines and abstention wording.
Every pattern is linear and is only given one bounded piece (``answers.MAX_LINE_CHARS``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from decimal import Decimal, InvalidOperation

from pipeline.grade.answer_numbers import NumberToken, is_year, mask, numbers
from pipeline.grade.answer_text import clean, is_blank

# --- wording --------------------------------------------------------------------------

ABSTENTION = re.compile(
    r"\bnot (?:be )?(?:available|determinable|determined|found|reported|provided|given"
    r"|disclosed|possible|present|listed|shown|stated|answerable|published|established"
    r"|verifiable|identifiable)\b"
    r"|\b(?:cannot|can ?not|can't|could ?not|couldn't) (?:be )?(?:determined?|computed?"
    r"|calculated?|found|find|answer(?:ed)?|locate[d]?|identif(?:y|ied)|derived?|verif(?:y|ied)"
    r"|provide[d]?|establish(?:ed)?|confirm(?:ed)?|help|assist|give|say|tell)\b"
    r"|\bunable to\b|\bnot able to\b|\binsufficient\b|\bunknown\b|\bn/a\b|\bunanswerable\b"
    r"|\bindeterminable\b|\bno (?:data|answer|figure|value|number|information|way to)\b"
    r"|\b(?:does|do|did) ?(?:not|n't) (?:contain|include|report|provide|appear|exist|know|show)\b"
    r"|\b(?:does|do|did) ?(?:not|n't) have (?:enough|sufficient|access|the (?:data|figure|table))"
    r"|\bnone of the (?:tables?|pages?|documents?|files?|volumes?|sources?|reports?|bulletins?"
    r"|statements?|data|records?)\b"
    r"|\bnot in the (?:corpus|documents?|archive|files?)\b|\bnot enough\b"
    r"|\bimpossible to (?:determine|say|tell|know|answer|find)\b",
    re.IGNORECASE,
)
NONE_ANSWER = re.compile(r"\W*(?:none|nothing|no answer|not applicable)\W*", re.IGNORECASE)
_CONTRAST = re.compile(
    r"\b(?:but|however|though|although|nevertheless|nonetheless|still|that said|yet)\b",
    re.IGNORECASE,
)
CORRECTION = re.compile(
    r"should (?:have )?be(?:en)?\b|\binstead\b|\brather than\b|\bcorrect(?:ed|ion)\b"
    r"|\bactually\b|\b(?:revised|updated?|changed?) to\b|->|=>|\u2192|\u21d2|\u27f6|\u2794",
    re.IGNORECASE,
)
_SUPERSEDED = re.compile(
    r"\b(?:instead of|rather than|not|replacing|in place of|(?:changed|corrected) from|from)"
    r"[($\u20ac\u00a3+ -]*\Z",
    re.IGNORECASE,
)
_FILLERS = frozenset(
    "a about actually an answer approximately around at be comes correct could equal equals "
    "estimate estimated exactly figure final hence i is it just likely may maybe might my net "
    "now number of perhaps possibly probably really result roughly s should so the then "
    "therefore think thus to total value was will would".split()
)
_WORD = re.compile(r"[A-Za-z]+")
_EQUALS = re.compile(r"=(?![>=])|\u2248|\u2245")
_OPERATOR_GAP = re.compile(r"%? ?(?:[-+/x\u00f7]|\*) ?\(? ?[$\u20ac\u00a3\u00a5]?-?")
_RANGE_GAP = re.compile(
    r" ?(?:%|percent|(?:thousand|million|billion|trillion)s?|mn|bn|m|b|k)? ?\)?(?:, ?)?\(?"
    r" ?(?:either )?(?P<word>-|to|through|thru|or|and|~)"
    r" ?(?:(?:possibly|perhaps|maybe|about|approximately|roughly|around|even) )?"
    r"[$\u20ac\u00a3\u00a5]?[-+]?",
    re.IGNORECASE,
)
_BETWEEN = re.compile(r"\bbetween\b[^0-9]{0,12}\Z", re.IGNORECASE)
_FROM = re.compile(r"\bfrom\b[^0-9]{0,12}\Z", re.IGNORECASE)


def abstains_before(text: str, end: int) -> bool:
    """Abstention wording before ``end`` that no contrast ("but", "however") takes back."""
    last = None
    for match in ABSTENTION.finditer(text, 0, end):
        last = match
    return last is not None and _CONTRAST.search(text, last.end(), end) is None


def only_fillers(text: str) -> bool:
    """True when a short piece holds no words but fillers ("is approximately", "it's")."""
    return len(text) <= 80 and all(w.lower() in _FILLERS for w in _WORD.findall(text))


# --- which number of a piece answers --------------------------------------------------


def is_superseded(masked: str, token: NumberToken) -> bool:
    """On a correction line, a number right after "instead of"/"not"/"from" is the old one."""
    return _SUPERSEDED.search(masked, max(0, token.start - 30), token.start) is not None


def equation_result(masked: str, tokens: list[NumberToken]) -> NumberToken | None:
    """The result of an equation: the number after the last ``=`` with a number before it
    that is not itself the start of an expression (``4,600 (= 1,200 + 3,400)`` has none).

    Tokens are in reading order, so each ``=`` finds its neighbours by bisection: the work
    is linear in the piece however many ``=`` and numbers it holds."""
    starts = [t.start for t in tokens]
    for equals in reversed(list(_EQUALS.finditer(masked))):
        at = bisect_left(starts, equals.end())
        if at == len(tokens) or at == 0 or tokens[at - 1].end > equals.start():
            continue
        first = tokens[at]
        if not only_fillers(masked[equals.end() : first.start]):
            continue
        if at + 1 < len(tokens) and _OPERATOR_GAP.fullmatch(
            masked[first.end : tokens[at + 1].digits_start].strip()
        ):
            continue
        return first
    return None


def skip_year_labels(masked: str, tokens: list[NumberToken]) -> int:
    """How many leading years label the answer: each is skipped when an amount follows it
    or it is followed by a colon ("ANSWER 1941: 2,602", "The 1950 figure, 2,001.5")."""
    amount_after = [False] * (len(tokens) + 1)
    for index in range(len(tokens) - 1, -1, -1):
        amount_after[index] = amount_after[index + 1] or tokens[index].is_amount
    skipped = 0
    while skipped < len(tokens) - 1 and is_year(tokens[skipped]):
        year = tokens[skipped]
        colon = masked[year.end : year.end + 2].lstrip().startswith(":")
        if colon or amount_after[skipped + 1]:
            skipped += 1
        else:
            break
    return skipped


def ranges(masked: str, first: NumberToken, second: NumberToken) -> bool:
    """True when two neighbouring numbers form a range or alternatives ("4,500-4,600",
    "4.5 to 4.6 billion", "between 310 and 320", "1,482 or 1,428").

    A year and an amount never form one (``1944 - 45,159`` is a label and its value), nor a
    percent and a plain number ("rose 9.5% to 1,200"); "from X to Y" is a movement, not a
    range; "and" only after "between"; "or" between values a power of ten apart is a
    restatement.
    """
    gap = masked[first.end : second.digits_start]
    if len(gap) > 40 or is_year(first) != is_year(second) or (first.percent and not second.percent):
        return False
    match = _RANGE_GAP.fullmatch(gap)
    if match is None:
        return False
    word = match.group("word").lower()
    if word == "to" and _FROM.search(masked, max(0, first.start - 20), first.start):
        return False
    if word == "and":
        return _BETWEEN.search(masked, max(0, first.start - 20), first.start) is not None
    if word == "or":
        return not restated(first.value, second.value)
    return True


def restated(a: Decimal, b: Decimal) -> bool:
    """True when two values are the same amount in another scale (ratio a power of ten)."""
    if a == 0 or b == 0:
        return a == b
    ratio = abs(a / b)
    try:
        exponent = ratio.log10()
    except InvalidOperation:
        return False
    return exponent == exponent.to_integral_value()


def hedged(masked: str, tokens: list[NumberToken], chosen: NumberToken) -> bool:
    """True when the chosen number is one end of a range or one of alternatives."""
    at = tokens.index(chosen)
    before = tokens[at - 1] if at > 0 else None
    after = tokens[at + 1] if at + 1 < len(tokens) else None
    return (before is not None and ranges(masked, before, chosen)) or (
        after is not None and ranges(masked, chosen, after)
    )


def table_cells(raw: str) -> list[str] | None:
    """The cells of a Markdown table row (two or more non-blank cells), else None."""
    if "|" not in raw:
        return None
    cells = [cell for cell in raw.split("|") if not is_blank(clean(cell))]
    return cells if len(cells) >= 2 else None


def value_cell(cells: list[str]) -> str:
    """The value cell of a table row: the last with a number that is not a year, else the
    last with any number, else the last cell."""
    with_number = None
    for cell in reversed(cells):
        tokens = numbers(mask(clean(cell)))
        if any(not is_year(t) for t in tokens):
            return cell
        if tokens and with_number is None:
            with_number = cell
    return with_number if with_number is not None else cells[-1]
