"""Anchor search at scale: 200,000 generated statement tables (about 6M cells).

Each table has 5 member rows and a "Total" row, 4 year columns and a "Total"
column, so every cell sits in two identities. One table in twenty carries an OCR
digit confusion (a 3 read as 8) for the repair path. The frames are built in memory
with numpy/polars (no rendering, no OCR). Prints the wall time, the CPU time (all
threads; the comparable number on a shared machine), cells per second, the peak
resident memory and the ratio against the 60 s target for 200k tables on 2 cores.

    .venv/bin/python benchmarks/bench_anchors.py [--tables 200000] [--seed 7] [--profile]

``--profile`` runs the search under cProfile and prints the 25 costliest calls
(cumulative), to see which phase (_grid, _find_spans, _identities, _pin, _assemble)
dominates.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import time

import numpy as np
import polars as pl

from pipeline.detect.anchors import find_anchors
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA

TARGET_SECONDS = 60.0
TARGET_TABLES = 200_000
MEMBER_ROWS, YEAR_COLS = 5, 4


def _column(frame: pl.DataFrame, name: str, dtype: pl.DataType) -> pl.Expr:
    """A schema column: cast when the generator made it, else null (semantics unused here)."""
    return pl.col(name).cast(dtype) if name in frame.columns else pl.lit(None, dtype).alias(name)


def generate(n_tables: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """tables and table_cells frames for ``n_tables`` tables; returns the misread count."""
    rng = np.random.default_rng(seed)
    members = rng.integers(1, 100_000, size=(n_tables, MEMBER_ROWS, YEAR_COLS), dtype=np.int64)
    grid = np.concatenate([members, members.sum(axis=1, keepdims=True)], axis=1)
    grid = np.concatenate([grid, grid.sum(axis=2, keepdims=True)], axis=2)
    n_rows, n_cols = grid.shape[1], grid.shape[2]
    cells = pl.DataFrame(
        {
            "t": np.repeat(np.arange(n_tables), n_rows * n_cols),
            "row_idx": np.tile(np.repeat(np.arange(n_rows), n_cols), n_tables).astype(np.int32),
            "col_idx": np.tile(np.arange(n_cols), n_tables * n_rows).astype(np.int32),
            "true": grid.reshape(-1),
        }
    )
    # one table in twenty: the first member cell misread, a 3 taken for an 8
    misread = (
        (pl.col("t") % 20 == 0)
        & (pl.col("row_idx") == 0)
        & (pl.col("col_idx") == 0)
        & pl.col("true").cast(pl.String).str.contains("3")
    )
    text = (
        pl.when(misread)
        .then(pl.col("true").cast(pl.String).str.replace("3", "8", literal=True))
        .otherwise(pl.col("true").cast(pl.String))
    )
    doc = pl.format("bench{}", pl.col("t") // 1000)
    page = (pl.col("t") % 1000 // 2 + 1).cast(pl.Int32)
    table_no = (pl.col("t") % 2).cast(pl.Int32)
    years = [f"Fiscal year / {1950 + c}" for c in range(YEAR_COLS)] + ["Total"]
    cells = cells.with_columns(
        value_str=text,
        doc_id=doc,
        page_no=page,
        table_no=table_no,
    ).with_columns(
        table_id=pl.format("{}:{}:{}", "doc_id", "page_no", "table_no"),
        row_label=pl.when(pl.col("row_idx") == MEMBER_ROWS)
        .then(pl.lit("Total"))
        .otherwise(pl.format("Source {}", "row_idx")),
        col_label=pl.col("col_idx").replace_strict(
            list(range(n_cols)), years, return_dtype=pl.String
        ),
        text=pl.col("value_str"),
        is_number=pl.lit(True),
        value=pl.col("value_str").cast(pl.Float64),
        negative=pl.lit(False),
        is_dash=pl.lit(False),
        footnote=pl.lit(""),
        revised=pl.lit(False),
        conf=pl.lit(90.0),
        x0=pl.lit(0.0),
        y0=pl.lit(0.0),
        x1=pl.lit(1.0),
        y1=pl.lit(1.0),
    )
    n_misread = int(cells.select(misread.sum()).item())
    tables = cells.filter((pl.col("row_idx") == 0) & (pl.col("col_idx") == 0)).select(
        "table_id",
        "doc_id",
        "page_no",
        "table_no",
        title=pl.lit("Table 1.- Budget receipts by source"),
        unit=pl.lit("In millions of dollars"),
        unit_multiplier=pl.lit(1_000_000, pl.Int64),
        n_rows=pl.lit(n_rows, pl.Int32),
        n_cols=pl.lit(n_cols, pl.Int32),
        col_labels=pl.lit(years, dtype=pl.List(pl.String)),
        x0=pl.lit(0.0),
        y0=pl.lit(0.0),
        x1=pl.lit(1.0),
        y1=pl.lit(1.0),
        quality=pl.lit("clear"),
    )
    tables = tables.select(_column(tables, c, t) for c, t in TABLES_SCHEMA.items())
    cells = cells.select(_column(cells, c, t) for c, t in TABLE_CELLS_SCHEMA.items())
    return tables, cells, n_misread


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Generate, run ``find_anchors`` once, print and return the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TARGET_TABLES)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    tables, cells, n_misread = generate(args.tables, args.seed)
    profiler = cProfile.Profile() if args.profile else None
    t1, c1 = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    result = find_anchors(tables, cells)
    if profiler:
        profiler.disable()
    t2, c2 = time.perf_counter(), time.process_time()
    seconds = t2 - t1
    budget = TARGET_SECONDS * args.tables / TARGET_TABLES
    report = {
        "tables": args.tables,
        "cells": len(cells),
        "generate_s": t1 - t0,
        "anchor_s": seconds,
        # CPU seconds over all threads: comparable across runs on a shared machine
        "anchor_cpu_s": c2 - c1,
        "cells_per_s": len(cells) / seconds,
        "target_ratio": seconds / budget,
        "identities": len(result.identities),
        "identities_holding": int(result.identities["holds"].sum()),
        "anchored_cells": len(result.anchored_cells),
        "misreads": n_misread,
        "repairs": len(result.repairs),
        # ru_maxrss is in KiB on Linux; it includes the generated input frames
        "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }
    print(
        f"{args.tables:,} tables, {len(cells):,} cells: generated in {t1 - t0:.1f} s, "
        f"anchored in {seconds:.1f} s wall / {c2 - c1:.1f} s CPU "
        f"({len(cells) / seconds:,.0f} cells/s); "
        f"{seconds / budget:.2f} x the {budget:.0f} s target "
        f"(CPU {(c2 - c1) / budget:.2f} x); peak memory {report['peak_rss_gb']:.1f} GB"
    )
    print(
        f"identities {report['identities']:,} (holding {report['identities_holding']:,}), "
        f"anchored cells {report['anchored_cells']:,}, misreads {n_misread:,}, "
        f"repairs {report['repairs']:,}"
    )
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return report


if __name__ == "__main__":
    main()
