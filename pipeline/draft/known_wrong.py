"""Known-wrong answer families: the plausible slips a grader must not accept.

Each family is a small registered function that proposes wrong answers for one task,
either by swapping one input for a slipped reading and recomputing through the task's
formula (misread digit, adjacent row or column, printed-vs-total, earlier printing), or
by transforming the key itself (another base, flipped sign). The drafter rounds every
proposal to the task's precision and keeps those that differ from the key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal

from pipeline.draft.archive import Archive, Fact, StatementTable
from pipeline.draft.formulas import FORMULAS
from pipeline.draft.kinds import TaskSpec

# OCR and reading confusions named by the architecture, both directions.
CONFUSIONS: dict[str, tuple[str, ...]] = {
    "8": ("6", "9", "3"),
    "6": ("8", "5"),
    "9": ("8",),
    "3": ("8",),
    "1": ("7",),
    "7": ("1",),
    "5": ("6",),
}
MISREADS_PER_INPUT = 2


@dataclass(frozen=True)
class Slip:
    """A wrong answer before rounding, with the reason a reader would give it."""

    value: Decimal | None  # None: the slip leaves the formula undefined
    reason: str


@dataclass(frozen=True)
class WrongContext:
    spec: TaskSpec
    key: Decimal  # unrounded key
    archive: Archive
    tables: dict[str, StatementTable]

    def with_input(self, index: int, value: Decimal) -> Decimal | None:
        """The task's formula with input ``index`` replaced; None when it is undefined."""
        values = [f.value for f in self.spec.inputs]
        values[index] = value
        try:
            return FORMULAS[self.spec.formula].evaluate(values)
        except (ArithmeticError, ValueError):
            return None  # e.g. a slipped base of zero: no answer to propose


FamilyFn = Callable[[WrongContext], Iterator[Slip]]
KNOWN_WRONG_FAMILIES: dict[str, FamilyFn] = {}


def known_wrong_family(name: str) -> Callable[[FamilyFn], FamilyFn]:
    """Register a known-wrong family under ``name`` (the ``family`` of each known_wrong entry)."""

    def register(fn: FamilyFn) -> FamilyFn:
        if name in KNOWN_WRONG_FAMILIES:
            raise ValueError(f"known-wrong family {name!r} registered twice")
        KNOWN_WRONG_FAMILIES[name] = fn
        return fn

    return register


def _where(fact: Fact) -> str:
    return f"{fact.item}, {fact.period.text}"


def misreadings(value_str: str) -> Iterator[tuple[str, str, str]]:
    """(misread text, digit, read as) for one confusable digit, most significant first."""
    for i, ch in enumerate(value_str):
        for other in CONFUSIONS.get(ch, ()):
            text = value_str[:i] + other + value_str[i + 1 :]
            if text.lstrip("-").startswith("0") and not text.lstrip("-").startswith("0."):
                continue  # a leading zero is not a plausible reading
            yield text, ch, other


# Most specific families first: a value two families share keeps the first reason.
@known_wrong_family("printed_vs_total")
def printed_vs_total(ctx: WrongContext) -> Iterator[Slip]:
    for i, fact in enumerate(ctx.spec.inputs):
        if (
            fact.status == "contradicted"
            and fact.printed_str
            and fact.printed_str != fact.value_str
        ):
            yield Slip(
                ctx.with_input(i, Decimal(fact.printed_str)),
                f"used the printed {fact.printed_str} for {_where(fact)}, which contradicts "
                f"its table's total (the total implies {fact.value_str})",
            )


@known_wrong_family("earlier_printing")
def earlier_printing(ctx: WrongContext) -> Iterator[Slip]:
    for i, fact in enumerate(ctx.spec.inputs):
        for old in ctx.archive.earlier_printings(fact):
            yield Slip(
                ctx.with_input(i, old.value),
                f"used the earlier unrevised printing {old.value_str} of {_where(fact)} "
                f"(volume {old.volume}) instead of the revision {fact.value_str}",
            )


@known_wrong_family("misread_digit")
def misread_digit(ctx: WrongContext) -> Iterator[Slip]:
    for i, fact in enumerate(ctx.spec.inputs):
        for n, (text, digit, other) in enumerate(misreadings(fact.value_str)):
            if n >= MISREADS_PER_INPUT:
                break
            yield Slip(
                ctx.with_input(i, Decimal(text)),
                f"misread digit {digit} as {other} in {_where(fact)} ({fact.value_str} -> {text})",
            )


def _adjacent(ctx: WrongContext, axis: str) -> Iterator[Slip]:
    for i, fact in enumerate(ctx.spec.inputs):
        table = ctx.tables[fact.table_id]
        for step in (-1, 1):
            pos = (
                (fact.row_idx + step, fact.col_idx)
                if axis == "row"
                else (
                    fact.row_idx,
                    fact.col_idx + step,
                )
            )
            other = table.at(*pos)
            if other is None or other.position in {f.position for f in ctx.spec.inputs}:
                continue
            yield Slip(
                ctx.with_input(i, other.value),
                f"read the adjacent {axis} ({_where(other)}) instead of {_where(fact)}",
            )


@known_wrong_family("adjacent_row")
def adjacent_row(ctx: WrongContext) -> Iterator[Slip]:
    return _adjacent(ctx, "row")


@known_wrong_family("adjacent_column")
def adjacent_column(ctx: WrongContext) -> Iterator[Slip]:
    """The neighbouring column: the adjacent year where columns are years."""
    return _adjacent(ctx, "column")


@known_wrong_family("other_base")
def other_base(ctx: WrongContext) -> Iterator[Slip]:
    """The unit slips: the figure as printed taken in another scale (x1,000 or
    x1,000,000 when the table is in thousands or millions and the answer is given in
    units), or a fraction for a percent."""
    if ctx.spec.unit == "percent":
        yield Slip(ctx.key / 100, "gave a fraction instead of percent")
        return
    unit = ctx.spec.unit.lower()
    if "million" in unit:
        yield Slip(ctx.key * 1_000_000, f"converted {ctx.spec.unit} to units (x1,000,000)")
    if "billion" in unit:
        yield Slip(ctx.key * 1_000_000_000, f"converted {ctx.spec.unit} to units (x1,000,000,000)")
    yield Slip(ctx.key * 1000, f"scaled by 1,000 (a smaller unit than {ctx.spec.unit})")
    yield Slip(ctx.key / 1000, f"divided by 1,000 (a larger unit than {ctx.spec.unit})")


@known_wrong_family("other_period")
def other_period(ctx: WrongContext) -> Iterator[Slip]:
    """The same item read in the neighbouring period of its series (the year before or
    after, the previous quarter), or in a period of another kind printed beside it."""
    inputs = {f.position for f in ctx.spec.inputs}
    for i, fact in enumerate(ctx.spec.inputs):
        series = ctx.archive.series_periods(fact)
        keys = [f.period.key for f in series]
        at = keys.index(fact.period.key) if fact.period.key in keys else None
        if at is None:
            continue
        for j in (at - 1, at + 1):
            if 0 <= j < len(series) and series[j].position not in inputs:
                other = series[j]
                yield Slip(
                    ctx.with_input(i, other.value),
                    f"read {other.period.text} ({other.value_str}) instead of "
                    f"{fact.period.text} for {fact.item}",
                )


@known_wrong_family("flipped_sign")
def flipped_sign(ctx: WrongContext) -> Iterator[Slip]:
    yield Slip(-ctx.key, "flipped the sign (subtracted the other way round)")
