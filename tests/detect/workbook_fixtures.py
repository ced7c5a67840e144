"""Generated workbooks with the values Excel would have cached for their formulas.

openpyxl writes a formula with an empty ``<v/>``; Excel and LibreOffice write the value
they computed. ``with_cached`` writes those values into the sheet XML (any value, so a
stale total can be made too), without starting LibreOffice.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl

from pipeline.ingest.workbook_sources import WorkbookSource, ingest_workbook_sources
from pipeline.store import BlobStore


def with_cached(path: Path, cached: dict[str, object]) -> Path:
    """Rewrite ``path`` so each formula of ``cached`` (formula text without "=") holds
    that cached value."""
    with zipfile.ZipFile(path) as zin:
        parts = {i.filename: (i, zin.read(i.filename)) for i in zin.infolist()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, (info, data) in parts.items():
            if name.startswith("xl/worksheets/sheet"):
                for formula, value in cached.items():
                    data = data.replace(
                        f"<f>{formula}</f><v />".encode(),
                        f"<f>{formula}</f><v>{value}</v>".encode(),
                    )
            zout.writestr(info, data)
    return path


def budget(
    path: Path,
    amounts: tuple[float, ...] = (120, 80.5, 200, 99.5),
    total: object | None = None,
    extra: dict[str, object] | None = None,
) -> Path:
    """Sheet "Budget": items in A, amounts in B with a header, a SUM total row, and a
    row-total column D (= B + C over each row) for two rows; ``total`` overrides the
    cached value of the column total (a stale total)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    ws.append(["Item", "Amount", "Tax", "Row total"])
    for n, amount in enumerate(amounts):
        ws.append([f"item {n + 1}", amount, 10 * (n + 1)])
    last = len(amounts) + 1
    ws.append(["Total", f"=SUM(B2:B{last})"])
    ws["D2"] = "=SUM(B2:C2)"
    ws["D3"] = "=SUM(B3:C3)"
    for address, value in (extra or {}).items():
        ws[address] = value
    wb.save(path)
    computed = sum(amounts)
    cached = {
        f"SUM(B2:B{last})": computed if total is None else total,
        "SUM(B2:C2)": amounts[0] + 10,
        "SUM(B3:C3)": amounts[1] + 20,
    }
    for value in (extra or {}).values():
        if isinstance(value, str) and value.startswith("="):
            cached.setdefault(value[1:], 0)
    return with_cached(path, {f: _text(v) for f, v in cached.items()})


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def ingest(paths: list[Path], blobs_dir: Path):
    """The workbook ingestion of ``paths`` (corpus sources) into a blob store."""
    return ingest_workbook_sources(
        [WorkbookSource.corpus(p) for p in paths], BlobStore(str(blobs_dir)), workers=1
    )
