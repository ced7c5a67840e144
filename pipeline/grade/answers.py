"""The answer grader: read the one number an agent's response commits to, check it against the key.

The rules follow ARCHITECTURE.md ("Grader") and appendix E of TreasuryQA Bench, widened by
issue 9 (messy model output) and issue 8 (linear time). Each rule is a small named function
below; the :class:`Verdict` names the rule that fired and, for a failure the grader itself
decided (hedge, unit, unreadable format), its ``cause``, so a disputed grade can be traced
to one function. The README ("How an answer is graded") lists where we differ from
OfficeQA's ``reward.py`` and why.

Where the answer is (the last of these in the response wins, because a model's last word
is its answer; corrections are later words):

1. **Answer line** (``answer_line``): a line that starts with ``ANSWER`` or ``Final answer``
   (any case, after Markdown/quote/heading/bullet/number marks, also ``<FINAL_ANSWER>``),
   followed by punctuation, a number or ``is``/``was``. A sentence that merely starts with
   the word ("Answer format followed: number only") is not an answer line: the label must
   be followed by what a label is followed by. ``Answering``/``Answers`` never are.
2. **Below the label** (``answer_next_line``): ``ANSWER:``, ``**Final Answer**`` or
   ``### Answer`` with nothing on the line reads the next line that holds a letter or digit
   (lines of only ``$$``, ``\\[`` or fences, and a table's header row, are skipped), so
   display math, ``\\boxed{5{,}123}`` blocks and tables under a heading are read.
3. **Answer phrase** (``answer_phrase``): "So the answer is 77.", "The answer is 42!",
   "Therefore, the final answer is 2,345.6", "My answer: 908" anywhere in a line. Because a
   phrase can be prose ("the answer is in Table 3"), the number must come right after it
   (only filler words such as "approximately" or "therefore" between); otherwise the phrase
   is ignored.
4. **Boxed** (``boxed``): ``\\boxed{...}`` anywhere reads its content (a strong commitment in
   math-style output).
5. **Correction after the answer** (``correction_after_answer``): in the few lines after the
   answer, a correction marker ("Wait, actually… 5,215", "It should be 3,686", "Correction:
   421.6", "the correct figure is …") directly followed by a number replaces the answer; a
   re-check that names no new number right after the marker ("Let me double-check: … 77")
   does not.
6. **Last amount** (``last_amount``): without any of the above, the last *amount* of the
   response: a number with a currency sign, decimal point, thousands separator or percent
   sign, not a year. Plain integers are too often counts, pages and years to be read
   without a label.

Which number on the answer text is the answer:

7. Markdown and LaTeX wrappers are stripped; Unicode minus, a dash glued to a number or
   currency sign, accounting parentheses, a trailing minus (``1,234.56-``) and the word
   "minus" or "negative" right before a number that no number precedes ("minus 1,412",
   not "5,000 minus 1,412") read as negative; apostrophe thousands (``1'234'567``) are read.
8. Struck-through numbers (``~~903~~ 930``, ``<s>903</s> 930``, U+0336) are withdrawn and
   never read.
9. Numbers in file names and links, after page/table/line words, dates, spans of years
   (``1941-42``) and years after words like "fiscal year" or "June 30" are dropped.
10. A **Markdown table row** (``table_value_cell``) reads its value cell: the last cell after
    the label with a number that is not a year (``| Answer | 1944 | $45,159 |`` is 45,159).
11. A line that **declares a correction** ("should be", "instead", "actually", an arrow)
    reads its last number, ignoring numbers after "instead of"/"not"/"from"
    (``answer_line_correction``).
12. An **equation** (``equation_result``) reads its result: the number after the last ``=``
    that has a number before it and is not itself followed by an operator
    (``1,200 + 3,400 = 4,600`` is 4,600; ``4,600 (= 1,200 + 3,400)`` is 4,600).
13. **Year labels** (``year_label_skipped``): leading years that label the answer are skipped
    when an amount follows, or when the year is followed by a colon (``ANSWER 1941: 2,602``,
    ``1944 receipts: 45,159``, ``The 1950 figure, 2,001.5``). A bare year with nothing after
    it is read: it may be the answer.
14. Otherwise the first remaining number.

When the number read is not an answer (the attempt fails; the rule says why):

15. **Hedge or range** (``hedge_or_range``, cause ``hedge``): the number is one end of a
    range or one of alternatives: "between 310 and 320", "4,500-4,600", "45–50%", "4.5 to
    4.6 billion", "1,482 or 1,428", "12.5% (or possibly 12.8%)". No single number is
    committed, so none is read; never the lower bound, which would pass whenever the key is
    at an end. The same amount restated ("1,234 million, or $1.234 billion": values a power
    of ten apart) is not a hedge.
16. **Unreadable format** (``unreadable_format``, cause ``unreadable_format``): scientific
    notation (``4.6e9``, ``4.6 x 10^9``), decimal commas (``1.234,56``, ``3,5``), dots or
    plain spaces as thousands separators (``2.602.000``, ``2 602``), numbers over 60 digits.
    Reading these would truncate them (``1.234,56`` as 1.234) into a number that could pass
    by accident; we read nothing instead. Thin and no-break spaces are typeset thousands
    separators and are read.
17. **Unit** (``unit_mismatch``, cause ``unit``): when the task's unit is known and the
    number is followed by an explicit scale word (thousand/million/billion/trillion and
    ``k``, ``M``, ``mn``, ``bn``...) that is not the task's scale, the attempt fails even if
    the digits match ("4.6 billion" for a key in millions, "4.6 million" for a key of 4.6
    in billions). Numbers are never rescaled: the answer is read in the task's unit, and a
    model that states another one has not answered in it. The number read is kept.
18. **Abstention** (``answer_line_abstention``, ``response_abstention``): wording that
    declines to answer ("not available", "cannot be determined/established", "can't help",
    "unable to", "none of the tables …", "I don't have enough information", "N/A") before
    the number, or anywhere when there is no number. An answer given after a hedge counts:
    when "but", "however", "though", "still", "that said" … follows the abstention wording
    and precedes the number ("I cannot verify, but my best estimate is 3,668"), the number
    is the answer: the model committed to it.

Scoring: the attempt passes when a number was read, it is not an abstention, no failure
cause applies, and it lies in the task's inclusive interval ``[lo, hi]``.

Bounded work (issue 8): every pattern is linear (no nested or overlapping quantifiers);
labels are looked for at most at the last :data:`MAX_LABELS` mentions of "answer" or
``\\boxed``; a line is read in a window of :data:`MAX_LINE_CHARS` characters, at most
three answer phrases, boxes or correction markers per line and 300 characters after each
(the number must come right after them anyway); at most :data:`MAX_FOLLOWING` non-blank
lines after an answer are read; the last amount is looked for in at most
:data:`MAX_FALLBACK_LINES` digit-bearing lines and :data:`FALLBACK_CHARS` characters from
the end; abstention wording without a number is looked for in the last
:data:`FALLBACK_CHARS` characters. A 1 MB response grades in time
proportional to its length (``benchmarks/bench_grader.py``).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any

from pipeline.grade.answer_choice import (
    ABSTENTION,
    CORRECTION,
    NONE_ANSWER,
    abstains_before,
    equation_result,
    hedged,
    is_superseded,
    only_fillers,
    skip_year_labels,
    table_cells,
    value_cell,
)
from pipeline.grade.answer_numbers import (
    NumberToken,
    mask,
    numbers,
    scale_after,
    task_scale,
    unreadable_format,
)
from pipeline.grade.answer_text import NEWLINES, clean, is_blank

MAX_LINE_CHARS = 2_000
MAX_LABELS = 200
MAX_FOLLOWING = 12
MAX_FALLBACK_LINES = 400
FALLBACK_CHARS = 50_000
_LABEL_HEAD = 300  # a label must start within this many characters of its line
_STRICT_CHARS = 300  # what is read after an answer phrase, a correction marker, in a box
_TRIES = 3  # answer phrases, boxes or correction markers tried per line, from the last

# The rules that can fire; a Verdict carries exactly one of them.
RULE_ANSWER_LINE = "answer_line"
RULE_ANSWER_NEXT_LINE = "answer_next_line"
RULE_ANSWER_PHRASE = "answer_phrase"
RULE_BOXED = "boxed"
RULE_CORRECTION = "answer_line_correction"
RULE_LATER_CORRECTION = "correction_after_answer"
RULE_TABLE_CELL = "table_value_cell"
RULE_EQUATION = "equation_result"
RULE_YEAR_LABEL = "year_label_skipped"
RULE_HEDGE = "hedge_or_range"
RULE_UNREADABLE = "unreadable_format"
RULE_UNIT = "unit_mismatch"
RULE_ANSWER_LINE_ABSTENTION = "answer_line_abstention"
RULE_ANSWER_LINE_NO_NUMBER = "answer_line_no_number"
RULE_LAST_AMOUNT = "last_amount"
RULE_RESPONSE_ABSTENTION = "response_abstention"
RULE_NO_NUMBER = "no_number"
RULES = (
    RULE_ANSWER_LINE,
    RULE_ANSWER_NEXT_LINE,
    RULE_ANSWER_PHRASE,
    RULE_BOXED,
    RULE_CORRECTION,
    RULE_LATER_CORRECTION,
    RULE_TABLE_CELL,
    RULE_EQUATION,
    RULE_YEAR_LABEL,
    RULE_HEDGE,
    RULE_UNREADABLE,
    RULE_UNIT,
    RULE_ANSWER_LINE_ABSTENTION,
    RULE_ANSWER_LINE_NO_NUMBER,
    RULE_LAST_AMOUNT,
    RULE_RESPONSE_ABSTENTION,
    RULE_NO_NUMBER,
)

# Failure causes the grader decides itself (a Verdict's ``cause``; null otherwise).
CAUSE_HEDGE = "hedge"
CAUSE_UNREADABLE = "unreadable_format"
CAUSE_UNIT = "unit"
GRADER_CAUSES = (CAUSE_HEDGE, CAUSE_UNREADABLE, CAUSE_UNIT)


@dataclass(frozen=True)
class Extraction:
    """The number read from a response, the rule that produced it and the text it read.

    ``cause`` is set when the grader itself fails the attempt (hedge, unreadable format,
    unit) and ``detail`` says more (the format, the scale word).
    """

    number: Decimal | None
    rule: str
    abstained: bool
    text: str
    cause: str | None = None
    detail: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The grade of one response: the exact number read, the rule, pass and abstention."""

    number: Decimal | None
    rule: str
    passed: bool
    abstained: bool
    text: str
    cause: str | None = None
    detail: str | None = None


# --- wording --------------------------------------------------------------------------

_LATER_CORRECTION = re.compile(
    r"\b(?:wait|actually|oops|sorry|correction|corrected|on second thought"
    r"|i made (?:an? )?(?:error|mistake)|i misread|should (?:have )?be(?:en)?"
    r"|(?:correct|right|revised|corrected|updated) (?:figure|value|answer|number|amount|total"
    r"|result)(?: is| would be| should be)?)\b",
    re.IGNORECASE,
)
# words that may stand between a label, phrase or correction marker and its number

_LABEL = re.compile(
    r"[\s>#*_+\u2022|`~<-]*(?:[0-9]{1,2}[.)][\s*_]+)?(?P<label>final[\s*_]+answer|answer)"
    r"(?![A-Za-z0-9])",
    re.IGNORECASE,
)

_LABEL_CONTINUES = re.compile(
    r"[\s*_]*(?:$|[:=.)\]|>\-$\u20ac\u00a3\u00a5(+\\~<0-9]|(?:is|was|would|will|equals"
    r"|approximately|about|roughly)\b)",
    re.IGNORECASE,
)

_PHRASE = re.compile(
    r"\b(?:the|my|our)[\s*_]+(?:(?:final|correct|best|right|resulting)[\s*_]+)?answer[\s*_]*"
    r"(?:is\b|would be\b|will be\b|equals\b|comes to\b|[:=])",
    re.IGNORECASE,
)

_LABEL_WORDS = re.compile(r"answer|\\boxed", re.IGNORECASE)

_DIGIT = re.compile(r"[0-9]")


def _read(
    raw: str, rule: str, scale: int | None, *, strict: bool, label: bool
) -> Extraction | None:
    """Read the number a piece of text commits to, by rules 7-18 of the module docstring.

    ``strict``: the number must come first (after fillers), or nothing is read (answer
    phrases and correction markers). ``label``: the piece follows an answer label, so an
    empty or abstaining piece is a verdict of its own; otherwise it is None (not read).
    """
    if strict:
        raw = raw[:_STRICT_CHARS]
    cells = table_cells(raw)
    if cells is not None:
        raw = value_cell(cells)
        rule = RULE_TABLE_CELL
    text = clean(raw)
    masked = mask(text)
    tokens = numbers(masked)
    if strict and (not tokens or not only_fillers(masked[: tokens[0].start])):
        return None
    if not tokens:
        if not label:
            return None
        if ABSTENTION.search(text) or NONE_ANSWER.fullmatch(text):
            return Extraction(None, RULE_ANSWER_LINE_ABSTENTION, True, text)
        return Extraction(None, RULE_ANSWER_LINE_NO_NUMBER, False, text)
    chosen, rule, candidates = _choose(masked, tokens, rule)
    return _judge(text, masked, candidates, chosen, rule, scale, label)


def _choose(
    masked: str, tokens: list[NumberToken], rule: str
) -> tuple[NumberToken, str, list[NumberToken]]:
    """The number that answers (rules 11-14), the rule, and the numbers around it."""
    if CORRECTION.search(masked):
        kept = [t for t in tokens if not is_superseded(masked, t)] or tokens
        return kept[-1], RULE_CORRECTION, kept
    result = equation_result(masked, tokens)
    if result is not None:
        return result, RULE_EQUATION, tokens[tokens.index(result) :]
    skipped = skip_year_labels(masked, tokens)
    if skipped:
        return tokens[skipped], RULE_YEAR_LABEL, tokens[skipped:]
    return tokens[0], rule, tokens


def _judge(
    text: str,
    masked: str,
    tokens: list[NumberToken],
    chosen: NumberToken,
    rule: str,
    scale: int | None,
    label: bool,
) -> Extraction:
    """Rules 15-18 on the chosen number: hedge, unreadable format, abstention, unit."""
    if hedged(masked, tokens, chosen):
        return Extraction(None, RULE_HEDGE, False, text, CAUSE_HEDGE)
    reason = unreadable_format(masked, chosen)
    if reason is not None:
        return Extraction(None, RULE_UNREADABLE, False, text, CAUSE_UNREADABLE, reason)
    if abstains_before(text, chosen.start):
        abstention = RULE_ANSWER_LINE_ABSTENTION if label else RULE_RESPONSE_ABSTENTION
        return Extraction(None, abstention, True, text)
    stated = scale_after(masked, chosen)
    if scale is not None and stated is not None and stated != scale:
        detail = f"stated in 10^{stated}, the task's unit is 10^{scale}"
        return Extraction(chosen.value, RULE_UNIT, False, text, CAUSE_UNIT, detail)
    return Extraction(chosen.value, rule, False, text)


# --- where the answer is --------------------------------------------------------------


def _line_bounds(text: str, position: int) -> tuple[int, int]:
    """Start and end (exclusive, before the newline) of the line holding ``position``."""
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return start, len(text) if end < 0 else end


def _following_lines(text: str, end: int) -> list[tuple[int, int]]:
    """Bounds of up to :data:`MAX_FOLLOWING` non-blank lines after the line ending at ``end``
    (looking at no more than eight times as many lines, blank ones included)."""
    found = []
    position = end
    for _ in range(MAX_FOLLOWING * 8):
        if len(found) >= MAX_FOLLOWING or position >= len(text):
            break
        start = position + 1
        stop = text.find("\n", start)
        stop = len(text) if stop < 0 else stop
        if text[start : min(stop, start + 200)].strip():
            found.append((start, stop))
        position = stop
    return found


def _strong_label(text: str, start: int, end: int) -> int | None:
    """Where the text after an ``ANSWER``/``Final answer`` label starts, or None (rule 1)."""
    head = text[start : min(end, start + _LABEL_HEAD)]
    match = _LABEL.match(head)
    if match is None or not _LABEL_CONTINUES.match(head, match.end()):
        return None
    return start + match.end()


def _boxed_content(text: str, position: int, end: int) -> str | None:
    """The content of the ``\\boxed{...}`` at ``position`` (braces matched), or None."""
    open_at = text.find("{", position, min(end, position + 12))
    if open_at < 0:
        return None
    depth = 0
    for index in range(open_at, min(end, open_at + _STRICT_CHARS)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1 : index]
    return None


def _read_label(raw: str, rule: str, scale: int | None) -> Extraction:
    """The reading of the text after (or below) an answer label: always a verdict."""
    found = _read(raw, rule, scale, strict=False, label=True)
    return found if found is not None else Extraction(None, RULE_ANSWER_LINE_NO_NUMBER, False, "")


def _read_line(
    text: str, start: int, end: int, position: int, scale: int | None
) -> tuple[Extraction, int] | None:
    """The reading of one line holding a label candidate, with the end of what it read;
    None when the line holds no answer label, phrase or boxed number."""
    label_end = _strong_label(text, start, end)
    if label_end is not None:
        rest = text[label_end : min(end, label_end + MAX_LINE_CHARS)]
        if not is_blank(clean(rest)):
            found = _read_label(rest, RULE_ANSWER_LINE, scale)
            return replace(found, text=clean(text[start : min(end, start + MAX_LINE_CHARS)])), end
        for below_start, below_end in _following_lines(text, end):
            below = text[below_start : min(below_end, below_start + MAX_LINE_CHARS)]
            header = table_cells(below) is not None and _DIGIT.search(below) is None
            if not is_blank(clean(below)) and not header:
                return _read_label(below, RULE_ANSWER_NEXT_LINE, scale), below_end
        return _read_label(rest, RULE_ANSWER_LINE, scale), end
    window_start = max(start, position - _LABEL_HEAD)
    window = text[window_start : min(end, position + MAX_LINE_CHARS)]
    for match in list(_PHRASE.finditer(window))[: -_TRIES - 1 : -1]:
        found = _read(window[match.end() :], RULE_ANSWER_PHRASE, scale, strict=True, label=False)
        if found is not None:
            return found, end
    boxed = window.rfind("\\boxed")
    for _ in range(_TRIES):
        if boxed < 0:
            break
        content = _boxed_content(window, boxed, len(window))
        if content is not None:
            found = _read(content, RULE_BOXED, scale, strict=False, label=False)
            if found is not None:
                return found, end
        boxed = window.rfind("\\boxed", 0, boxed)
    return None


def _later_correction(text: str, end: int, scale: int | None) -> Extraction | None:
    """The last correction in the lines after the answer (rule 5), or None."""
    latest = None
    for start, stop in _following_lines(text, end):
        line = text[start : min(stop, start + MAX_LINE_CHARS)]
        for marker in list(_LATER_CORRECTION.finditer(line))[: -_TRIES - 1 : -1]:
            found = _read(
                line[marker.end() :], RULE_LATER_CORRECTION, scale, strict=True, label=False
            )
            if found is not None:
                if found.cause is None and not found.abstained:
                    found = replace(found, rule=RULE_LATER_CORRECTION)
                latest = replace(found, text=clean(line))
                break
    return latest


def _from_labels(text: str, scale: int | None) -> Extraction | None:
    """The reading of the last answer label, phrase or boxed number, with any correction
    that follows it; None when the response holds none."""
    candidates: deque[int] = deque(maxlen=MAX_LABELS)
    for match in _LABEL_WORDS.finditer(text):
        candidates.append(match.start())
    line_start = len(text) + 1
    for position in reversed(candidates):
        if position >= line_start:
            continue  # on the line just read
        start, end = _line_bounds(text, position)
        line_start = start
        read = _read_line(text, start, end, position, scale)
        if read is None:
            continue
        found, read_end = read
        correction = _later_correction(text, read_end, scale)
        return correction if correction is not None else found
    return None


def _from_last_amount(text: str, scale: int | None) -> Extraction:
    """Without an answer label: the last amount (rule 6), else abstention or nothing."""
    reversed_text = text[::-1]
    position = len(text)
    budget = FALLBACK_CHARS
    for _ in range(MAX_FALLBACK_LINES):
        digit = _DIGIT.search(reversed_text, len(text) - position)
        if digit is None or budget <= 0:
            break
        start, end = _line_bounds(text, len(text) - 1 - digit.start())
        window_start = max(start, end - MAX_LINE_CHARS)
        if window_start > start:  # do not start inside a number or word
            space = text.find(" ", window_start, window_start + 100)
            window_start = space if space >= 0 else window_start
        line = text[window_start:end]
        budget -= len(line)
        found = _read_amount(line, scale)
        if found is not None:
            return found
        position = start
    tail = clean(text[-FALLBACK_CHARS:])
    abstention = ABSTENTION.search(tail)
    if abstention is not None:
        start, end = _line_bounds(tail, abstention.start())
        return Extraction(None, RULE_RESPONSE_ABSTENTION, True, tail[start:end])
    return Extraction(None, RULE_NO_NUMBER, False, "")


def _read_amount(raw: str, scale: int | None) -> Extraction | None:
    """The last amount of one line, judged like an answer (hedge, format, abstention, unit)."""
    text = clean(raw)
    masked = mask(text)
    tokens = numbers(masked)
    amounts = [t for t in tokens if t.is_amount]
    if not amounts:
        return None
    return _judge(text, masked, tokens, amounts[-1], RULE_LAST_AMOUNT, scale, label=False)


def extract_answer(response: str | None, unit: str | None = None) -> Extraction:
    """Read the one number a response commits to, by the rules in the module docstring.

    ``unit`` is the task's unit ("millions of dollars"); when given, an explicit scale word
    that contradicts it fails the reading (rule 17). Never raises on any text; ``None`` or an
    empty response reads as no number.
    """
    if not response:
        return Extraction(None, RULE_NO_NUMBER, False, "")
    text = NEWLINES.sub("\n", response)
    scale = task_scale(unit)
    found = _from_labels(text, scale)
    return found if found is not None else _from_last_amount(text, scale)


# --- scoring --------------------------------------------------------------------------


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
    row of :func:`pipeline.grade.runs.load_release_tasks` works) and optionally ``unit``.
    The attempt passes when the number read lies in ``[lo, hi]`` and no failure cause
    (hedge, unreadable format, unit) applies; an abstention or no number fails.
    """
    lo, hi = task_interval(task)
    extraction = extract_answer(response, task.get("unit"))
    number = extraction.number
    passed = (
        number is not None
        and not extraction.abstained
        and extraction.cause is None
        and lo <= number <= hi
    )
    return Verdict(
        number,
        extraction.rule,
        passed,
        extraction.abstained,
        extraction.text,
        extraction.cause,
        extraction.detail,
    )


def score_text(response: str, lo: str, hi: str, unit: str | None = None) -> dict[str, Any]:
    """CLI-ready grading of one response against ``[lo, hi]``; a JSON-serialisable dict.

    Keys: ``number`` (exact decimal text or null), ``rule``, ``passed``, ``abstained``,
    ``line`` (the text the number was read from), and ``cause``/``detail`` when the grader
    itself failed the attempt (hedge, unreadable format, unit).
    """
    verdict = score_answer({"lo": lo, "hi": hi, "unit": unit}, response)
    result = {
        "number": None if verdict.number is None else str(verdict.number),
        "rule": verdict.rule,
        "passed": verdict.passed,
        "abstained": verdict.abstained,
        "line": verdict.text.strip(),
    }
    if verdict.cause is not None:
        result["cause"] = verdict.cause
        result["detail"] = verdict.detail
    return result
