"""Many small workbooks in version families, for scaling benchmarks of version chaining.

``generate_workbook_population(out_dir, n, seed)`` writes ``n`` small .xlsx files
(openpyxl write-only, cached formula values, fixed zip times) grouped in families of
one to six versions, and ``population_truth.json`` with every family's ordered
versions. Family names are drawn from desk x product x report words with a serial,
so distinct families never share a stem; versions are named ``<stem> v<k>.xlsx``
or ``<stem>_<date>.xlsx``. Each version changes a few inputs of the one before or
appends a row, so content similarity inside a family stays high.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pipeline.synth.workbook_model import rows_xlsx_bytes
from pipeline.synth.workbook_templates import COUNTERPARTIES, DESKS, PRODUCTS

REPORTS = ("positions", "budget", "P&L", "accruals", "forecast", "exposure", "invoices", "volumes")


@dataclass(frozen=True)
class WorkbookPopulation:
    root: Path
    files: tuple[Path, ...]
    truth_path: Path
    seed: int

    def truth(self) -> dict:
        return json.loads(self.truth_path.read_text(encoding="utf-8"))


def _rows(rng: random.Random, n_rows: int) -> list[list[object]]:
    rows: list[list[object]] = [["Item", "Counterparty", "Volume", "Price", "Value"]]
    for r in range(2, n_rows + 2):
        rows.append(
            [
                f"{rng.choice(PRODUCTS)} {rng.randint(100, 999)}",
                rng.choice(COUNTERPARTIES),
                float(rng.randint(1, 400) * 100),
                round(rng.uniform(1.5, 60.0), 3),
                f"=C{r}*D{r}",
            ]
        )
    return rows


def _with_total(rows: list[list[object]]) -> list[list[object]]:
    last = len(rows)
    return [*rows, ["Total", None, f"=SUM(C2:C{last})", None, f"=SUM(E2:E{last})"]]


def _write(job: tuple[str, dict[str, list[list[object]]], dt.datetime]) -> str:
    path, sheets, when = job
    data = rows_xlsx_bytes(sheets, when)
    Path(path).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def generate_workbook_population(
    out_dir: Path, n: int, seed: int = 7, *, workers: int = 1
) -> WorkbookPopulation:
    """``n`` workbooks in families (1-6 versions each) plus ``population_truth.json``.

    About 7 ms per workbook in one process; ``workers`` > 1 writes them in that many
    processes (the same bytes).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"{seed}:population:{n}")
    families: list[dict] = []
    jobs: list[tuple[str, dict[str, list[list[object]]], dt.datetime]] = []
    serial = 0
    while len(jobs) < n:
        serial += 1
        size = min(rng.choice((1, 2, 3, 3, 4, 5, 6)), n - len(jobs))
        desk = rng.choice(DESKS)
        stem = f"{desk} {rng.choice(REPORTS)} {rng.choice(PRODUCTS)} {serial:05d}"
        stem = re.sub(r"[^A-Za-z0-9& ]+", "", stem)
        dated = rng.random() < 0.4
        start = dt.datetime(2000, 1, 1) + dt.timedelta(days=rng.randint(0, 700))
        rows = _rows(rng, rng.randint(8, 20))
        versions = []
        sub = out_dir / f"{serial % 97:02d}"
        sub.mkdir(exist_ok=True)
        for k in range(size):
            when = start + dt.timedelta(days=7 * k, hours=rng.randint(0, 9))
            if k:
                if rng.random() < 0.35:
                    r = len(rows) + 1
                    rows.append([f"New {r}", rng.choice(COUNTERPARTIES), 500.0, 3.0, f"=C{r}*D{r}"])
                for _ in range(rng.randint(1, 3)):
                    row = rng.randint(1, len(rows) - 1)
                    rows[row][2] = float(rng.randint(1, 400) * 100)
            name = f"{stem}_{when:%Y-%m-%d}.xlsx" if dated else f"{stem} v{k + 1}.xlsx"
            sheets = {
                desk[:31]: _with_total([list(r) for r in rows]),
                "Notes": [["Version", k + 1]],
            }
            jobs.append((str(sub / name), sheets, when))
            versions.append(
                {
                    "file_name": name,
                    "path": f"{sub.name}/{name}",
                    "order": k,
                    "date": when.isoformat(),
                }
            )
        families.append({"family": f"pop-{serial:05d}", "versions": versions})
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            digests = list(pool.map(_write, jobs, chunksize=64))
    else:
        digests = [_write(job) for job in jobs]
    flat = [v for f in families for v in f["versions"]]
    for v, digest in zip(flat, digests, strict=True):
        v["sha256"] = digest
    truth = {"seed": seed, "n": n, "families": families}
    truth_path = out_dir / "population_truth.json"
    truth_path.write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    files = tuple(Path(job[0]) for job in jobs)
    return WorkbookPopulation(out_dir, files, truth_path, seed)
