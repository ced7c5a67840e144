"""The task kinds: a registry of small functions, each proposing tasks from one table.

A kind function receives the archive, one statement table and a seeded random source and
yields ``TaskSpec`` objects: which facts to read (always the latest printing of their
series and period, i.e. the latest revision), which formula to apply, the question, the
unit and the precision. Adding a kind is adding a decorated function here.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pipeline.draft.archive import UNKNOWN_UNIT, Archive, Fact, StatementTable, fact_problems
from pipeline.draft.phrasing import join_items, phrase

PERCENT = "percent"
PERCENT_PLACES = 2  # h = 0.005 percentage points: a small fraction of a percent


@dataclass(frozen=True)
class TaskSpec:
    """What one task asks: read these facts, apply this formula, round to ``places``."""

    kind: str
    formula: str
    inputs: tuple[Fact, ...]
    question: str
    unit: str
    places: int
    problems: tuple[str, ...] = ()  # why the question cannot be stated exactly (rejected)


KindFn = Callable[[Archive, StatementTable, random.Random], Iterator[TaskSpec]]
TASK_KINDS: dict[str, KindFn] = {}


def task_kind(name: str) -> Callable[[KindFn], KindFn]:
    """Register a task kind under ``name`` (the ``kind`` column of drafts and releases)."""

    def register(fn: KindFn) -> KindFn:
        if name in TASK_KINDS:
            raise ValueError(f"task kind {name!r} registered twice")
        TASK_KINDS[name] = fn
        return fn

    return register


PER_TABLE = 2  # tasks of each kind proposed per table
_TOTAL_AT = re.compile(r":r(\d+)c(\d+)$")  # identity ids end in the total's position


def _latest_facts(archive: Archive, table: StatementTable, item: str) -> list[Fact]:
    """The item's facts in this table that are the latest printing, in period order."""
    facts = [table.fact(item, p) for p in table.periods]
    return [f for f in facts if f is not None and archive.is_latest(f)]


def _revised(archive: Archive, facts: tuple[Fact, ...]) -> bool:
    return any(archive.earlier_printings(f) for f in facts)


def _amount_places(facts: tuple[Fact, ...]) -> int:
    return max(f.places for f in facts)


def _several_years(fact: Fact) -> bool:
    """A fact over a run of years ("fiscal years 1941-1945", 1953-09 p29): a period a
    question can state, but no step of a series of single years; it is never compared
    with one year or averaged among them."""
    p = fact.period
    return bool(p.start and p.end and (p.end - p.start).days > 366)


def evenly_spaced(facts: tuple[Fact, ...] | list[Fact]) -> bool:
    """Periods that end one same step apart (every month, quarter or year): the only
    windows a statistic "over X through Y, one value per period" names exactly. A window
    stitched from two volumes, one printing quarter ends and the other year ends ("the end
    of December 2005 through the end of calendar year 2006": Dec., Mar., June, then Dec.
    2006 with Sept. printed in neither, audit 2026-12-02), or one with a period missing,
    counts a set of periods the question cannot say."""
    ends = [f.period.end for f in facts]
    if any(e is None for e in ends):
        return False
    months = [e.year * 12 + e.month for e in ends]  # type: ignore[union-attr]
    steps = {b - a for a, b in zip(months, months[1:], strict=False)}
    return len(steps) == 1 and steps.pop() > 0


def _sample(rng: random.Random, candidates: list, k: int = PER_TABLE) -> list:
    """``k`` candidates, those a question can state exactly first (the others are
    drafted only to fill up, and are rejected with their reasons)."""
    picked: list = []
    rest: list = []
    for candidate in rng.sample(candidates, len(candidates)):
        if len(picked) >= k:
            break
        (rest if _problems(candidate) else picked).append(candidate)
    return picked + rest[: k - len(picked)]


def _inputs(candidate) -> tuple[Fact, ...]:
    return candidate if isinstance(candidate, tuple) else (candidate,)


def _problems(candidate, amount: bool = False) -> list[str]:
    """Why a question over these facts cannot be stated exactly (see ``fact_problems``),
    plus periods of different kinds compared and, for an amount, an unknown unit."""
    facts = _inputs(candidate)
    found: list[str] = []
    for f in facts:
        found += [p for p in fact_problems(f) if p not in found]
    kinds = {f.period.kind for f in facts}
    if len(kinds) > 1:
        found.append(f"period_mismatch: compares periods of different kinds {sorted(kinds)}")
    if amount and any(f.unit == UNKNOWN_UNIT for f in facts):
        found.append("unit_unknown: the page prints no unit for these figures")
    return found


def _spec(
    kind: str,
    formula: str,
    inputs: tuple[Fact, ...],
    question: str,
    unit: str,
    places: int,
    extra: list[str] | None = None,
) -> TaskSpec:
    problems = _problems(inputs, amount=unit != PERCENT) + (extra or [])
    return TaskSpec(kind, formula, inputs, question, unit, places, tuple(problems))


def _slots(facts: tuple[Fact, ...]) -> dict[str, str]:
    when = facts[0].period.when
    return {
        "statement": facts[0].statement,
        "unit": facts[0].unit,
        "when": when,
        "When": when[:1].upper() + when[1:],
    }


@task_kind("read_number")
def read_number(archive: Archive, table: StatementTable, rng: random.Random) -> Iterator[TaskSpec]:
    """Read one printed (anchored) number."""
    facts = [f for f in table.grid.values() if archive.is_latest(f)]
    for fact in _sample(rng, facts):
        inputs = (fact,)
        question = phrase(
            "read_number",
            rng,
            places=fact.places,
            revised=_revised(archive, inputs),
            item=fact.item,
            period=fact.period.text,
            **_slots(inputs),
        )
        yield _spec("read_number", "value", inputs, question, fact.unit, fact.places)


@task_kind("sum_rows")
def sum_rows(archive: Archive, table: StatementTable, rng: random.Random) -> Iterator[TaskSpec]:
    """Add two or three adjacent member items of one period (never all of them: that is printed)."""
    members = table.members()
    candidates = []
    for period in table.periods:
        for width in (2, 3):
            if width >= len(members):
                continue
            for start in range(len(members) - width + 1):
                facts = [table.fact(m, period) for m in members[start : start + width]]
                if all(f is not None and archive.is_latest(f) for f in facts) and _siblings(facts):
                    candidates.append(tuple(facts))
    for inputs in _sample(rng, candidates):
        places = _amount_places(inputs)
        question = phrase(
            "sum_rows",
            rng,
            places=places,
            revised=_revised(archive, inputs),
            items=join_items([f.item for f in inputs]),
            period=inputs[0].period.text,
            **_slots(inputs),
        )
        yield _spec("sum_rows", "sum", inputs, question, inputs[0].unit, places)


def _siblings(facts) -> bool:
    """Members of one identity (parts of one total), none of them that total: only such
    figures are added up or compared as parts of a statement (no stock plus flow)."""
    common = set.intersection(*(set(f.identity_ids) for f in facts))
    for ident in common:
        m = _TOTAL_AT.search(ident)
        total = (int(m.group(1)), int(m.group(2))) if m else None
        if all((f.row_idx, f.col_idx) != total for f in facts):
            return True
    return False


def _latest_members(archive: Archive, table: StatementTable, period) -> list[Fact]:
    """The table's member facts of one period that are the latest printing, in order."""
    facts = (table.fact(m, period) for m in table.members())
    return [f for f in facts if f is not None and archive.is_latest(f)]


@task_kind("difference")
def difference(archive: Archive, table: StatementTable, rng: random.Random) -> Iterator[TaskSpec]:
    """One member item minus another in the same period."""
    candidates = []
    for period in table.periods:
        row = _latest_members(archive, table, period)
        candidates += [
            (fa, fb) for i, fa in enumerate(row) for fb in row[i + 1 :] if _siblings((fa, fb))
        ]
    for inputs in _sample(rng, candidates):
        places = _amount_places(inputs)
        question = phrase(
            "difference",
            rng,
            places=places,
            revised=_revised(archive, inputs),
            item=inputs[0].item,
            item2=inputs[1].item,
            period=inputs[0].period.text,
            **_slots(inputs),
        )
        yield _spec("difference", "difference", inputs, question, inputs[0].unit, places)


def _period_pairs(archive: Archive, table: StatementTable) -> list[tuple[Fact, Fact]]:
    """(earlier, later) pairs of one series; pairs printed in different volumes first.

    The later fact comes from this table; the earlier one is the latest printing of its
    period anywhere in the archive, so a series reprinted across volumes yields pairs
    that read two volumes.
    """
    across, within = [], []
    for item in table.items:
        for later in _latest_facts(archive, table, item):
            for earlier in archive.series_periods(later):
                if earlier.period.order >= later.period.order:
                    continue
                if earlier.period.kind != later.period.kind:
                    continue  # a fiscal year is never compared with a month or a year to date
                if _several_years(earlier) or _several_years(later):
                    continue
                (across if earlier.doc_id != later.doc_id else within).append((earlier, later))
    return across + within


def _prefer_across(rng: random.Random, pairs: list[tuple[Fact, Fact]]) -> list[tuple[Fact, Fact]]:
    across = [p for p in pairs if p[0].doc_id != p[1].doc_id]
    return _sample(rng, across) if across else _sample(rng, pairs)


@task_kind("change_between_periods")
def change_between_periods(
    archive: Archive, table: StatementTable, rng: random.Random
) -> Iterator[TaskSpec]:
    """Later minus earlier value of one series; across volumes where it is reprinted."""
    for inputs in _prefer_across(rng, _period_pairs(archive, table)):
        places = _amount_places(inputs)
        question = phrase(
            "change_between_periods",
            rng,
            places=places,
            revised=_revised(archive, inputs),
            item=inputs[1].item,
            period=inputs[0].period.text,
            period2=inputs[1].period.text,
            **_slots(inputs),
        )
        yield _spec("change_between_periods", "change", inputs, question, inputs[0].unit, places)


def _totals(whole: Fact, part: Fact) -> bool:
    """``whole`` is the total of an identity that ``part`` is a member of (identity ids
    end in the total's position, ``...:r{row}c{col}``)."""
    for ident in set(part.identity_ids) & set(whole.identity_ids):
        m = _TOTAL_AT.search(ident)
        if m and (int(m.group(1)), int(m.group(2))) == (whole.row_idx, whole.col_idx):
            return True
    return False


# A line that is a difference of two others, printed with either sign: a share of a
# total is meaningless for it, and OCR loses its minus sign often enough that a sum
# through it can hold by accident (1948-05 Table 8: receipts 121.0 + "excess" 2.3 =
# expenditures 123.3, where the page prints -2.3).
_BALANCE = re.compile(r"\bexcess\b|\bdeficit\b|\bsurplus\b|\(-\)|\(\u2212\)", re.I)


@task_kind("share_of_total")
def share_of_total(
    archive: Archive, table: StatementTable, rng: random.Random
) -> Iterator[TaskSpec]:
    """A member item as a percent of the total that adds it up, in the same period.

    The total is the one an identity of the table confirms the member belongs to (a
    subtotal for a member of a group, never a grand total it is not part of), and the
    question names it.
    """
    totals = [i for i in table.items if i in table.total_items]
    if not totals:
        return
    candidates = []
    for period in table.periods:
        for total in totals:
            whole = table.fact(total, period)
            if whole is None or not archive.is_latest(whole) or whole.value <= 0:
                continue
            if whole.label.split(" / ")[-1].strip().lower().startswith("net"):
                continue  # a net figure is a difference, not the sum of its lines
            for m in table.members():
                part = table.fact(m, period)
                if part is None or not archive.is_latest(part) or part.value <= 0:
                    continue
                if re.search(r"deduct|\bless\b|minus", f"{part.label} {part.item}", re.I):
                    continue  # a line the total subtracts is no share of it
                if _BALANCE.search(f"{part.label} {part.item}"):
                    continue  # a signed difference ("Excess of receipts, or expenditures (-)")
                if _totals(whole, part):
                    candidates.append((part, whole))
    for inputs in _sample(rng, candidates):
        question = phrase(
            "share_of_total",
            rng,
            places=PERCENT_PLACES,
            revised=_revised(archive, inputs),
            item=inputs[0].item,
            total=inputs[1].item,
            **_slots(inputs),
        )
        yield _spec("share_of_total", "share", inputs, question, PERCENT, PERCENT_PLACES)


@task_kind("percent_change")
def percent_change(
    archive: Archive, table: StatementTable, rng: random.Random
) -> Iterator[TaskSpec]:
    """Percent change of a series between two periods, or percent excess of one item."""
    pairs = [p for p in _period_pairs(archive, table) if p[0].value > 0]
    for inputs in _prefer_across(rng, pairs)[:1]:
        question = phrase(
            "percent_change",
            rng,
            places=PERCENT_PLACES,
            revised=_revised(archive, inputs),
            item=inputs[1].item,
            period=inputs[0].period.text,
            period2=inputs[1].period.text,
            **_slots(inputs),
        )
        yield _spec("percent_change", "percent_change", inputs, question, PERCENT, PERCENT_PLACES)

    excess = []
    for period in table.periods:
        row = _latest_members(archive, table, period)
        excess += [
            (fa, fb)
            for fa in row
            for fb in row
            if fb.value > 0 and fa.value > fb.value and _siblings((fa, fb))
        ]
    for inputs in _sample(rng, excess, 1):
        question = phrase(
            "excess",
            rng,
            places=PERCENT_PLACES,
            revised=_revised(archive, inputs),
            item=inputs[0].item,
            item2=inputs[1].item,
            period=inputs[0].period.text,
            **_slots(inputs),
        )
        yield _spec("percent_change", "excess", inputs, question, PERCENT, PERCENT_PLACES)


STATISTICS = ("mean", "max", "min")


@task_kind("multi_year_statistic")
def multi_year_statistic(
    archive: Archive, table: StatementTable, rng: random.Random
) -> Iterator[TaskSpec]:
    """Mean, maximum or minimum of one series over three to five consecutive periods of
    one kind, evenly spaced (:func:`evenly_spaced`); a window that leaves out a period the
    archive prints is rejected (``incomplete_range``), never silently averaged over fewer
    periods."""
    candidates = []
    for item in table.items:
        here = [f for p in table.periods if (f := table.fact(item, p)) is not None]
        if not here:
            continue
        kind = here[0].period.kind
        # the whole series (latest printings, every volume), one kind of period
        facts = [
            f for f in archive.series_periods(here[0])
            if f.period.kind == kind and not _several_years(f)
        ]  # fmt: skip
        for width in (3, 4, 5):
            for start in range(len(facts) - width + 1):
                window = tuple(facts[start : start + width])
                # windows that touch this table, so each is proposed near its source;
                # one period apart each, or the question cannot say which periods count
                if any(f.table_id == table.table_id for f in window) and evenly_spaced(window):
                    candidates.append(window)
    for inputs in _sample(rng, candidates):
        statistic = rng.choice(STATISTICS)
        places = _amount_places(inputs) + (1 if statistic == "mean" else 0)
        span = f"{inputs[0].period.text} through {inputs[-1].period.text}"
        question = phrase(
            statistic,
            rng,
            places=places,
            revised=_revised(archive, inputs),
            item=inputs[0].item,
            span=span,
            **_slots(inputs),
        )
        missing = archive.missing_in_range(inputs)
        extra = (
            [f"incomplete_range: {', '.join(p.text for p in missing)} printed but not read"]
            if missing
            else []
        )
        yield _spec(
            "multi_year_statistic", statistic, inputs, question, inputs[0].unit, places, extra
        )
