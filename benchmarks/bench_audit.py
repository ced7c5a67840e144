"""Audit throughput: the sandbox worker pool against one fresh interpreter per oracle.

Generates a small warehouse (tables with a total row, every cell anchored) and N
oracles that read two or three cells and compute a difference, a sum or a share,
then runs them (1) through ``oracles.sandbox.run_oracles`` and (2) as one
``python <oracle>.py`` subprocess each, with the same parallelism, checks that both
give the same answers, and prints oracles/s and the ratio (target: >= 10x).

    python -m benchmarks.bench_audit --oracles 200 --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl

from oracles.api import WAREHOUSE_ENV
from oracles.sandbox import run_oracles
from pipeline.config import REPO_ROOT, data_paths
from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA
from pipeline.store import Warehouse
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA

TARGET_RATIO = 10.0
ROWS, COLS = 6, 4  # member rows per table (plus a total row) and year columns
YEARS = [str(1940 + c) for c in range(COLS)]


def build_warehouse(root: Path, n_tables: int, seed: int = 0) -> Path:
    """Write table_cells, identities and anchored_cells for ``n_tables`` tables."""
    rng = random.Random(seed)
    cells, identities, anchored = [], [], []
    for t in range(n_tables):
        doc, page = f"doc{t // 20:03d}", t % 20 + 1
        table_id = f"{doc}:{page}:0"
        values = [[rng.randint(1, 99_999) for _ in range(COLS)] for _ in range(ROWS)]
        values.append([sum(v[c] for v in values) for c in range(COLS)])
        labels = [f"Item {r}" for r in range(ROWS)] + ["Total"]
        for r, row in enumerate(values):
            for c, v in enumerate(row):
                base = dict(
                    table_id=table_id, doc_id=doc, page_no=page, table_no=0, row_idx=r,
                    col_idx=c, row_label=labels[r], col_label=YEARS[c],
                )  # fmt: skip
                cells.append(
                    dict(
                        base, text=str(v), is_number=True, value=float(v), value_str=str(v),
                        negative=False, is_dash=False, footnote="", revised=False, conf=96.0,
                        x0=0.0, y0=0.0, x1=1.0, y1=1.0,
                    )
                )  # fmt: skip
                anchored.append(
                    dict(
                        base, status="confirmed", value_str=str(v), printed_str=str(v),
                        implied_str=None, is_total=r == ROWS,
                        identity_ids=[f"{table_id}:col_total:c{c}"],
                        unit_multiplier=1_000_000, quality="clear",
                    )
                )  # fmt: skip
        for c in range(COLS):
            identities.append(
                dict(
                    identity_id=f"{table_id}:col_total:c{c}", table_id=table_id,
                    kind="col_total", total_row_idx=ROWS, total_col_idx=c,
                    member_rows=list(range(ROWS)), member_cols=[c] * ROWS,
                    total_value_str=str(values[ROWS][c]), members_sum_str=str(values[ROWS][c]),
                    residual=0.0, tolerance=ROWS * 0.5, holds=True, found_by="label",
                )
            )  # fmt: skip
    warehouse = Warehouse(data_paths(root))
    warehouse.replace("table_cells", pl.DataFrame(cells, schema=TABLE_CELLS_SCHEMA))
    warehouse.replace("identities", pl.DataFrame(identities, schema=IDENTITIES_SCHEMA))
    warehouse.replace("anchored_cells", pl.DataFrame(anchored, schema=ANCHORED_CELLS_SCHEMA))
    return warehouse.root


def make_oracles(n: int, n_tables: int, seed: int = 1) -> dict[str, str]:
    """``n`` template-style oracles over the generated tables."""
    rng = random.Random(seed)
    oracles = {}
    for i in range(n):
        t = rng.randrange(n_tables)
        doc, page = f"doc{t // 20:03d}", t % 20 + 1
        a, b = rng.sample(range(ROWS), 2)
        year = rng.choice(YEARS)

        def cell(row: str, page: int = page, doc: str = doc, year: str = year) -> str:
            return f'table_cell(doc="{doc}", page={page}, table=0, row="{row}", col="{year}")'

        kind = i % 3
        if kind == 0:
            body = f"answer = {cell(f'Item {a}')} - {cell(f'Item {b}')}\nplaces = 0"
        elif kind == 1:
            body = f"answer = {cell(f'Item {a}')} + {cell(f'Item {b}')}\nplaces = 0"
        else:
            body = f"answer = {cell(f'Item {a}')} / {cell('Total')} * 100\nplaces = 2"
        oracles[f"task{i:05d}"] = (
            "from decimal import Decimal\n"
            "from oracles.api import table_cell, emit\n\n"
            f"{body}\n"
            'emit(answer=answer, places=places, unit="millions of dollars")\n'
        )
    return oracles


def run_fresh_processes(
    oracles: dict[str, str], warehouse: Path, workers: int, folder: Path
) -> dict[str, str | None]:
    """One ``python oracle.py`` per oracle (no sandbox at all): the answers."""
    env = dict(os.environ, **{WAREHOUSE_ENV: str(warehouse)})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)

    def one(item: tuple[str, str]) -> tuple[str, str | None]:
        task_id, source = item
        path = folder / f"{task_id}.py"
        path.write_text(source)
        done = subprocess.run(
            [sys.executable, str(path)], env=env, capture_output=True, text=True, timeout=60
        )
        if done.returncode != 0:
            return task_id, None
        return task_id, json.loads(done.stdout.strip().splitlines()[-1])["answer"]

    with ThreadPoolExecutor(workers) as pool:
        return dict(pool.map(one, oracles.items()))


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark and print oracles/s of both ways and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracles", type=int, default=200)
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--pool-only-oracles", type=int, default=2000, help="0 to skip")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        warehouse = build_warehouse(Path(tmp) / "data", args.tables)
        oracles = make_oracles(args.oracles, args.tables)

        started = time.perf_counter()
        pooled = run_oracles(oracles, warehouse, workers=args.workers, progress=False)
        pool_s = time.perf_counter() - started
        bad = {t: r.status for t, r in pooled.items() if not r.ok}
        if bad:
            raise SystemExit(f"pool: {len(bad)} oracles did not succeed: {list(bad.items())[:5]}")

        scripts = Path(tmp) / "scripts"
        scripts.mkdir()
        started = time.perf_counter()
        fresh = run_fresh_processes(oracles, warehouse, args.workers, scripts)
        fresh_s = time.perf_counter() - started
        differ = [t for t in oracles if fresh[t] != pooled[t].answer]
        if differ:
            raise SystemExit(f"answers differ between the two ways for {differ[:5]}")

        pool_rate, fresh_rate = len(oracles) / pool_s, len(oracles) / fresh_s
        ratio = pool_rate / fresh_rate
        print(f"warehouse: {args.tables} tables, {args.tables * (ROWS + 1) * COLS} cells")
        print(f"{len(oracles)} oracles, {args.workers} workers, identical answers")
        print(f"sandbox pool:            {pool_s:7.2f} s  {pool_rate:8.1f} oracles/s")
        print(f"fresh process per oracle:{fresh_s:7.2f} s  {fresh_rate:8.1f} oracles/s")
        verdict = "meets" if ratio >= TARGET_RATIO else "misses"
        print(f"ratio: {ratio:.1f}x ({verdict} the {TARGET_RATIO:.0f}x target)")
        report = {"pool_per_s": pool_rate, "fresh_per_s": fresh_rate, "ratio": ratio}

        if args.pool_only_oracles:
            many = make_oracles(args.pool_only_oracles, args.tables, seed=2)
            started = time.perf_counter()
            results = run_oracles(many, warehouse, workers=args.workers, progress=False)
            many_s = time.perf_counter() - started
            ok = sum(r.ok for r in results.values())
            print(
                f"sandbox pool, {len(many)} oracles: {many_s:.2f} s "
                f"{len(many) / many_s:.1f} oracles/s ({ok} ok)"
            )
            report["pool_many_per_s"] = len(many) / many_s
    return report


if __name__ == "__main__":
    main()
