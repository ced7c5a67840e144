"""Workbooks are inputs like PDFs: any file name can be recorded (escaped when it is not
UTF-8), and a file is typed from its header before its bytes are read (hashes stream)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import openpyxl
import polars as pl

from pipeline.ingest.workbooks import ingest_workbooks
from pipeline.store import BlobStore, storable_path


def _bytes_read() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def test_a_workbook_whose_name_is_not_utf8_is_ingested_under_its_escaped_name(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "Receipts"
    wb.active["B1"] = 1234
    seed = tmp_path / "seed.xlsx"
    wb.save(seed)
    path = Path(os.fsdecode(os.fsencode(tmp_path) + b"/budget_\xff_1950.xlsx"))
    path.write_bytes(seed.read_bytes())

    result = ingest_workbooks([path], BlobStore(str(tmp_path / "blobs")))

    row = result.workbooks.row(0, named=True)
    assert row["file_name"] == "budget_\\xff_1950.xlsx"
    assert row["source_path"] == storable_path(path)
    assert row["workbook_id"] == hashlib.sha256(seed.read_bytes()).hexdigest()
    assert result.intake.ingested == [storable_path(path)]
    result.workbooks.write_parquet(tmp_path / "workbooks.parquet")  # storable as it is
    assert pl.read_parquet(tmp_path / "workbooks.parquet")["file_name"][0] == row["file_name"]
    assert result.cells.height == 2


def test_a_file_that_is_no_workbook_is_refused_from_its_header(tmp_path):
    fake = tmp_path / "big.xlsx"
    with open(fake, "wb") as fh:
        fh.write(b"%PDF-1.7\n")
        fh.truncate(64 * 2**20)
    before = _bytes_read()
    result = ingest_workbooks([fake], BlobStore(str(tmp_path / "blobs")))
    read = _bytes_read() - before
    assert len(result.intake.quarantined) == 1
    assert "not a workbook" in result.intake.quarantined[0]["detail"]
    assert read < 4 * 2**20, f"read {read} bytes of a 64 MiB file to refuse it"
