"""Many small workbooks in version families, for scaling benchmarks of version chaining.

``generate_workbook_population(out_dir, n, seed)`` writes ``n`` small .xlsx files
(cached formula values, fixed zip times) grouped in families of one to six versions,
and ``population_truth.json`` with every family's ordered versions.

Benchmarks need 16,000 of them, and a full openpyxl save costs ~10 ms (styles set-up,
write-only temp files), so :class:`GridXlsxWriter` has openpyxl write one template
package once and per file only renders the two worksheets' ``<sheetData>`` (inline
strings, numbers, formulas with their values) into it, about 1 ms a file.

Family names are drawn from desk x product x report words with a serial,
so distinct families never share a stem; versions are named ``<stem> v<k>.xlsx``
or ``<stem>_<date>.xlsx``. Each version changes a few inputs of the one before or
appends a row, so content similarity inside a family stays high.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import math
import random
import re
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple
from xml.sax.saxutils import escape

import openpyxl
from openpyxl.utils import get_column_letter

from pipeline.synth.workbook_model import CORE_DATE
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


class Formula(NamedTuple):
    text: str  # without "="
    value: float


_SHEET_DATA = re.compile(rb"<sheetData\s*/>|<sheetData>.*</sheetData>", re.S)
_DIMENSION = re.compile(rb'<dimension ref="[^"]*"\s*/>')


class GridXlsxWriter:
    """Two-sheet workbooks of plain grids, rendered into one openpyxl-made template."""

    def __init__(self) -> None:
        wb = openpyxl.Workbook(write_only=True)
        for name in ("SHEETONE", "SHEETTWO"):
            wb.create_sheet(name).append(["x"])
        raw = io.BytesIO()
        wb.save(raw)
        with zipfile.ZipFile(raw) as z:
            self.parts = [(i.filename, z.read(i.filename)) for i in z.infolist()]

    @staticmethod
    def sheet_data(rows: list[list[object]]) -> bytes:
        out = ["<sheetData>"]
        for r, row in enumerate(rows, 1):
            out.append(f'<row r="{r}">')
            for c, v in enumerate(row, 1):
                ref = f"{get_column_letter(c)}{r}"
                if v is None:
                    continue
                if isinstance(v, Formula):
                    out.append(f'<c r="{ref}"><f>{escape(v.text)}</f><v>{v.value!r}</v></c>')
                elif isinstance(v, (int, float)):
                    out.append(f'<c r="{ref}" t="n"><v>{v!r}</v></c>')
                else:
                    out.append(f'<c r="{ref}" t="inlineStr"><is><t>{escape(str(v))}</t></is></c>')
            out.append("</row>")
        out.append("</sheetData>")
        return "".join(out).encode()

    def to_bytes(self, sheets: dict[str, list[list[object]]], when: dt.datetime) -> bytes:
        (name1, rows1), (name2, rows2) = sheets.items()
        stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
        data = {"xl/worksheets/sheet1.xml": rows1, "xl/worksheets/sheet2.xml": rows2}
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as dst:
            for fname, part in self.parts:
                if fname in data:
                    rows = data[fname]
                    width = max(len(r) for r in rows)
                    dim = f'<dimension ref="A1:{get_column_letter(width)}{len(rows)}"/>'.encode()
                    part = _DIMENSION.sub(dim, part, count=1)
                    part = _SHEET_DATA.sub(lambda _m, rows=rows: self.sheet_data(rows), part)
                elif fname == "xl/workbook.xml":
                    part = part.replace(b'"SHEETONE"', f'"{escape(name1)}"'.encode())
                    part = part.replace(b'"SHEETTWO"', f'"{escape(name2)}"'.encode())
                elif fname == "docProps/core.xml":
                    part = CORE_DATE.sub(lambda m: m.group(1) + stamp + m.group(3), part)
                zi = zipfile.ZipInfo(fname, date_time=(when.year, when.month, when.day, 0, 0, 0))
                zi.compress_type = zipfile.ZIP_DEFLATED
                zi.external_attr = 0o600 << 16
                dst.writestr(zi, part)
        return out.getvalue()


_WRITER: GridXlsxWriter | None = None


def _rows(rng: random.Random, n_rows: int) -> list[list[object]]:
    rows: list[list[object]] = [["Item", "Counterparty", "Volume", "Price", "Value"]]
    for _ in range(n_rows):
        rows.append(
            [
                f"{rng.choice(PRODUCTS)} {rng.randint(100, 999)}",
                rng.choice(COUNTERPARTIES),
                float(rng.randint(1, 400) * 100),
                round(rng.uniform(1.5, 60.0), 3),
                None,
            ]
        )
    return rows


def _with_total(rows: list[list[object]]) -> list[list[object]]:
    """The grid with its Value formulas (=C*D) and a SUM row, values computed."""
    out: list[list[object]] = [list(rows[0])]
    for r, row in enumerate(rows[1:], 2):
        value = float(row[2]) * float(row[3])  # type: ignore[arg-type]  # as a spreadsheet computes it
        out.append([*row[:4], Formula(f"C{r}*D{r}", value)])
    last = len(rows)
    volume = math.fsum(float(row[2]) for row in out[1:])  # type: ignore[arg-type]
    total = math.fsum(row[4].value for row in out[1:])  # type: ignore[union-attr]
    return [
        *out,
        [
            "Total",
            None,
            Formula(f"SUM(C2:C{last})", volume),
            None,
            Formula(f"SUM(E2:E{last})", total),
        ],
    ]


def _write(job: tuple[str, dict[str, list[list[object]]], dt.datetime]) -> str:
    global _WRITER  # one template per process
    if _WRITER is None:
        _WRITER = GridXlsxWriter()
    path, sheets, when = job
    data = _WRITER.to_bytes(sheets, when)
    Path(path).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def generate_workbook_population(
    out_dir: Path, n: int, seed: int = 7, *, workers: int = 1
) -> WorkbookPopulation:
    """``n`` workbooks in families (1-6 versions each) plus ``population_truth.json``.

    About 1-2 ms per workbook in one process; ``workers`` > 1 writes them in that
    many processes (the same bytes).
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
                    rows.append([f"New {r}", rng.choice(COUNTERPARTIES), 500.0, 3.0, None])
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
