"""Arithmetic: what a question asks, and what its oracle program computes on probe numbers.

Part of :mod:`pipeline.validate.reading`; see its docstring for the whole.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext

from pipeline.validate.reading.cells import (
    SourceCell,
    norm,
)
from pipeline.validate.reading.questions import (
    QuestionReading,
)

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
