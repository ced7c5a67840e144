"""The answer grader: read one number from an agent's response and check it against the key.

The rules follow ARCHITECTURE.md ("Grader") and appendix E of TreasuryQA Bench. Each rule
is a small named function below; the :class:`Verdict` names the rule that fired, so a
disputed grade can be traced to one function.

1. The answer line is the last line that starts with ``ANSWER`` or ``Final answer`` (any
   case, after Markdown/LaTeX wrappers). When it carries nothing, the next non-empty line
   is read instead (agents often put the number under the label).
2. Markdown and LaTeX wrappers are stripped; Unicode minus, a dash glued to a number or
   currency sign, and accounting parentheses read as negative.
3. Numbers are never rescaled by unit words ("1169.41 million" is 1169.41).
4. On the answer line, numbers in file names and links, numbers after page/table/line
   words, dates and years after words like "fiscal year" or "June 30" are dropped.
5. The first remaining number is the answer; the last one when the line declares a
   correction ("should be", "instead", an arrow), ignoring numbers after "instead of".
6. Abstention wording before the number makes the response an abstention.
7. Without an answer line, the last *amount* of the response is read: a number with a
   currency sign, decimal point, thousands separator or percent sign, not a year.
8. The attempt passes when the number lies in the task's inclusive interval.

Not read on purpose: decimal commas ("1.234,56"), scientific notation and fractions;
a plain space is never a thousands separator (only thin/no-break spaces and LaTeX ``\\,``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any

# The rules that can fire; a Verdict carries exactly one of them.
RULE_ANSWER_LINE = "answer_line"
RULE_ANSWER_NEXT_LINE = "answer_next_line"
RULE_CORRECTION = "answer_line_correction"
RULE_ANSWER_LINE_ABSTENTION = "answer_line_abstention"
RULE_ANSWER_LINE_NO_NUMBER = "answer_line_no_number"
RULE_LAST_AMOUNT = "last_amount"
RULE_RESPONSE_ABSTENTION = "response_abstention"
RULE_NO_NUMBER = "no_number"
RULES = (
    RULE_ANSWER_LINE,
    RULE_ANSWER_NEXT_LINE,
    RULE_CORRECTION,
    RULE_ANSWER_LINE_ABSTENTION,
    RULE_ANSWER_LINE_NO_NUMBER,
    RULE_LAST_AMOUNT,
    RULE_RESPONSE_ABSTENTION,
    RULE_NO_NUMBER,
)


@dataclass(frozen=True)
class Extraction:
    """The number read from a response, the rule that produced it and the text it read."""

    number: Decimal | None
    rule: str
    abstained: bool
    text: str


@dataclass(frozen=True)
class Verdict:
    """The grade of one response: the exact number read, the rule, pass and abstention."""

    number: Decimal | None
    rule: str
    passed: bool
    abstained: bool
    text: str


@dataclass(frozen=True)
class NumberToken:
    """One number found in a line, with its sign applied and what marks it as an amount."""

    value: Decimal
    start: int
    end: int
    currency: bool
    percent: bool
    separators: bool  # thousands separator or decimal point

    @property
    def is_amount(self) -> bool:
        return (self.currency or self.percent or self.separators) and not _is_year(self)


# --- normalisation --------------------------------------------------------------------

_DASHES = dict.fromkeys(map(ord, "\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d"), "-")
_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u2009\u202f\u2002\u2003\u2004\u2005\u2006"), " ")
_OTHER = {ord("\uff04"): "$", ord("\uff05"): "%", ord("\u200b"): "", ord("\ufeff"): ""}
_THIN_SEPARATOR = re.compile(r"(?<=[0-9])[\u00a0\u2009\u202f\u2007](?=[0-9]{3}(?![0-9]))")


def _normalize_characters(line: str) -> str:
    """Map every dash-like sign to ``-`` and odd spaces to `` ``.

    Accepts Unicode minus (U+2212), en/em dashes, fullwidth ``$``/``%`` and thin or
    no-break spaces. A thin/no-break space between digit groups is a thousands separator
    in typeset numbers ("7 046 001"), so it is removed rather than turned into a space.
    """
    line = _THIN_SEPARATOR.sub("", line)
    return line.translate(_DASHES).translate(_SPACES).translate(_OTHER)


_FILE_NAME = re.compile(
    r"(?<![\w.~/\\-])(?:[\w.~-]+[/\\])*[\w.~-]*\.(?:pdf|xlsx|xlsm|xls|csv|tsv|txt|json|jsonl"
    r"|parquet|png|jpe?g|tiff?|docx?|html?|md|py|zip|eml|msg)\b",
    re.IGNORECASE,
)
_LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


def _drop_file_names(line: str) -> str:
    """Blank out file names and links (``combined_statement__historical__cs-1941.pdf``).

    Agents are told to cite the volumes they used, often on the answer line; the years
    and numbers in those names are never the answer.
    """
    line = _LINK.sub(_blank, line)
    return _FILE_NAME.sub(_blank, line)


_LATEX_WRAPPER = re.compile(
    r"\\(?:boxed|text|textbf|textit|textrm|mathrm|mathbf|mathit|mbox|fbox|operatorname"
    r"|displaystyle|left|right|bigl?|bigr?|Bigl?|Bigr?)\b\s*"
)
_LATEX_THIN_SPACE = re.compile(r"(?<=[0-9])\\[,;:! ](?=[0-9]{3}(?![0-9]))")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+|\\[()\[\],;:! ]")


def _strip_latex(line: str) -> str:
    """Remove LaTeX wrappers: ``\\boxed{}``, ``\\text{}``, ``\\(...\\)``, ``$$``, ``{,}``.

    ``\\$`` and ``\\%`` become the plain signs, ``7{,}046`` and ``7\\,046`` become
    ``7,046`` and ``7046`` (LaTeX's ways to write thousands separators); other commands
    become spaces so they never glue two numbers together. A lone ``$`` stays: it reads
    as a currency sign, which is harmless around math (``$5$`` is 5).
    """
    if "\\" not in line and "{" not in line and "$$" not in line:
        return line
    line = line.replace("\\$", "$").replace("\\%", "%").replace("{,}", ",")
    line = _LATEX_THIN_SPACE.sub("", line)
    line = _LATEX_WRAPPER.sub("", line)
    line = _LATEX_COMMAND.sub(" ", line)
    line = re.sub(r"\${2,}", "$", line)
    return line.replace("{", "").replace("}", "")


_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
_EMPHASIS = re.compile(r"\*+|~~|`+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")


def _strip_markdown(line: str) -> str:
    """Remove Markdown emphasis, code ticks, table pipes and HTML tags.

    ``**ANSWER:** `2,602` `` reads as ``ANSWER: 2,602``. Headings, quotes and bullets at
    the start of a line are handled where the answer line is recognised.
    """
    line = _HTML_TAG.sub(" ", line)
    line = _EMPHASIS.sub("", line)
    return line.replace("|", " ")


def _clean_line(line: str) -> str:
    """One line with characters normalised, file names blanked and wrappers stripped.

    File names go first: stripping Markdown underscores would break them apart.
    """
    return _strip_markdown(_strip_latex(_drop_file_names(_normalize_characters(line))))


def _blank(match: re.Match[str]) -> str:
    """Replace a match by spaces of the same length so positions stay meaningful."""
    return " " * len(match.group(0))


# --- the answer line ------------------------------------------------------------------

_ANSWER_LINE = re.compile(
    r"^\s*(?:[>#]+\s*|[-+*\u2022]\s+|[0-9]{1,2}[.)]\s+)*(?:final\s+answer|answer)\b(?P<rest>.*)$",
    re.IGNORECASE,
)


def _find_answer_line(lines: list[str]) -> tuple[int, str] | None:
    """The index and text after the label of the last line starting with ANSWER/Final answer.

    Accepts ``ANSWER: x``, ``**Final Answer:** x``, ``### Answer - x``, ``> ANSWER x``.
    ``Answering ...`` is not an answer line (the label must end at a word boundary).
    """
    for index in range(len(lines) - 1, -1, -1):
        match = _ANSWER_LINE.match(lines[index])
        if match:
            return index, match.group("rest")
    return None


def _is_blank_answer(text: str) -> bool:
    """True when the answer line holds only punctuation (``ANSWER:`` with the number below)."""
    return not any(ch.isalnum() for ch in text)


# --- numbers --------------------------------------------------------------------------

_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.,])(?<![A-Za-z]-)"
    r"(?:[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
    r"(?![0-9])"
)
_PREFIX = re.compile(
    r"(?P<open>\(\s?)?(?P<sign1>[-+])?(?P<cur>(?:US\$|USD|EUR|GBP|\$|\u20ac|\u00a3|\u00a5)\s?)?"
    r"(?P<sign2>[-+])?\Z"
)
_PERCENT = re.compile(r"\s?(?:%|percent\b|per\s+cent\b)", re.IGNORECASE)
_CLOSE = re.compile(r"\s?(?:%|percent\b)?\s?\)", re.IGNORECASE)


def _numbers(line: str) -> list[NumberToken]:
    """Every number of a line with its sign, in reading order.

    Accepts ``2,602``, ``$7,046,001.98``, ``9.89%``, ``-0.119``, ``.5``, ``-$5``, ``$-5``,
    ``(1,234)`` and ``($1,234)``. A number glued to letters or an underscore (``c07``,
    ``FY1941``, ``Q3``) or to a ``letter-`` prefix (``FD-1``) is an identifier, not a
    number. The sign comes from :func:`_is_negative`.
    """
    tokens = []
    for match in _NUMBER.finditer(line):
        body = match.group(0)
        start, end = match.span()
        prefix = _PREFIX.search(line, max(0, start - 10), start)
        negative, currency = _is_negative(line, prefix, end)
        value = Decimal(body.replace(",", ""))
        percent = _PERCENT.match(line, end) is not None
        tokens.append(
            NumberToken(
                value=-value if negative else value,
                start=prefix.start() if prefix and prefix.group(0) else start,
                end=end,
                currency=currency,
                percent=percent,
                separators="," in body or "." in body,
            )
        )
    return tokens


def _is_negative(line: str, prefix: re.Match[str] | None, end: int) -> tuple[bool, bool]:
    """Whether a number reads negative, and whether a currency sign precedes it.

    Negative: a dash glued to the number or to its currency sign (``-5``, ``-$5``,
    ``$-5``) unless the dash follows a letter or digit (``10-20`` is a range, ``FY-5`` a
    name); or accounting parentheses around the number alone (``(1,234)``, ``($5)``,
    ``(9.8%)``). A dash with a space before the number (``- 5``) is punctuation.
    """
    if prefix is None:
        return False, False
    currency = prefix.group("cur") is not None
    negative = prefix.group("sign2") == "-"
    if prefix.group("sign1") == "-":
        before = prefix.string[prefix.start("sign1") - 1] if prefix.start("sign1") > 0 else " "
        negative = negative or not (before.isalnum() or before in "_.,")
    if prefix.group("open") and _CLOSE.match(line, end):
        negative = True
    return negative, currency


def _is_year(token: NumberToken) -> bool:
    """A plain four-digit integer from 1700 to 2100 with no sign, currency or percent."""
    value = token.value
    return (
        not (token.currency or token.percent or token.separators)
        and value == value.to_integral_value()
        and 1700 <= value <= 2100
    )


# --- numbers that are not answers -----------------------------------------------------

_REFERENCE_ID = r"(?:[a-z]{1,4}-)?[0-9]+(?:\.[0-9]+)*[a-z]?(?![0-9]|,[0-9]{3})"
_REFERENCE = re.compile(
    r"\b(?:pages?|pp?\.|tables?|lines?|rows?|columns?|cols?\.?|exhibits?|schedules?|sections?"
    r"|figures?|figs?\.|charts?|notes?|footnotes?|appendix|appendices|volumes?|vols?\.|no\."
    r"|nos\.|items?|parts?|chapters?|sheets?|cells?|steps?)"
    rf"\s*[#:]?\s*{_REFERENCE_ID}(?:\s*(?:-|to|through|and|&)\s*{_REFERENCE_ID})*",
    re.IGNORECASE,
)


def _drop_references(line: str) -> str:
    """Blank out numbers after page/table/line-like words (``page 43-47``, ``Table FD-1``).

    They locate the answer; they are not it. A number with a thousands separator after
    such a word (``line 1,234``) is kept: references are small integers.
    """
    return _REFERENCE.sub(_blank, line)


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_YEAR = r"'?(?:1[7-9][0-9]{2}|20[0-9]{2}|2100)(?![0-9]|[.,][0-9])"
_YEAR_RANGE = r"(?:\s*(?:-|/|to|through|and|&)\s*(?:[0-9]{4}|[0-9]{2})(?![0-9]|[.,][0-9]))*"
_DAY = r"[0-9]{1,2}(?:st|nd|rd|th)?(?![0-9]|[.,][0-9])"
_DATE = re.compile(
    rf"\b{_MONTH}\s+{_DAY}(?:\s*,?\s*{_YEAR}{_YEAR_RANGE})?"
    rf"|\b[0-9]{{1,2}}\s+{_MONTH}(?:\s*,?\s*{_YEAR})?"
    rf"|\b{_MONTH}\s*,?\s*{_YEAR}{_YEAR_RANGE}"
    r"|\b[0-9]{1,2}/[0-9]{1,2}/(?:[0-9]{4}|[0-9]{2})\b"
    r"|\b[0-9]{4}-[0-9]{2}-[0-9]{2}\b",
    re.IGNORECASE,
)
_YEAR_AFTER_WORD = re.compile(
    r"\b(?:fiscal\s+years?|fiscal|fy|calendar\s+years?|cy|years?|in|for|during|since|through"
    rf"|until|ended|ending|as\s+of|between|q[1-4]|h[12])\s+{_YEAR}{_YEAR_RANGE}",
    re.IGNORECASE,
)


def _drop_dates_and_years(line: str) -> str:
    """Blank out dates and years named as periods (``June 30, 1941``, ``fiscal year 1941-42``).

    Accepts month-day(-year), day-month(-year), month-year, ``6/30/1941``, ISO dates, and
    a year after fiscal year/FY/in/for/during/as of/... A bare year with no such word is
    kept: it may be the answer.
    """
    return _YEAR_AFTER_WORD.sub(_blank, _DATE.sub(_blank, line))


_CORRECTION = re.compile(
    r"should\s+(?:have\s+)?be(?:en)?\b|\binstead\b|\brather\s+than\b|\bcorrect(?:ed|ion)\b"
    r"|\bactually\b|\b(?:revised|updated?|changed?)\s+to\b|->|=>|\u2192|\u21d2|\u27f6|\u2794",
    re.IGNORECASE,
)
_SUPERSEDED = re.compile(
    r"\b(?:instead\s+of|rather\s+than|not|replacing|in\s+place\s+of|(?:changed|corrected)"
    r"\s+from|from)\s*[($\u20ac\u00a3+\s-]*\Z",
    re.IGNORECASE,
)


def _declares_correction(line: str) -> bool:
    """True when the line corrects itself: "should be", "instead", "actually", an arrow."""
    return _CORRECTION.search(line) is not None


def _is_superseded(line: str, token: NumberToken) -> bool:
    """On a correction line, a number right after "instead of"/"not"/"from" is the old one."""
    return _SUPERSEDED.search(line, max(0, token.start - 30), token.start) is not None


_ABSTENTION = re.compile(
    r"\bnot\s+(?:be\s+)?(?:available|determinable|determined|found|reported|provided|given"
    r"|disclosed|possible|present|listed|shown|stated|answerable|published)\b"
    r"|\bcannot\s+(?:be\s+)?(?:determined?|computed?|calculated?|found|find|answer(?:ed)?"
    r"|locate[d]?|identif(?:y|ied)|derived?|verif(?:y|ied)|provide[d]?)\b"
    r"|\bcan(?:'|\u2019)?t\s+(?:be\s+)?(?:determined?|computed?|calculated?|find|found|answer"
    r"|locate)\b|\bunable\s+to\b|\binsufficient\b|\bunknown\b|\bn/a\b|\bunanswerable\b"
    r"|\bindeterminable\b|\bno\s+(?:data|answer|figure|value|number|information)\b"
    r"|\b(?:does|do)\s*(?:not|n't|n\u2019t)\s+(?:contain|include|report|provide|appear|exist"
    r"|know)\b|\bnot\s+in\s+the\s+(?:corpus|documents?|archive|files?)\b|\bnot\s+enough\b",
    re.IGNORECASE,
)


def _abstains(text: str) -> bool:
    """True for wording that declines to answer ("not available", "cannot be determined")."""
    return _ABSTENTION.search(text) is not None


# --- reading a response ---------------------------------------------------------------


def _read_answer_line(text: str, rule: str) -> Extraction:
    """The first remaining number of the answer line (the last on a correction line)."""
    masked = _drop_dates_and_years(_drop_references(text))
    tokens = _numbers(masked)
    correction = _declares_correction(masked)
    if correction:
        tokens = [t for t in tokens if not _is_superseded(masked, t)]
    if not tokens:
        if _abstains(text):
            return Extraction(None, RULE_ANSWER_LINE_ABSTENTION, True, text)
        return Extraction(None, RULE_ANSWER_LINE_NO_NUMBER, False, text)
    chosen = tokens[-1] if correction else tokens[0]
    if _abstains(text[: chosen.start]):
        return Extraction(None, RULE_ANSWER_LINE_ABSTENTION, True, text)
    return Extraction(chosen.value, RULE_CORRECTION if correction else rule, False, text)


def _read_last_amount(lines: list[str]) -> Extraction:
    """Without an answer line: the last amount of the response, else abstention or nothing.

    Abstention wording counts when it precedes the amount on the amount's line, or
    anywhere when the response holds no amount at all.
    """
    for line in reversed(lines):
        masked = _drop_dates_and_years(_drop_references(line))
        amounts = [t for t in _numbers(masked) if t.is_amount]
        if amounts:
            chosen = amounts[-1]
            if _abstains(line[: chosen.start]):
                return Extraction(None, RULE_RESPONSE_ABSTENTION, True, line)
            return Extraction(chosen.value, RULE_LAST_AMOUNT, False, line)
    for line in reversed(lines):
        if _abstains(line):
            return Extraction(None, RULE_RESPONSE_ABSTENTION, True, line)
    return Extraction(None, RULE_NO_NUMBER, False, "")


def extract_answer(response: str | None) -> Extraction:
    """Read the one number a response commits to, by the rules in the module docstring.

    Never raises on any text; ``None`` or an empty response reads as no number.
    """
    if not response:
        return Extraction(None, RULE_NO_NUMBER, False, "")
    lines = [_clean_line(line) for line in response.splitlines()]
    found = _find_answer_line(lines)
    if found is None:
        return _read_last_amount(lines)
    index, text = found
    if _is_blank_answer(text):
        below = next((line for line in lines[index + 1 :] if line.strip()), None)
        if below is not None:
            return _read_answer_line(below, RULE_ANSWER_NEXT_LINE)
    # the label is not read for numbers, but the verdict shows the whole line
    return replace(_read_answer_line(text, RULE_ANSWER_LINE), text=lines[index])


def parse_decimal(text: Any, what: str) -> Decimal:
    """An exact Decimal from an answer-key field; ``what`` names the field in the error."""
    try:
        value = Decimal(str(text).strip().replace(",", ""))
    except (InvalidOperation, ValueError) as error:
        raise ValueError(f"{what}: {text!r} is not a decimal number") from error
    if not value.is_finite():
        raise ValueError(f"{what}: {text!r} is not a finite number")
    return value


def task_interval(task: Mapping[str, Any]) -> tuple[Decimal, Decimal]:
    """The inclusive acceptance interval ``(lo, hi)`` of a task row (``lo``/``hi`` strings)."""
    name = task.get("task_id", "<task>")
    lo = parse_decimal(task.get("lo"), f"task {name}: lo")
    hi = parse_decimal(task.get("hi"), f"task {name}: hi")
    if lo > hi:
        raise ValueError(f"task {name}: interval lo {lo} is above hi {hi}")
    return lo, hi


def score_answer(task: Mapping[str, Any], response: str | None) -> Verdict:
    """Grade one response against a task that carries its interval (``lo``, ``hi``).

    ``task`` is any mapping with the ``lo`` and ``hi`` fields of ``QA_ANSWER_SCHEMA`` (a
    row of :func:`pipeline.grade.runs.load_release_tasks` works). The attempt passes when
    the number read lies in ``[lo, hi]``; an abstention or no number fails.
    """
    lo, hi = task_interval(task)
    extraction = extract_answer(response)
    number = extraction.number
    passed = number is not None and not extraction.abstained and lo <= number <= hi
    return Verdict(number, extraction.rule, passed, extraction.abstained, extraction.text)


def score_text(response: str, lo: str, hi: str) -> dict[str, Any]:
    """CLI-ready grading of one response against ``[lo, hi]``; a JSON-serialisable dict.

    Keys: ``number`` (exact decimal text or null), ``rule``, ``passed``, ``abstained``,
    ``line`` (the text the number was read from).
    """
    verdict = score_answer({"lo": lo, "hi": hi}, response)
    return {
        "number": None if verdict.number is None else str(verdict.number),
        "rule": verdict.rule,
        "passed": verdict.passed,
        "abstained": verdict.abstained,
        "line": verdict.text.strip(),
    }
