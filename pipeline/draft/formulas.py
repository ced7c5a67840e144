"""The arithmetic a task asks for, written twice on purpose: as oracle code and in Python.

The drafter evaluates a formula to propose known-wrong answers (it re-evaluates with a
slipped input); the oracle program carries the same formula as text. Validation compares
the oracle's key with the drafter's, so the two renderings cannot drift apart unnoticed.
Operations keep the order the oracle text uses, so Decimal results are identical.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext

HUNDRED = Decimal(100)


@dataclass(frozen=True)
class Formula:
    """One operation over the values an oracle reads (in the order it reads them)."""

    name: str
    code: Callable[[Sequence[str]], str]  # variable names -> Python expression
    evaluate: Callable[[Sequence[Decimal]], Decimal]


def _sum_code(names: Sequence[str]) -> str:
    return " + ".join(names)


def _sum(values: Sequence[Decimal]) -> Decimal:
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total


def _mean_code(names: Sequence[str]) -> str:
    return f"({_sum_code(names)}) / {len(names)}"


def _mean(values: Sequence[Decimal]) -> Decimal:
    return _sum(values) / len(values)


def _extreme(pick: str) -> Formula:
    choose = max if pick == "max" else min
    return Formula(pick, lambda n: f"{pick}([{', '.join(n)}])", lambda v: choose(v))


FORMULAS: dict[str, Formula] = {
    f.name: f
    for f in (
        Formula("value", lambda n: n[0], lambda v: v[0]),
        Formula("sum", _sum_code, _sum),
        Formula("difference", lambda n: f"{n[0]} - {n[1]}", lambda v: v[0] - v[1]),
        # inputs are (earlier, later)
        Formula("change", lambda n: f"{n[1]} - {n[0]}", lambda v: v[1] - v[0]),
        Formula("share", lambda n: f"{n[0]} / {n[1]} * 100", lambda v: v[0] / v[1] * HUNDRED),
        Formula(
            "percent_change",
            lambda n: f"({n[1]} - {n[0]}) / {n[0]} * 100",
            lambda v: (v[1] - v[0]) / v[0] * HUNDRED,
        ),
        Formula(
            "excess",
            lambda n: f"({n[0]} - {n[1]}) / {n[1]} * 100",
            lambda v: (v[0] - v[1]) / v[1] * HUNDRED,
        ),
        Formula("mean", _mean_code, _mean),
        _extreme("max"),
        _extreme("min"),
    )
}


def quantum(places: int) -> Decimal:
    """One unit of the last requested place: 0 -> 1, 2 -> 0.01."""
    return Decimal(1).scaleb(-places)


def round_half_up(value: Decimal, places: int) -> Decimal:
    """Round once, half away from zero, as ``oracles.api.emit`` does."""
    return value.quantize(quantum(places), rounding=ROUND_HALF_UP)


def evaluate(formula: str, values: Sequence[Decimal], places: int) -> Decimal | None:
    """The rounded result, or None when the arithmetic is undefined (division by zero)."""
    with localcontext() as ctx:
        ctx.prec = 28  # the default context the oracle runs under
        try:
            return round_half_up(FORMULAS[formula].evaluate(values), places)
        except (InvalidOperation, ZeroDivisionError):
            return None


def interval(key: Decimal, places: int) -> tuple[Decimal, Decimal]:
    """Half a unit of the last place each side: as narrow as the precision asks."""
    half = quantum(places) / 2
    return key - half, key + half


def decimal_places(value_str: str) -> int:
    """Decimal places printed in an exact decimal text ("-12.50" -> 2)."""
    exponent = Decimal(value_str).as_tuple().exponent
    return max(0, -int(exponent))
