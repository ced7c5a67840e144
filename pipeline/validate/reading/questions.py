"""Reading a published question: its period phrases and its grammar.

Part of :mod:`pipeline.validate.reading`; see its docstring for the whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

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
    (
        "end_of_year",
        rf"the end of (fiscal|calendar) year ({_YEAR}) \(({_MONTH}) (\d{{1,2}}), ({_YEAR})\)",
    ),
    (
        # the change between two balances (ESF-1 "Dec. 31, 1996, through Mar. 31, 1997")
        "change",
        rf"the change from ({_MONTH}) (\d{{1,2}}), ({_YEAR}) to ({_MONTH}) (\d{{1,2}}), ({_YEAR}) "
        rf"\(the ({_MONTH}) ?{_DASH} ?({_MONTH}) ({_YEAR}) quarter\)",
    ),
    ("basis_year", rf"(fiscal|calendar) year ({_YEAR})"),
    ("quarter", rf"the ({_MONTH}) ?{_DASH} ?({_MONTH}) ({_YEAR}) quarter"),
    ("end_of_month", rf"the end of ({_MONTH}) ({_YEAR})"),
    ("month_span", rf"({_MONTH}) ?{_DASH} ?({_MONTH}) ({_YEAR})"),
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
        if form == "change":
            first = date(int(g[2]), month_number(g[0]), int(g[1]))
            last = date(int(g[5]), month_number(g[3]), int(g[4]))
            quarter = read_period(f"the {g[6]}-{g[7]} {g[8]} quarter")
            start = first + timedelta(days=1)
            if quarter is None or (quarter.start, quarter.end) != (start, last):
                return None  # the quarter in brackets is not the span between the dates
            return PeriodReading("quarter", start, last, words)
        if form == "quarter":
            first, last, year = month_number(g[0]), month_number(g[1]), int(g[2])
            if (last - first) % 12 != 2:
                return None  # three months or it is not a quarter
            start_year = year - 1 if first > last else year
            return PeriodReading(
                "quarter", date(start_year, first, 1), month_end(year, last), words
            )
        if form == "end_of_year":
            day = date(int(g[4]), month_number(g[2]), int(g[3]))
            if day != _year_bounds(g[0], int(g[1]))[1]:
                return None  # the date in brackets is not the end of that year
            return PeriodReading("as_of_date", day, day, words)
        if form == "month_span":
            first, last, year = month_number(g[0]), month_number(g[1]), int(g[2])
            start_year = year - 1 if first > last else year
            return PeriodReading(
                "year_to_date", date(start_year, first, 1), month_end(year, last), words
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
