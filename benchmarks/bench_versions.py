"""Version-chain scaling (issue 10): build_version_chains at 1k, 4k and 16k workbooks.

The workbook tables (workbooks, sheets, cells, workbook_sources) are generated in
memory, no files: families of 2-5 versions (each version changes a few numbers and
sometimes adds a line; names carry version tokens, copy tokens or nothing), a
same-template decoy per family (same labels and file name, other numbers), and
unrelated one-off workbooks, a share of them all called "Book1.xls" (a name block
too large to pair, left to the content LSH). Prints seconds per size, the fitted
log-log exponent of time against size (target <= 1.2: blocking and LSH, never all
pairs) and, as a sanity check, link precision/recall against the generated truth.

    .venv/bin/python benchmarks/bench_versions.py [--sizes 1000 4000 16000] [--seed 7] [--repeat 2]
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np
import polars as pl

from pipeline.detect.versions import build_version_chains
from pipeline.ingest.workbooks import CELLS_SCHEMA, SHEETS_SCHEMA, WORKBOOKS_SCHEMA

TARGET_EXPONENT = 1.2
TEMPLATES = {
    "budget": ["Salaries", "Travel", "Rent", "Software", "Training", "Consulting", "Audit"],
    "positions": ["Deal", "Counterparty", "Volume", "Price", "MTM", "Delta", "Book"],
    "allocation": ["IT", "HR", "Legal", "Tax", "Treasury", "Facilities", "Compliance"],
    "pnl": ["Gas", "Power", "Basis", "Options", "Storage", "Transport", "Retail"],
}
DESKS = ["east", "west", "central", "gulf", "canada", "texas", "midwest", "ercot", "nepool"]
VERSION_NAMES = [
    lambda s, k: f"{s} v{k + 1}.xls" if k else f"{s}.xls",
    lambda s, k: f"{s} rev{k}.xlsx" if k else f"{s}.xlsx",
    lambda s, k: ("Copy of " * min(k, 1)) + f"{s}" + (f" ({k})" if k > 1 else "") + ".xls",
    lambda s, k: f"{s}_2001-0{(k % 9) + 1}-15.xls",
]

Grid = dict[tuple[int, int], object]


class Corpus:
    """Columns of the four tables, appended workbook by workbook."""

    def __init__(self) -> None:
        self.wb: dict[str, list] = {k: [] for k in ("workbook_id", "file_name")}
        self.sheets: dict[str, list] = {k: [] for k in ("workbook_id", "sheet", "sheet_index")}
        self.cells: dict[str, list] = {
            k: [] for k in ("workbook_id", "sheet", "row", "col", "value", "type")
        }
        self.sources: dict[str, list] = {k: [] for k in ("workbook_id", "file_name", "file_date")}
        self.links: set[tuple[str, str]] = set()
        self.n = 0

    def add(self, name: str, grid: Grid, day: int) -> str:
        wid = f"{self.n:064x}"
        self.n += 1
        self.wb["workbook_id"].append(wid)
        self.wb["file_name"].append(name)
        for idx, sheet in enumerate(("Data", "Notes")):
            self.sheets["workbook_id"].append(wid)
            self.sheets["sheet"].append(sheet)
            self.sheets["sheet_index"].append(idx)
        for (r, c), v in grid.items():
            self.cells["workbook_id"].append(wid)
            self.cells["sheet"].append("Data")
            self.cells["row"].append(r)
            self.cells["col"].append(c)
            self.cells["value"].append(str(v))
            self.cells["type"].append("F" if isinstance(v, float) else "T")
        self.sources["workbook_id"].append(wid)
        self.sources["file_name"].append(name)
        self.sources["file_date"].append(day)
        return wid

    def frames(self) -> dict[str, pl.DataFrame]:
        def typed(cols: dict[str, list], schema: dict) -> pl.DataFrame:
            df = pl.DataFrame(cols)
            return df.with_columns(
                [pl.lit(None, t).alias(k) for k, t in schema.items() if k not in cols]
            ).select([pl.col(k).cast(t) for k, t in schema.items()])

        sources = pl.DataFrame(self.sources).with_columns(
            file_date=pl.datetime(2001, 1, 1, time_zone="UTC")
            + pl.duration(days=pl.col("file_date")),
            source_kind=pl.lit("corpus"),
            source_path=pl.col("file_name"),
            message_key=pl.lit(None, pl.String),
        )
        return {
            "workbooks": typed(self.wb, WORKBOOKS_SCHEMA),
            "sheets": typed(self.sheets, SHEETS_SCHEMA),
            "cells": typed(self.cells, CELLS_SCHEMA),
            "workbook_sources": sources,
        }


def grid_for(rng: random.Random, template: str, desk: str, rows: int = 7) -> Grid:
    labels = TEMPLATES[template]
    grid: Grid = {(1, 1): f"{desk.title()} {template}", (1, 2): "Q1", (1, 3): "Q2"}
    grid[(1, 4)], grid[(1, 5)] = "Q3", "Q4"
    for r in range(rows):
        grid[(r + 2, 1)] = labels[r % len(labels)]
        for c in range(2, 6):
            grid[(r + 2, c)] = round(rng.uniform(10, 99999), 2)
    return grid


def next_version(rng: random.Random, grid: Grid) -> Grid:
    out = dict(grid)
    numbers = [k for k, v in out.items() if isinstance(v, float)]
    for key in rng.sample(numbers, 2):
        out[key] = round(float(out[key]) * rng.choice((0.9, 1.1, 1.25)), 2)
    if rng.random() < 0.4:
        last = max(r for r, _ in out) + 1
        out[(last, 1)] = "Other"
        for c in range(2, 6):
            out[(last, c)] = round(rng.uniform(10, 999), 2)
    return out


def generate(n: int, seed: int) -> Corpus:
    rng = random.Random(seed)
    corpus = Corpus()
    fam = 0
    while corpus.n < n:
        kind = rng.random()
        if kind < 0.08:  # unrelated one-off, often a generic name
            name = "Book1.xls" if rng.random() < 0.5 else f"misc {corpus.n}.xls"
            corpus.add(
                name, grid_for(rng, rng.choice(list(TEMPLATES)), "misc"), rng.randint(0, 900)
            )
            continue
        template, desk = rng.choice(list(TEMPLATES)), rng.choice(DESKS)
        stem = f"{desk} {template} {fam}"
        namer = rng.choice(VERSION_NAMES)
        grid = grid_for(rng, template, desk)
        day = rng.randint(0, 600)
        prev = None
        for k in range(rng.randint(2, 5)):
            wid = corpus.add(namer(stem, k), grid, day + 7 * k)
            if prev is not None:
                corpus.links.add((prev, wid))
            prev, grid = wid, next_version(rng, grid)
        # the same template for another desk, under the family's first name
        corpus.add(namer(stem, 0), grid_for(rng, template, desk), day + 3)
        fam += 1
    return corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 16000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=2, help="best of N runs per size")
    args = parser.parse_args()
    times: list[float] = []
    for n in args.sizes:
        corpus = generate(n, args.seed)
        frames = corpus.frames()
        elapsed = float("inf")
        for _ in range(max(1, args.repeat)):  # the best run: other load only adds time
            start = time.perf_counter()
            chains = build_version_chains(**frames)
            elapsed = min(elapsed, time.perf_counter() - start)
        times.append(elapsed)
        pred = set(
            chains.drop_nulls("prev_workbook_id").select("prev_workbook_id", "workbook_id").rows()
        )
        right = len(pred & corpus.links)
        p = right / len(pred) if pred else 1.0
        r = right / len(corpus.links) if corpus.links else 1.0
        print(
            f"{corpus.n:>6} workbooks ({frames['cells'].height:,} cells): {elapsed:6.2f} s "
            f"({1e3 * elapsed / corpus.n:.2f} ms/workbook); link P {p:.3f} R {r:.3f}",
            flush=True,
        )
    if len(times) >= 2:
        slope = float(np.polyfit(np.log(args.sizes), np.log(times), 1)[0])
        verdict = "ok" if slope <= TARGET_EXPONENT else "ABOVE TARGET"
        print(f"fitted exponent {slope:.2f} (target <= {TARGET_EXPONENT}): {verdict}")
        ratio = times[-1] / times[0]
        print(
            f"time x{ratio:.1f} for size x{args.sizes[-1] / args.sizes[0]:.0f} "
            f"(linear would be x{args.sizes[-1] / args.sizes[0]:.0f}, "
            f"quadratic x{(args.sizes[-1] / args.sizes[0]) ** 2:.0f}); log2 {math.log2(ratio):.1f}"
        )


if __name__ == "__main__":
    main()
