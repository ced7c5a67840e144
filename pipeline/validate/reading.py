"""Read a published question back into what it asks, and hold it against its oracle.

The drafter writes a question and an oracle program from the same facts. Rerunning the
oracle proves that the cells it reads are right, never that it computes what the
question *says*. This module is a second, independent reader of the question text: it
parses the published wording with its own grammar (cue words such as "combined", "exceed",
"taking X minus Y", "share of", "percent larger", "change from ... to", "average",
"highest", "lowest"; period phrases; the unit, sign and precision sentences) into a
:class:`QuestionReading`: the operation, the items in the order the arithmetic uses
them, the periods, the statement, the unit, the decimal places and what a negative
answer means. :func:`check_reading` holds a reading against the cells the oracle reads
(a draft's ``sources``, with what the table and anchor stages know of each cell: period,
parent heading, statement, unit, which cells a total adds up) and, given the oracle
program, against the arithmetic the program performs on probe numbers. Validation
rejects a draft whose question cannot be read or disagrees with its cells (rule
``question_mismatch``, :func:`question_reasons`); :func:`compute` and :func:`round_key`
let a test recompute a key from the reading alone.

Nothing here imports :mod:`pipeline.draft`: no template, regular expression or helper is
shared with the drafter. Period phrases are turned into dates with the calendar helpers
of the table stage (:mod:`pipeline.tables.periods`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from pathlib import Path

import polars as pl

from pipeline.tables.periods import fiscal_year_bounds, month_end, month_number

OPERATIONS = (
    "value",
    "sum",
    "difference",
    "change",
    "share",
    "percent_change",
    "excess",
    "mean",
    "max",
    "min",
)
PERCENT_OPERATIONS = frozenset({"share", "percent_change", "excess"})
SPAN_OPERATIONS = frozenset({"mean", "max", "min"})
CHANGE_OPERATIONS = frozenset({"change", "percent_change"})  # one item, two periods

# ---------------------------------------------------------------------------------------
# Period phrases
# ---------------------------------------------------------------------------------------

_MONTH_NAMES = (
    "january february march april may june july august september october november december"
).split()
_MONTH = (
    r"(?:"
    + "|".join([*_MONTH_NAMES, "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sept", "sep"])
    + r"|oct|nov|dec)\.?"
)
_YEAR = r"(?:1[6-9]\d\d|20\d\d)"
_DASH = "[-\u2013\u2014]"

# Each form of period phrase a question may use, longest first (a year to date "fiscal
# year 2011 through March 2011" must win over the plain "fiscal year 2011").
_PERIOD_FORMS: tuple[tuple[str, str], ...] = (
    ("year_through", rf"(?:the )?(fiscal|calendar) year ({_YEAR}) through ({_MONTH}) ({_YEAR})"),
    ("year_to_date", rf"(?:the )?(fiscal|calendar) year ({_YEAR}) to date"),
    ("estimate", rf"the (fiscal|calendar) year ({_YEAR}) estimate"),
    ("basis_year", rf"(fiscal|calendar) year ({_YEAR})"),
    ("quarter", rf"the ({_MONTH}) ?{_DASH} ?({_MONTH}) ({_YEAR}) quarter"),
    ("end_of_month", rf"the end of ({_MONTH}) ({_YEAR})"),
    ("cumulative_day", rf"cumulative to ({_MONTH}) (\d{{1,2}}), ({_YEAR})"),
    ("cumulative_year", rf"cumulative to ({_YEAR})"),
    ("day", rf"({_MONTH}) (\d{{1,2}}), ({_YEAR})"),
    ("month", rf"({_MONTH}) ({_YEAR})"),
    ("bare_year", rf"({_YEAR})"),
)
_PERIOD_RES = tuple((form, re.compile(p, re.IGNORECASE)) for form, p in _PERIOD_FORMS)


def _uncaptured(pattern: str) -> str:
    return re.sub(r"(?<!\\)\((?!\?)", "(?:", pattern)


PERIOD = "(?:" + "|".join(_uncaptured(p) for _, p in _PERIOD_FORMS) + ")"
_CUMULATIVE = "(?:" + "|".join(_uncaptured(p) for f, p in _PERIOD_FORMS if "cumul" in f) + ")"
# A period as an adverbial: "in fiscal year 1945", "as of June 30, 1947", "at the end of
# June 1950", or a bare "cumulative to October 31, 1939".
WHEN = rf"(?:(?:in|as of|at|during|for) {PERIOD}|{_CUMULATIVE})"
_WHEN_PREPOSITION = re.compile(r"^(?:in|as of|at|during|for) ", re.IGNORECASE)


@dataclass(frozen=True)
class PeriodReading:
    """A period as a question names it: kind, first and last day, and the words used.

    Kinds are those of :mod:`pipeline.tables.periods` (``fiscal_year``, ``month``,
    ``as_of_date``, ...), so a reading compares with the table stage's cell periods.
    """

    kind: str
    start: date | None
    end: date | None
    text: str

    @property
    def key(self) -> tuple[str, date | None, date | None]:
        return (self.kind, self.start, self.end)

    @property
    def order(self) -> tuple[date, date]:
        return (self.end or date.max, self.start or date.min)


def _year_bounds(basis: str, year: int) -> tuple[date, date]:
    if basis.lower() == "fiscal":
        return fiscal_year_bounds(year)
    return date(year, 1, 1), date(year, 12, 31)


def read_period(text: str) -> PeriodReading | None:
    """The period a phrase names ("fiscal year 1945", "the end of June 1950"), or None."""
    words = " ".join((text or "").split())
    for form, pattern in _PERIOD_RES:
        m = pattern.fullmatch(words)
        if m is None:
            continue
        g = m.groups()
        if form == "year_through":
            start = _year_bounds(g[0], int(g[1]))[0]
            end = month_end(int(g[3]), month_number(g[2]))
            return PeriodReading("year_to_date", start, end, words)
        if form == "year_to_date":
            return PeriodReading("year_to_date", _year_bounds(g[0], int(g[1]))[0], None, words)
        if form == "estimate":
            return PeriodReading("estimate", *_year_bounds(g[0], int(g[1])), words)
        if form == "basis_year":
            return PeriodReading(f"{g[0].lower()}_year", *_year_bounds(g[0], int(g[1])), words)
        if form == "quarter":
            first, last, year = month_number(g[0]), month_number(g[1]), int(g[2])
            if (last - first) % 12 != 2:
                return None  # three months or it is not a quarter
            start_year = year - 1 if first > last else year
            return PeriodReading(
                "quarter", date(start_year, first, 1), month_end(year, last), words
            )
        if form == "end_of_month":
            end = month_end(int(g[1]), month_number(g[0]))
            return PeriodReading("as_of_date", end, end, words)
        if form == "cumulative_day":
            end = date(int(g[2]), month_number(g[0]), int(g[1]))
            return PeriodReading("cumulative_to_date", None, end, words)
        if form == "cumulative_year":
            return PeriodReading("cumulative_to_date", None, None, words)
        if form == "day":
            day = date(int(g[2]), month_number(g[0]), int(g[1]))
            return PeriodReading("as_of_date", day, day, words)
        if form == "month":
            year, month = int(g[1]), month_number(g[0])
            return PeriodReading("month", date(year, month, 1), month_end(year, month), words)
        return PeriodReading("year", None, date(int(g[0]), 12, 31), words)  # kind not said
    return None


# ---------------------------------------------------------------------------------------
# The reading and its grammar
# ---------------------------------------------------------------------------------------


class ReadingError(ValueError):
    """Why a question cannot be read; ``depth`` 1 once a wording matched (for reporting)."""

    def __init__(self, reason: str, depth: int = 0) -> None:
        super().__init__(reason)
        self.depth = depth


@dataclass(frozen=True)
class QuestionReading:
    """What a question asks, as read from its text alone.

    ``item_readings`` holds every way the text splits into items (a list such as "Tax
    and loan accounts, Gold and Coin" can be read more than one way); ``items`` is the
    plainest. Items are in the order the arithmetic uses them: the minuend first for a
    difference, (compared, base) for an excess, (part, total) for a share; one item for
    the other operations. ``periods`` holds one period for a same-period operation, (from,
    to) for a change, (first, last) of the span for a statistic. ``sign`` says what a
    negative answer means: ``decrease`` (a change fell), ``smaller`` (the first item is
    the smaller), ``minus`` (the question spells the subtraction), ``""`` unstated.
    """

    text: str
    operation: str
    item_readings: tuple[tuple[str, ...], ...]
    periods: tuple[PeriodReading, ...]
    statement: str
    unit: str
    places: int
    sign: str = ""
    latest: bool = False  # asks for the latest revision

    @property
    def items(self) -> tuple[str, ...]:
        return self.item_readings[0]


_SLOTS = {
    "item": r"(?P<item>.+?)",
    "a": r"(?P<a>.+?)",
    "b": r"(?P<b>.+?)",
    "total": r"(?P<total>.+?)",
    "list": r"(?P<list>.+?)",
    "minus": r"(?P<minus>.+?)",
    "when": rf"(?P<when>{WHEN})",
    "p1": rf"(?P<p1>{PERIOD})",
    "p2": rf"(?P<p2>{PERIOD})",
    "span": rf"(?P<first>{PERIOD}) through (?P<last>{PERIOD})",
}
_LARGER = "(?:larger|greater|higher|bigger|more)"
_PERCENT = "(?:percent|percentage)"
_HIGHEST = "(?:highest|largest|greatest|maximum|peak)"
_LOWEST = "(?:lowest|smallest|least|minimum)"
_AMOUNT = "(?:amount|value|level)"

# (operation, wording) in the order they are tried: percent wordings before the amount
# wordings whose verbs they share, the plain read last. A wording ending in a period
# slot ({when}, {from_to}) is also accepted with that period moved to the front
# ("In fiscal year 1945, by how much ...").
_WORDINGS: tuple[tuple[str, str], ...] = (
    ("excess", f"by what {_PERCENT} did {{a}} exceed {{b}} {{when}}"),
    ("excess", "by how many percent did {a} exceed {b} {when}"),
    ("excess", f"how many percent {_LARGER} was {{a}} than {{b}} {{when}}"),
    ("excess", f"by what {_PERCENT} was {{a}} {_LARGER} than {{b}} {{when}}"),
    ("percent_change", f"by what {_PERCENT} did {{item}} change {{from_to}}"),
    ("percent_change", f"what was the {_PERCENT} change in {{item}} {{from_to}}"),
    ("percent_change", "how much did {item} (?:grow|change|rise) in percent {from_to}"),
    ("share", "what share of {total} did {item} account for {when}"),
    ("share", f"what (?:{_PERCENT}|share) of {{total}} (?:was|were) {{item}} {{when}}"),
    (
        "share",
        f"what (?:{_PERCENT}|share) of {{total}} did {{item}} (?:make up|account for) {{when}}",
    ),
    ("share", f"{{item}} made up what (?:{_PERCENT}|share) of {{total}} {{when}}"),
    (
        "mean",
        f"what was the average {_AMOUNT} of {{item}} over {{span}}(?:, one value per period)?",
    ),
    ("mean", "averaged over {span}, what was {item} per period"),
    ("mean", f"over {{span}}, what was the average {_AMOUNT} of {{item}}(?: per period)?"),
    ("max", f"what was the {_HIGHEST} {_AMOUNT} of {{item}} in any period (?:from|over) {{span}}"),
    ("max", f"over {{span}}, what (?:{_HIGHEST}) value did {{item}} reach"),
    ("max", f"over {{span}}, what was the {_HIGHEST} {_AMOUNT} of {{item}}"),
    ("min", f"what was the {_LOWEST} {_AMOUNT} of {{item}} in any period (?:from|over) {{span}}"),
    ("min", f"over {{span}}, what (?:{_LOWEST}) value did {{item}} reach"),
    ("min", f"over {{span}}, what was the {_LOWEST} {_AMOUNT} of {{item}}"),
    ("sum", f"what was the combined {_AMOUNT} of {{list}} {{when}}"),
    ("sum", "(?:taken together|together|combined), how much did {list} come to {when}"),
    ("sum", "(?:what|how much) did {list} add up to {when}"),
    ("difference", "by how much did {a} exceed {b} {when}"),
    ("difference", f"how much {_LARGER} was {{a}} than {{b}} {{when}}"),
    ("difference", "what was the (?:gap|difference) between {a} and {b} {when}, taking {minus}"),
    ("change", "by how much did {item} change {from_to}"),
    ("change", "what was the change in {item} {from_to}"),
    ("change", "how much did {item} (?:grow|change|rise|increase) {from_to}"),
    ("value", "(?:what|how much) (?:was|were) {item} {when}"),
    ("value", f"what was the {_AMOUNT} of {{item}} {{when}}"),
    ("value", f"give the {_AMOUNT} of {{item}} {{when}}"),
    ("value", "what did {item} amount to {when}"),
)
# A plain read must not swallow the cue of another operation as its item.
_NOT_AN_ITEM = re.compile(
    r"^the (?:combined|average|highest|lowest|largest|smallest|change|percentage|percent"
    r"|gap|difference|share)\b",
    re.IGNORECASE,
)


def _variants(wording: str) -> list[str]:
    """The wording with its period slot spelt out and, for a trailing period, fronted."""
    spelt = [wording]
    if "{from_to}" in wording:
        spelt = [
            wording.replace("{from_to}", "from {p1} to {p2}"),
            wording.replace("{from_to}", "between {p1} and {p2}"),
        ]
    out = list(spelt)
    for w in spelt:
        for frame in ("{when}", "from {p1} to {p2}", "between {p1} and {p2}"):
            if w.endswith(" " + frame):
                out.append(f"{frame}, {w[: -len(frame) - 1]}")
    return out


def _compile(wording: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\{(\w+)\}", lambda m: _SLOTS[m.group(1)], wording), re.I)


_GRAMMAR: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (operation, _compile(v)) for operation, w in _WORDINGS for v in _variants(w)
)

# Trailing sentences and clauses.
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}
_PRECISION = re.compile(
    r"\s*(?:round(?: it)? to|give|answer (?:to|with)|report) (?:(?P<n>\d+|one|two|three|four)"
    r" decimal places?|(?:the nearest |a )?whole number|the nearest integer|an integer)\.$",
    re.IGNORECASE,
)
# a sentence of its own after the question: "Use the latest revised figures."
_REVISION = re.compile(r"(?<=[.?])\s+[A-Z][^.?]*\brevis(?:ed|ions?)\b[^.?]*\.$")
_STATEMENT_PAREN = re.compile(r"\s*\(table: (?P<s>[^()]+(?:\([^()]*\)[^()]*)*)\)", re.IGNORECASE)
_STATEMENT_PHRASE = re.compile(
    r"(?=(?P<all>(?P<lead>,\s*)?\b(?:as reported in|according to|per|in|from|of) the "
    r"(?P<s>.+?) table\b(?P<trail>,\s*)?))",
    re.IGNORECASE,
)
_UNIT_WORDS = (
    r"(?:(?:thousands|millions|billions) of dollars|thousands|millions|billions|dollars"
    r"|percent|unknown)"
)
_INLINE_UNIT = re.compile(rf",\s*in (?P<unit>{_UNIT_WORDS})$", re.IGNORECASE)
_UNIT_CLAUSE = re.compile(
    r"^(?:(?:answer|express it|express the answer|give it|give the answer|report it|state it)"
    r" in|use|give|in) (?P<unit>[a-z][a-z ,'-]*)$",
    re.IGNORECASE,
)
_PAREN = re.compile(r"\s*\(([^()]*)\)")
_DECREASE = re.compile(r"\b(?:decrease|decline|fall|falls|drop|reduction)\b", re.IGNORECASE)
_SMALLER = re.compile(r"\b(?:smaller|fell short|less|below|lower)\b", re.IGNORECASE)


def parse_question(text: str) -> QuestionReading:
    """Read a question; raises :class:`ReadingError` with the reason when it cannot."""
    words = " ".join((text or "").split())
    if not words:
        raise ReadingError("the question is empty")
    m = _PRECISION.search(words)
    if m is None:
        raise ReadingError("the question states no precision (decimal places or whole number)")
    n = m["n"]
    places = 0 if n is None else _NUMBER_WORDS.get(n.lower()) or int(n)
    rest = words[: m.start()]
    revision = _REVISION.search(rest)
    latest = revision is not None
    if revision is not None:
        rest = rest[: revision.start()]
    best: ReadingError | None = None
    for body, tail in _body_and_tail(rest):
        candidates = list(_statement_readings(body))
        if not candidates:
            error = ReadingError("the question names no table")
            best = best if best is not None and best.depth >= error.depth else error
        for statement, core in candidates:
            try:
                return _read_core(core, tail, statement, places, latest, words)
            except ReadingError as error:
                if best is None or error.depth > best.depth:
                    best = error
    raise best or ReadingError("unreadable")


def read_question(text: str) -> QuestionReading | None:
    """What the question asks, or None when it cannot be read (:func:`unreadable_reason`)."""
    try:
        return parse_question(text)
    except ReadingError:
        return None


def unreadable_reason(text: str) -> str | None:
    """Why :func:`read_question` returns None for ``text`` (None when it reads)."""
    try:
        parse_question(text)
    except ReadingError as error:
        return str(error)
    return None


def _body_and_tail(rest: str) -> Iterator[tuple[str, str]]:
    """(question, instructions): split at the last "?", else at a sentence end."""
    if "?" in rest:
        at = rest.rindex("?")
        yield rest[:at].strip(), rest[at + 1 :].strip()
        return
    text = rest.strip()
    yield text.rstrip(".").strip(), ""
    for m in reversed(list(re.finditer(r"\.\s+(?=[A-Z])", text))):
        yield text[: m.start()].strip(), text[m.end() :].strip()


def _statement_readings(body: str) -> Iterator[tuple[str, str]]:
    """(statement, the question without it) for each place the table could be named."""
    for m in _STATEMENT_PAREN.finditer(body):
        yield m["s"].strip(), _tidy(body[: m.start()] + body[m.end() :])
    found = list(_STATEMENT_PHRASE.finditer(body))
    for m in sorted(found, key=lambda m: -m.start("all")):
        start, end = m.start("all"), m.end("all")
        keep_comma = start > 0 and end < len(body) and m["trail"]
        yield m["s"].strip(), _tidy(body[:start] + (", " if keep_comma else " ") + body[end:])


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([,?.;])", r"\1", " ".join(text.split()))
    return text.strip(" ,")


def _read_core(
    core: str, tail: str, statement: str, places: int, latest: bool, text: str
) -> QuestionReading:
    inline = _INLINE_UNIT.search(core)
    if inline is not None:
        core = core[: inline.start()]
    for operation, pattern in _GRAMMAR:
        m = pattern.fullmatch(core)
        if m is None or (operation == "value" and _NOT_AN_ITEM.match(m["item"])):
            continue
        item_readings = _item_readings(operation, m)
        if not item_readings:
            raise ReadingError(f"the items of {core!r} cannot be told apart", depth=1)
        periods = _periods_of(m)
        unit, sign, item_readings = _read_tail(tail, operation, item_readings)
        if inline is not None:
            if unit and unit != inline["unit"].lower():
                raise ReadingError(f"two units: {inline['unit']!r} and {unit!r}", depth=1)
            unit = inline["unit"].lower()
        if not unit:
            if operation not in PERCENT_OPERATIONS:
                raise ReadingError("the question states no unit", depth=1)
            unit = "percent"
        if operation == "difference" and m.groupdict().get("minus"):
            sign = sign or "minus"
        return QuestionReading(
            text=text,
            operation=operation,
            item_readings=tuple(item_readings),
            periods=periods,
            statement=statement,
            unit=unit,
            places=places,
            sign=sign,
            latest=latest,
        )
    raise ReadingError(f"no wording of any operation matches {core!r}")


def _periods_of(m: re.Match[str]) -> tuple[PeriodReading, ...]:
    groups = m.groupdict()
    if groups.get("when"):
        phrases = [_WHEN_PREPOSITION.sub("", groups["when"])]
    elif groups.get("p1"):
        phrases = [groups["p1"], groups["p2"]]
    else:
        phrases = [groups["first"], groups["last"]]
    out = []
    for phrase in phrases:
        period = read_period(phrase)
        if period is None:
            raise ReadingError(f"{phrase!r} is not a period", depth=1)
        out.append(period)
    return tuple(out)


def _splits(region: str, separator: str) -> list[tuple[str, str]]:
    """Every (left, right) reading of ``region`` around one occurrence of ``separator``."""
    out = []
    for m in re.finditer(re.escape(separator), region, re.IGNORECASE):
        left, right = region[: m.start()].strip(), region[m.end() :].strip()
        if left and right:
            out.append((left, right))
    return out


def _pair(m: re.Match[str], first: str, second: str) -> list[tuple[str, str]]:
    """The readings of two adjacent slots, in the order the slots are named."""
    one, two = sorted((first, second), key=m.start)
    region = m.string[m.start(one) : m.end(two)]
    separator = m.string[m.end(one) : m.start(two)]
    pairs = _splits(region, separator)
    return pairs if one == first else [(b, a) for a, b in pairs]


def list_readings(text: str) -> list[tuple[str, ...]]:
    """Every reading of "x1, x2 and x3" as two or more items, the plainest first."""
    out: list[tuple[str, ...]] = []
    ands = [m for m in re.finditer(r" and ", text)]
    for last_and in reversed(ands):
        head, last = text[: last_and.start()], text[last_and.end() :]
        commas = [m for m in re.finditer(r", ", head)][:8]
        for mask in range((1 << len(commas)) - 1, -1, -1):
            parts, at = [], 0
            for i, comma in enumerate(commas):
                if mask >> i & 1:
                    parts.append(head[at : comma.start()])
                    at = comma.end()
            parts.append(head[at:])
            items = tuple(p.strip() for p in [*parts, last])
            if all(items) and items not in out:
                out.append(items)
    return out


def _item_readings(operation: str, m: re.Match[str]) -> list[tuple[str, ...]]:
    groups = m.groupdict()
    if operation == "sum":
        return list_readings(groups["list"])
    if operation == "share":
        return [tuple(p) for p in _pair(m, "item", "total")]
    if operation in ("difference", "excess"):
        pairs = _pair(m, "a", "b")
        if groups.get("minus"):  # "the gap between A and B ..., taking A minus B"
            spelt = set(_splits(groups["minus"], " minus "))
            pairs = [p for p in pairs if p in spelt]
        return [tuple(p) for p in pairs]
    return [(groups["item"].strip(),)]


def _read_tail(
    tail: str, operation: str, item_readings: list[tuple[str, ...]]
) -> tuple[str, str, list[tuple[str, ...]]]:
    """(unit, sign, item readings) from the instructions after the question."""
    rest = tail
    relative = re.search(r"\brelative to ", rest, re.IGNORECASE)
    if relative is not None:
        if operation != "excess":
            raise ReadingError(f"'relative to' in a {operation} question", depth=1)
        after = rest[relative.end() :]
        kept = [r for r in item_readings if re.match(re.escape(r[1]) + r"(?:[;.,]|$)", after)]
        if not kept:
            raise ReadingError(f"'relative to {after[:40]}' names neither base read", depth=1)
        item_readings = kept
        rest = rest[: relative.start()] + after[len(kept[0][1]) :]
    clauses = [c.strip() for c in _PAREN.findall(rest)]
    rest = _PAREN.sub("", rest)
    clauses += [c.strip() for c in re.split(r"[.;]\s*", rest)]
    unit, sign = "", ""
    for clause in (c for c in clauses if c):
        if re.search(r"\bnegative\b", clause, re.IGNORECASE):
            said = ""
            if _SMALLER.search(clause):
                said = "smaller"
            elif _DECREASE.search(clause):
                said = "decrease"
            if not said or (sign and sign != said):
                raise ReadingError(f"unclear sign convention {clause!r}", depth=1)
            sign = said
            continue
        m = _UNIT_CLAUSE.match(clause)
        if m is None:
            raise ReadingError(f"unexpected instruction {clause!r}", depth=1)
        said_unit = " ".join(m["unit"].lower().split())
        if unit and unit != said_unit:
            raise ReadingError(f"two units: {unit!r} and {said_unit!r}", depth=1)
        unit = said_unit
    return unit, sign, item_readings


# ---------------------------------------------------------------------------------------
# Checking a reading against the cells the oracle reads
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceCell:
    """One cell an oracle reads, as validation knows it.

    The labels and ``period`` text come from the draft's ``sources``; the rest from the
    table stage (``tables`` and ``table_cells``) and is ``None`` where unknown: then
    the period is read from ``period`` and a plain label may carry up to two
    parenthesised suffixes (the parent heading and the column dimension a question adds).
    """

    row_label: str
    col_label: str
    period: str = ""
    doc_id: str = ""
    page_no: int = -1
    table_no: int = -1
    row_idx: int = -1
    col_idx: int = -1
    period_key: tuple[str, date | None, date | None] | None = None
    period_axis: str | None = None  # where the period is printed: col | row | title
    row_parent: str | None = None
    dimension: str | None = None
    statement: str | None = None
    unit: str | None = None
    # (row_idx, col_idx) of every cell of its table this cell is the total of, through
    # subtotals (the table's identities); None when unknown
    adds_up: frozenset[tuple[int, int]] | None = None

    @classmethod
    def from_source(cls, source: dict, **known: object) -> SourceCell:
        """A cell from one draft ``sources`` entry plus what else is ``known`` of it."""
        names = ("doc_id", "page_no", "table_no", "row_idx", "col_idx")
        return cls(
            row_label=source.get("row_label") or "",
            col_label=source.get("col_label") or "",
            period=source.get("period") or "",
            **{k: source[k] for k in names if source.get(k) is not None},
            **known,  # type: ignore[arg-type]
        )


def norm(text: str | None) -> str:
    """Labels compared as a question uses them: case, spacing and quote style ignored."""
    text = (text or "").replace("\u2019", "'").replace("\u2013", "-").casefold()
    return " ".join(text.split()).strip(" .:")


def _label_names(label: str, cell: SourceCell) -> tuple[set[str], bool]:
    """(names a question may give this label, whether unknown suffixes are allowed)."""
    levels = [p.strip() for p in label.split(" / ") if p.strip()]
    if not levels:
        return set(), False
    head, parents = levels[-1], levels[:-1]
    if parents:  # a header path: "Income tax (internal revenue)"
        return {norm(f"{head} ({', '.join(parents)})")}, False
    names = {norm(head)}
    if cell.row_parent:
        names.add(norm(f"{head} ({cell.row_parent})"))
    if cell.dimension:
        names |= {norm(f"{n} ({cell.dimension})") for n in list(names)}
    return names, cell.row_parent is None and cell.dimension is None


_BARE_TOTAL = re.compile(r"(?:grand )?total", re.IGNORECASE)
_SUFFIXES = re.compile(r"^(?P<base>.*?)((?: \([^()]*\)){1,2})$")


def item_matches(name: str, cell: SourceCell, statement: str = "") -> bool:
    """Does the item a question names denote this cell's row (or column) item?

    The item is the label that is not the period: the column header path where rows are
    periods ("Social security / Total" is named "Total (social security)"), else the row
    label, optionally with the drafter-style parenthesised parent heading and column
    dimension. A bare "Total" is named with its statement ("Total budget receipts").
    """
    wanted = norm(name)
    labels = {"row": [cell.col_label], "col": [cell.row_label], "title": [cell.row_label]}
    statements = {norm(s) for s in (cell.statement, statement) if s}
    for label in labels.get(cell.period_axis or "", [cell.row_label, cell.col_label]):
        names, loose = _label_names(label, cell)
        bare = {n for n in names if _BARE_TOTAL.fullmatch(n)}
        names |= {f"{n} {s}" for n in bare for s in statements}
        if wanted in names:
            return True
        suffixed = _SUFFIXES.match(wanted)
        if loose and suffixed and norm(suffixed["base"]) in names:
            return True
    return False


def cell_period(cell: SourceCell) -> tuple[str, date | None, date | None] | None:
    """The structured period of a cell: the table stage's, else read from its text."""
    if cell.period_key is not None:
        return cell.period_key
    period = read_period(cell.period)
    return period.key if period is not None else None


def _role_names(operation: str, n: int) -> list[str]:
    names = {
        "value": ["the value"],
        "difference": ["the minuend", "the subtracted item"],
        "excess": ["the compared item", "the base"],
        "share": ["the part", "the total"],
        "change": ["the earlier value", "the later value"],
        "percent_change": ["the base (earlier) value", "the later value"],
    }
    return names.get(operation, [f"item {i + 1}" for i in range(n)])


def _describe(cell: SourceCell) -> str:
    return f"row {cell.row_label!r} col {cell.col_label!r} ({cell.period or 'no period'})"


def _roles(reading: QuestionReading, items: tuple[str, ...]) -> list[tuple[str, PeriodReading]]:
    """(item, period) of each cell the question asks for, in the operation's order."""
    op, periods = reading.operation, reading.periods
    if op in CHANGE_OPERATIONS:
        return [(items[0], periods[0]), (items[0], periods[1])]
    return [(item, periods[0]) for item in items]


def _order_problems(
    reading: QuestionReading, items: tuple[str, ...], cells: Sequence[SourceCell]
) -> list[str]:
    """Items and periods against the cells, in the operation's order (rules 2 and 3)."""
    op = reading.operation
    if op in SPAN_OPERATIONS:
        return _span_problems(reading, items[0], cells)
    roles = _roles(reading, items)
    if len(roles) != len(cells):
        return [f"{op} of {len(roles)} value(s) asked, the oracle reads {len(cells)} cell(s)"]
    found = []
    if op == "sum":  # order-free: each named item is one cell
        unused = list(cells)
        for item, _ in roles:
            hit = next((c for c in unused if item_matches(item, c, reading.statement)), None)
            if hit is None:
                found.append(f"{item!r} is not among the cells read")
            else:
                unused.remove(hit)
        found += [f"the oracle also reads {_describe(c)}, not named" for c in unused]
    else:
        for name, (item, _), cell in zip(_role_names(op, len(roles)), roles, cells, strict=True):
            if not item_matches(item, cell, reading.statement):
                found.append(f"{name} is {item!r} but the oracle reads {_describe(cell)} there")
    for (_, period), cell in zip(roles, cells, strict=True):
        key = cell_period(cell)
        if key is None:
            found.append(f"the period of {_describe(cell)} is unknown")
        elif key != period.key:
            found.append(f"the question says {period.text!r}, the oracle reads {_describe(cell)}")
    return found


def _order(key: tuple[str, date | None, date | None]) -> tuple[date, date]:
    return (key[2] or date.max, key[1] or date.min)


_REGULAR_MONTHS = {"fiscal_year": 12, "calendar_year": 12, "quarter": 3, "month": 1}


def _span_problems(reading: QuestionReading, item: str, cells: Sequence[SourceCell]) -> list[str]:
    """A statistic reads the named item in every period of the span and nowhere else."""
    first, last = reading.periods
    found = [
        f"{item!r} is not {_describe(c)}"
        for c in cells
        if not item_matches(item, c, reading.statement)
    ]
    keys = [cell_period(c) for c in cells]
    if first.kind != last.kind:
        found.append(f"the span mixes {first.kind} and {last.kind}")
    if any(k is None for k in keys):
        return found + ["a cell of the span has no known period"]
    known = [k for k in keys if k is not None]
    if len(set(known)) != len(known):
        found.append("the oracle reads one period twice")
    outside = [k for k in known if k[0] != first.kind or not first.order <= _order(k) <= last.order]
    found += [
        f"period {k[0]} ending {k[2]} is outside {first.text} through {last.text}" for k in outside
    ]
    if first.key not in known or last.key not in known:
        found.append(f"the span {first.text} through {last.text} is not read end to end")
    step = _REGULAR_MONTHS.get(first.kind)
    if step and first.end and last.end:
        months = (last.end.year - first.end.year) * 12 + last.end.month - first.end.month
        if len(known) != months // step + 1:
            found.append(
                f"{first.text} through {last.text} has {months // step + 1} periods, "
                f"the oracle reads {len(known)}"
            )
    if len(cells) < 2:
        found.append("a statistic over one value")
    return found


def check_reading(
    reading: QuestionReading,
    cells: Sequence[SourceCell],
    *,
    unit: str | None = None,
    places: int | None = None,
    oracle_source: str | None = None,
) -> list[str]:
    """Every way the question disagrees with the cells its oracle reads (empty: agrees).

    ``cells`` are the oracle's cells in the order it reads them (the draft's
    ``sources``); ``unit`` and ``places`` the task's. The rules:

    1. *inputs*: the operation reads as many cells as the question names (one for a
       value, each listed item for a sum, two for a difference, share, excess or change,
       the span for a statistic);
    2. *items and order*: each named item is the label of its cell, in the order the
       operation uses them (minuend first, the base of an excess second, the part then
       the named total of a share, the earlier period first for a change or percent
       change), a sum in any order; any reading of an ambiguous item list may agree;
    3. *periods*: each cell's period (the table stage's) is the period the question
       names for it; a statistic reads every period from the first to the last named,
       each once, and for years, quarters and months the span has no gap;
    4. *statement*: every cell lies in the table the question names;
    5. *unit*: the question's unit is the task's (and the table's, for amounts); a
       percent operation is answered in percent;
    6. *precision*: the decimal places asked are the task's;
    7. *sign*: a stated sign convention fits the operation (a decrease for a change,
       the smaller item for a difference or excess); a difference or excess states one;
    8. *share of a total*: where the table's identities are known, the total a share
       names adds up the part (directly or through subtotals), not merely shares an
       identity with it (two members of one grand total);
    9. *arithmetic*: given ``oracle_source``, the oracle's program, run on probe numbers
       in place of its cells, computes what the question asks of those cells, rounds to
       the asked places and emits the asked unit.
    """
    found: list[str] = []
    op = reading.operation
    best: list[str] | None = None
    for items in reading.item_readings:
        problems = _order_problems(reading, items, cells)
        if best is None or len(problems) < len(best):
            best = problems
        if not problems:
            break
    found += best or []
    named = norm(reading.statement)
    for cell in cells:
        if cell.statement is not None and norm(cell.statement) != named:
            found.append(
                f"the question names table {reading.statement!r}, {_describe(cell)} "
                f"is in {cell.statement!r}"
            )
            break
    if op in PERCENT_OPERATIONS and norm(reading.unit) != "percent":
        found.append(f"a {op} is answered in percent, the question asks {reading.unit!r}")
    if unit is not None and norm(unit) != norm(reading.unit):
        found.append(f"the question asks {reading.unit!r}, the task's unit is {unit!r}")
    if op not in PERCENT_OPERATIONS:
        for cell in cells:
            if cell.unit is not None and norm(cell.unit) != norm(reading.unit):
                found.append(f"the question asks {reading.unit!r}, the table prints {cell.unit!r}")
                break
    if places is not None and places != reading.places:
        found.append(f"the question asks {reading.places} decimal places, the task {places}")
    found += _sign_problems(reading)
    found += _share_problems(reading, cells)
    if oracle_source:
        found += oracle_problems(reading, cells, oracle_source)
    return found


def _share_problems(reading: QuestionReading, cells: Sequence[SourceCell]) -> list[str]:
    if reading.operation != "share" or len(cells) != 2 or cells[1].adds_up is None:
        return []
    part, whole = cells
    same_table = (part.doc_id, part.page_no, part.table_no) == (
        whole.doc_id,
        whole.page_no,
        whole.table_no,
    )
    if same_table and (part.row_idx, part.col_idx) in whole.adds_up:
        return []
    part_name, total_name = reading.items
    return [f"the named total {total_name!r} does not add up {part_name!r} in its table"]


def _sign_problems(reading: QuestionReading) -> list[str]:
    op, sign = reading.operation, reading.sign
    if sign == "decrease" and op not in CHANGE_OPERATIONS:
        return [f"a {op} question says a negative answer means a decrease"]
    if sign == "smaller" and op not in ("difference", "excess"):
        return [f"a {op} question says a negative answer means the smaller item"]
    if op in ("difference", "excess") and not sign:
        return [f"the {op} question does not say what a negative answer means"]
    return []


# ---------------------------------------------------------------------------------------
# Arithmetic: what the question asks, and what the oracle program computes
# ---------------------------------------------------------------------------------------


def compute(operation: str, values: Sequence[Decimal]) -> Decimal:
    """The operation over values in the reading's order (see :class:`QuestionReading`).

    A change runs from the first period to the second; a percent change and an excess
    are relative to the earlier value and to the base (second item); a share is the
    part (first) over the total (second). Exact ``Decimal`` at 50 digits.
    """
    v = list(values)
    with localcontext() as ctx:
        ctx.prec = 50
        if operation == "value":
            return v[0]
        if operation == "sum":
            return sum(v[1:], v[0])
        if operation == "difference":
            return v[0] - v[1]
        if operation == "change":
            return v[1] - v[0]
        if operation == "share":
            return v[0] * 100 / v[1]
        if operation == "percent_change":
            return (v[1] - v[0]) * 100 / v[0]
        if operation == "excess":
            return (v[0] - v[1]) * 100 / v[1]
        if operation == "mean":
            return sum(v[1:], v[0]) / len(v)
        if operation == "max":
            return max(v)
        if operation == "min":
            return min(v)
    raise ValueError(f"unknown operation {operation!r}")


def round_key(value: Decimal, places: int) -> Decimal:
    """Half away from zero at ``places`` decimals: how a key is rounded."""
    with localcontext() as ctx:
        ctx.prec = 60
        return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


class _Unsupported(Exception):
    """The oracle program is not a straight line of reads, arithmetic and one emit."""


@dataclass
class _Run:
    """One probe run of an oracle program: each ``table_cell`` read gets its cell's probe."""

    cells: Sequence[SourceCell]
    probes: Sequence[Decimal]
    env: dict[str, object] = field(default_factory=dict)
    stray: list[str] = field(default_factory=list)

    def cell_probe(self, args: dict[str, object]) -> Decimal:
        for cell, probe in zip(self.cells, self.probes, strict=True):
            if _is_cell(cell, args):
                return probe
        self.stray.append(", ".join(f"{k}={v!r}" for k, v in args.items()))
        return Decimal(1)

    def value(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str):
            return Decimal(str(node.value)) if not isinstance(node.value, str) else node.value
        if isinstance(node, ast.Name) and node.id in self.env:
            return self.env[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = self.value(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand  # type: ignore[operator]
        if isinstance(node, ast.BinOp):
            left, right = self.value(node.left), self.value(node.right)
            ops = {
                ast.Add: "__add__",
                ast.Sub: "__sub__",
                ast.Mult: "__mul__",
                ast.Div: "__truediv__",
            }
            name = ops.get(type(node.op))
            if name is None or not isinstance(left, Decimal) or not isinstance(right, Decimal):
                raise _Unsupported(ast.dump(node.op))
            return getattr(left, name)(right)
        if isinstance(node, ast.List | ast.Tuple):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = [self.value(a) for a in node.args]
            kwargs = {k.arg: self.value(k.value) for k in node.keywords if k.arg}
            if node.func.id == "table_cell":
                names = ("doc", "page", "table", "row", "col")
                return self.cell_probe({**dict(zip(names, args, strict=False)), **kwargs})
            if node.func.id in ("max", "min", "sum"):
                seq = args[0] if len(args) == 1 and isinstance(args[0], list) else args
                fn = {"max": max, "min": min, "sum": lambda s: sum(s, Decimal(0))}[node.func.id]
                return fn(seq)
            if node.func.id in ("D", "Decimal") and len(args) == 1:
                return Decimal(str(args[0]))
        raise _Unsupported(ast.dump(node)[:80])


def _is_cell(cell: SourceCell, args: dict[str, object]) -> bool:
    def same(value: object, label: str, index: int) -> bool:
        if isinstance(value, Decimal):
            return int(value) == index
        return value == label

    where = (str(args.get("doc")), _int(args.get("page")), _int(args.get("table")))
    return (
        where == (cell.doc_id, cell.page_no, cell.table_no)
        and same(args.get("row"), cell.row_label, cell.row_idx)
        and same(args.get("col"), cell.col_label, cell.col_idx)
    )


def _int(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, InvalidOperation):
        return None


def run_oracle_on_probes(
    source: str, cells: Sequence[SourceCell], probes: Sequence[Decimal]
) -> tuple[Decimal, int | None, str | None, list[str]] | None:
    """(answer, places, unit, reads of cells not in ``cells``) of the oracle program with
    each cell replaced by its probe number; None when the program is not a straight line
    of ``table_cell`` reads, arithmetic (``+ - * /``, ``max``, ``min``, ``sum``) and one
    ``emit`` (identity checks are skipped)."""
    run = _Run(cells, probes)
    emitted = None
    try:
        tree = ast.parse(source)
        with localcontext() as ctx:
            ctx.prec = 50
            for stmt in tree.body:
                if isinstance(stmt, ast.Import | ast.ImportFrom):
                    continue
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    target = stmt.targets[0]
                    if not isinstance(target, ast.Name):
                        raise _Unsupported("assignment target")
                    run.env[target.id] = run.value(stmt.value)
                    continue
                call = stmt.value if isinstance(stmt, ast.Expr) else None
                if isinstance(call, ast.Constant) and isinstance(call.value, str):
                    continue  # docstring
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                    if call.func.id == "check_identity":
                        continue
                    if call.func.id == "emit" and emitted is None:
                        names = ("answer", "places", "unit")
                        emitted = dict(zip(names, call.args, strict=False))
                        emitted.update({k.arg: k.value for k in call.keywords if k.arg})
                        continue
                raise _Unsupported(type(stmt).__name__)
            if emitted is None or "answer" not in emitted:
                return None
            answer = run.value(emitted["answer"])
        places = ast.literal_eval(emitted["places"]) if "places" in emitted else None
        unit = ast.literal_eval(emitted["unit"]) if "unit" in emitted else None
    except (_Unsupported, SyntaxError, ValueError, TypeError, ArithmeticError):
        return None
    if not isinstance(answer, Decimal):
        return None
    return answer, places, unit, run.stray


PROBES = tuple(Decimal(p) for p in (3, 7, 13, 29, 61, 127, 251, 509, 1021, 2039, 4093, 8191))


def oracle_problems(
    reading: QuestionReading, cells: Sequence[SourceCell], oracle_source: str
) -> list[str]:
    """Rule 9: the oracle, run on probe numbers, computes what the question asks of its
    cells (taken in the oracle's read order, which rules 1-3 tie to the question's)."""
    probes = PROBES[: len(cells)]
    if len(probes) < len(cells):
        return []
    ran = run_oracle_on_probes(oracle_source, cells, probes)
    if ran is None:
        return []  # not a straight-line program: its cells are still checked
    answer, places, unit, stray = ran
    found = [f"the oracle reads a cell that is not among the sources ({s})" for s in stray]
    try:
        asked = compute(reading.operation, probes)
    except (ArithmeticError, IndexError, ValueError):
        return found
    if abs(asked - answer) > Decimal("1e-20") * max(Decimal(1), abs(asked)):
        found.append(
            f"the oracle computes another formula than the {reading.operation} the question asks "
            f"(on probes {', '.join(map(str, probes))}: oracle {answer:.6g}, asked {asked:.6g})"
        )
    if places is not None and places != reading.places:
        found.append(f"the oracle rounds to {places} places, the question asks {reading.places}")
    if unit is not None and norm(unit) != norm(reading.unit):
        found.append(f"the oracle emits unit {unit!r}, the question asks {reading.unit!r}")
    return found


# ---------------------------------------------------------------------------------------
# The validation rule
# ---------------------------------------------------------------------------------------

_CELL_KEY = ["doc_id", "page_no", "table_no", "row_idx", "col_idx"]
_TABLE_KEY = ["doc_id", "page_no", "table_no"]


@dataclass
class ReadingContext:
    """What the table and anchor stages know of the cells drafts read: statement and unit
    of each table, period, axis, parent and dimension of each cell, and which cells each
    total adds up (empty where not built)."""

    tables: dict[tuple, dict] = field(default_factory=dict)
    cells: dict[tuple, dict] = field(default_factory=dict)
    # table key -> total (row_idx, col_idx) -> member positions (directly)
    totals: dict[tuple, dict[tuple[int, int], set[tuple[int, int]]]] = field(default_factory=dict)

    @classmethod
    def load(cls, warehouse_dir: Path, drafts: pl.DataFrame) -> ReadingContext:
        """The tables and cells of ``warehouse_dir`` that ``drafts`` read."""
        sources = (
            drafts.select("sources")
            .explode("sources", empty_as_null=True)
            .drop_nulls("sources")
            .unnest("sources")
        )
        context = cls()
        if sources.is_empty():
            return context
        wanted = sources.select(_CELL_KEY).unique()
        tables_dir, cells_dir = Path(warehouse_dir) / "tables", Path(warehouse_dir) / "table_cells"
        if any(tables_dir.glob("*.parquet")):
            tables = pl.read_parquet(
                tables_dir / "*.parquet", columns=["table_id", *_TABLE_KEY, "statement", "unit"]
            ).join(wanted.select(_TABLE_KEY).unique(), on=_TABLE_KEY)
            for t in tables.iter_rows(named=True):
                context.tables[tuple(t[k] for k in _TABLE_KEY)] = t
            context._load_totals(Path(warehouse_dir) / "identities", tables)
        if any(cells_dir.glob("*.parquet")):
            columns = [
                "row_parent",
                "period_kind",
                "period_start",
                "period_end",
                "period_axis",
                "dimension",
            ]
            cells = (
                pl.scan_parquet(cells_dir / "*.parquet")
                .select(*_CELL_KEY, *columns)
                .join(wanted.lazy(), on=_CELL_KEY, how="semi")
                .collect()
            )
            for c in cells.iter_rows(named=True):
                context.cells[tuple(c[k] for k in _CELL_KEY)] = c
        return context

    def _load_totals(self, identities_dir: Path, tables: pl.DataFrame) -> None:
        if not any(identities_dir.glob("*.parquet")):
            return
        columns = ["table_id", "total_row_idx", "total_col_idx", "member_rows", "member_cols"]
        keys = {
            t["table_id"]: tuple(t[k] for k in _TABLE_KEY) for t in tables.iter_rows(named=True)
        }
        identities = pl.read_parquet(identities_dir / "*.parquet", columns=columns).filter(
            pl.col("table_id").is_in(list(keys))
        )
        for i in identities.iter_rows(named=True):
            totals = self.totals.setdefault(keys[i["table_id"]], {})
            members = zip(i["member_rows"] or [], i["member_cols"] or [], strict=True)
            totals.setdefault((i["total_row_idx"], i["total_col_idx"]), set()).update(members)

    def adds_up(self, table: tuple, total: tuple[int, int]) -> frozenset[tuple[int, int]]:
        """Every cell the total adds up, through subtotals (none for a cell no identity
        totals)."""
        direct = self.totals.get(table, {})
        seen: set[tuple[int, int]] = set()
        todo = list(direct.get(total, ()))
        while todo:
            cell = todo.pop()
            if cell not in seen and cell != total:
                seen.add(cell)
                todo += direct.get(cell, ())
        return frozenset(seen)

    def cells_of(self, sources: list[dict]) -> list[SourceCell]:
        out = []
        for s in sources:
            known: dict[str, object] = {}
            table_key = tuple(s.get(k) for k in _TABLE_KEY)
            table = self.tables.get(table_key)
            if table is not None:
                known.update(statement=table["statement"] or "", unit=table["unit"] or "")
                if self.totals:
                    known["adds_up"] = self.adds_up(table_key, (s["row_idx"], s["col_idx"]))
            cell = self.cells.get(tuple(s.get(k) for k in _CELL_KEY))
            if cell is not None:
                kind = cell["period_kind"]
                known.update(
                    period_key=(kind, cell["period_start"], cell["period_end"]) if kind else None,
                    period_axis=cell["period_axis"] or None,
                    row_parent=cell["row_parent"] or "",
                    dimension=cell["dimension"] or "",
                )
            out.append(SourceCell.from_source(s, **known))
        return out


def question_reasons(draft: dict, context: ReadingContext | None = None) -> list[str]:
    """``question_mismatch``: the question cannot be read, or what it asks disagrees with
    the cells its oracle reads (:func:`check_reading`, every rule)."""
    try:
        reading = parse_question(draft.get("question") or "")
    except ReadingError as error:
        return [f"question_mismatch: cannot read the question: {error}"]
    cells = (context or ReadingContext()).cells_of(list(draft.get("sources") or []))
    problems = check_reading(
        reading,
        cells,
        unit=draft.get("unit"),
        places=draft.get("precision"),
        oracle_source=draft.get("oracle_source"),
    )
    return [f"question_mismatch: {p}" for p in dict.fromkeys(problems)]
