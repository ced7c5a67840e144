"""Row/column alignment of the workbook diff and the judge on large generated sheets.

A ledger sheet of N rows (date, region, units, price, a formula column, a status
column with blanks, repeated values and every seventh row empty, so many rows are
not unique) is built in memory (no file reading; reading is not alignment).

Timed, all in this run:
- baseline: one linear pass that computes every row's signature on both sides, the
  least any aligner must do; every other time is printed as a ratio to it;
- diff of the sheet against itself at N/4, N/2 and N rows (near-linear: doubling
  the rows should about double the time);
- diff of the sheet against a near copy (rows inserted and deleted, cells edited);
- the judge on a task whose reference adds a column to the N-row sheet, with the
  reference as the output (diff_ref, diff_model, checker build and check);
- the previous quadratic path (difflib over the whole sequence) against the anchored
  one on the same rows, at a size the quadratic path finishes in (``--legacy-rows``).

    .venv/bin/python benchmarks/bench_judge_alignment.py [--rows 50000] [--legacy-rows 16000]
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections.abc import Callable
from pathlib import Path

from pipeline.detect import alignment
from pipeline.detect.diffs import cell_key, diff_workbooks
from pipeline.ingest.workbooks import Cell, Sheet, Workbook
from pipeline.judge.checker import build_checker

TARGET_SECONDS = 10.0  # issue 9: a 50,000-row sheet against itself in under 10 s
REGIONS = ("North", "South", "East", "West")


def _cell(sheet: str, row: int, col: int, value: object, formula: str | None = None) -> Cell:
    kind = "T" if isinstance(value, str) else ("I" if isinstance(value, int) else "F")
    return Cell(sheet, row, col, value, kind, formula)


def ledger(rows: int, seed: int = 7, extra_col: bool = False) -> Sheet:
    """The generated sheet; ``extra_col`` adds the task's column G (units x 2)."""
    rng = random.Random(seed)
    sheet = Sheet("Ledger", 0)
    header = ["Date", "Region", "Units", "Price", "Amount", "Status"]
    for c, name in enumerate(header + (["Double"] if extra_col else []), start=1):
        sheet.cells[(1, c)] = _cell("Ledger", 1, c, name)
    for r in range(2, rows + 1):
        if r % 7 == 0:
            continue  # blank separator rows: many identical (empty) signatures
        units, price = rng.randint(0, 40), rng.choice((2.5, 5.0, 7.5, 10.0))
        values: list[tuple[object, str | None]] = [
            (f"2023-{r % 12 + 1:02d}-{r % 28 + 1:02d}", None),
            (rng.choice(REGIONS), None),
            (units, None),
            (price, None),
            (units * price, f"=C{r}*D{r}"),
            ("ok" if r % 5 else "check", None),
        ]
        if extra_col:
            values.append((units * 2, f"=C{r}*2"))
        for c, (value, formula) in enumerate(values, start=1):
            sheet.cells[(r, c)] = _cell("Ledger", r, c, value, formula)
    return sheet


def near_copy(sheet: Sheet, seed: int = 11, edits: int = 200, moves: int = 20) -> Sheet:
    """The sheet with ``moves`` rows deleted, ``moves`` rows inserted and ``edits``
    cells changed (rows shift, as in a real revision)."""
    rng = random.Random(seed)
    rows: dict[int, dict[int, Cell]] = {}
    for (r, c), cell in sheet.cells.items():
        rows.setdefault(r, {})[c] = cell
    order = list(range(1, sheet.max_row + 1))
    for r in rng.sample(order[1:], moves):
        order.remove(r)
    for _ in range(moves):
        order.insert(rng.randint(1, len(order)), -1)  # a new row
    out = Sheet(sheet.name, 0)
    for new_r, old_r in enumerate(order, start=1):
        if old_r == -1:
            out.cells[(new_r, 1)] = _cell(sheet.name, new_r, 1, f"inserted {new_r}")
            out.cells[(new_r, 3)] = _cell(sheet.name, new_r, 3, rng.randint(0, 40))
            continue
        for c, cell in rows.get(old_r, {}).items():
            out.cells[(new_r, c)] = Cell(
                sheet.name, new_r, c, cell.value, cell.type, cell.formula and f"=C{new_r}*D{new_r}"
            )
    keys = [k for k in out.cells if k[0] > 1 and k[1] == 3]
    for key in rng.sample(keys, min(edits, len(keys))):
        old = out.cells[key]
        out.cells[key] = Cell(old.sheet, old.row, old.col, int(old.value) + 1000, "I", None)
    return out


def book(sheet: Sheet, name: str) -> Workbook:
    return Workbook(Path(f"(generated {name})"), name, "xlsx", {sheet.name: sheet})


CPU: dict[str, float] = {}


def timed(fn: Callable[[], object], label: str = "") -> tuple[float, object]:
    """Wall seconds and the value; the CPU seconds go to ``CPU[label]`` (the number
    comparable across runs on a shared machine)."""
    start, cpu = time.perf_counter(), time.process_time()
    value = fn()
    CPU[label] = time.process_time() - cpu
    return time.perf_counter() - start, value


def signatures(sheet: Sheet) -> list[tuple]:
    """Every row's signature: the linear floor of any row alignment."""
    cols = range(1, sheet.max_col + 1)
    return [tuple(cell_key(sheet.get(r, c)) for c in cols) for r in range(1, sheet.max_row + 1)]


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--legacy-rows", type=int, default=16_000, help="0 to skip")
    args = parser.parse_args(argv)
    n = args.rows
    report: dict[str, float] = {}

    fresh = (ledger(n), ledger(n))  # the baseline's own copies (cell text is cached once read)
    gc.collect()
    base_s, _ = timed(lambda f=fresh: (signatures(f[0]), signatures(f[1])), "baseline")
    report["baseline_s"], report["baseline_cpu_s"] = base_s, CPU["baseline"]
    print(f"{n:,} rows x 6 columns ({len(fresh[0].cells):,} cells per side); wall and CPU s")
    print(
        f"baseline (row signatures of both sides, linear): {base_s:6.2f} s "
        f"(CPU {CPU['baseline']:.2f} s)"
    )
    del fresh

    for k in (n // 4, n // 2, n):
        pair = (ledger(k), ledger(k))  # generated per size, so only one pair is alive
        gc.collect()
        secs, diff = timed(
            lambda pair=pair: diff_workbooks(book(pair[0], "a"), book(pair[1], "b")), f"self_{k}"
        )
        assert diff.is_empty, "a sheet diffed against itself must show no edit"  # type: ignore[attr-defined]
        report[f"self_{k}_s"], report[f"self_{k}_cpu_s"] = secs, CPU[f"self_{k}"]
        print(
            f"diff against itself, {k:>7,} rows: {secs:6.2f} s (CPU {CPU[f'self_{k}']:5.2f} s, "
            f"{CPU[f'self_{k}'] / CPU['baseline']:4.1f}x baseline)"
        )
        del pair, diff
    half, full = report[f"self_{n // 2}_cpu_s"], report[f"self_{n}_cpu_s"]
    report["doubling_ratio"] = full / half
    print(f"doubling the rows multiplies the CPU time by {full / half:.2f} (2.0 = linear)")

    original = ledger(n)
    changed = near_copy(original)
    gc.collect()
    secs, diff = timed(
        lambda a=original, c=changed: diff_workbooks(book(a, "a"), book(c, "c")), "near"
    )
    sd = diff.sheets[0]  # type: ignore[attr-defined]
    rows_in = sum(a.count for a in sd.axis_edits if a.axis == "row" and a.kind == "inserted")
    rows_out = sum(a.count for a in sd.axis_edits if a.axis == "row" and a.kind == "deleted")
    report["near_copy_s"], report["near_copy_cpu_s"] = secs, CPU["near"]
    print(
        f"diff against a near copy (20 rows in, 20 out, 200 cells): {secs:6.2f} s "
        f"(CPU {CPU['near']:.2f} s, {CPU['near'] / CPU['baseline']:.1f}x baseline); "
        f"found {rows_in} rows inserted, "
        f"{rows_out} deleted, {len(sd.cell_edits)} cell edits"
    )

    del original, changed, diff
    inp, ref = book(ledger(n), "input"), book(ledger(n, extra_col=True), "reference")
    out = book(ledger(n, extra_col=True), "output")
    gc.collect()

    def judge() -> object:
        checker = build_checker(inp, ref)
        return checker, checker.check(out)

    secs, (checker, result) = timed(judge, "judge")  # type: ignore[misc]
    report["judge_s"], report["judge_cpu_s"] = secs, CPU["judge"]
    print(
        f"judge, reference adds a column to {n:,} rows, output = reference: {secs:6.2f} s "
        f"(CPU {CPU['judge']:.2f} s, {CPU['judge'] / CPU['baseline']:.1f}x baseline); "
        f"verdict {result.verdict}, "  # type: ignore[attr-defined]
        f"{len(checker.required):,} required cells"  # type: ignore[attr-defined]
    )
    wall = report[f"self_{n}_s"]
    verdict = "meets" if wall < TARGET_SECONDS else "misses"
    print(f"{n:,}-row self-diff: {wall:.2f} s wall ({verdict} the {TARGET_SECONDS:.0f} s target)")

    if args.legacy_rows:
        k = args.legacy_rows
        sig_a, sig_b = signatures(ledger(k)), signatures(ledger(k))
        same = lambda i, j: 1.0  # noqa: E731 - never called on identical sequences
        timed(lambda: alignment._align_block(sig_a, sig_b, same, alignment.GAP_PENALTY), "old")
        timed(lambda: alignment.align(sig_a, sig_b, same), "new")
        old_s, new_s = CPU["old"], CPU["new"]
        report["legacy_align_s"], report["anchored_align_s"] = old_s, new_s
        print(
            f"row alignment of {k:,} rows against themselves (CPU): difflib over the whole "
            f"sequence {old_s:.2f} s, anchored {new_s:.3f} s ({old_s / new_s:.0f}x faster)"
        )
    return report


if __name__ == "__main__":
    main()
