"""Bounded reading: size and type come from a stat and the header, hashes are streamed.

No input is read whole before its checks: a file too large for the stage is refused
from its size, a file that is not a PDF from its first bytes, and a valid PDF followed
by padding after ``%%EOF`` is a PDF (ingested), not a truncated one.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pymupdf
import pytest

from pipeline.ingest.scans import MAX_FILE_BYTES, ingest_documents
from pipeline.store import QUARANTINE_SCHEMA
from tests.ingest.scan_fixtures import text_pdf

REPO = Path(__file__).resolve().parents[2]


def _bytes_read() -> int:
    """Bytes this process has read through read(2)-like calls so far (Linux)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def _sparse(path: Path, head: bytes, size: int) -> Path:
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(size)
    return path


def _junk_without_pdf_syntax(n: int) -> bytes:
    """Random bytes in which no PDF keyword (obj, xref, trailer, %%EOF) can occur."""
    rng = random.Random(8)
    return bytes(rng.choice(b"\x00\x01\x02\x80\x81\xfe\xff ~!ZQ") for _ in range(n))


@pytest.mark.parametrize(
    "padding",
    [b"\x00" * 100_000, b" \r\n" * 5_000, b"\x1a", _junk_without_pdf_syntax(20_000)],
    ids=["nul-100k", "whitespace-15k", "ctrl-z", "junk-20k"],
)
def test_a_valid_pdf_followed_by_padding_is_ingested(store, tmp_path, padding):
    warehouse, blobs = store
    pdf = text_pdf(tmp_path / "bulletin_1950_03.pdf", ["Receipts 1,234"])
    data = pdf.read_bytes() + padding
    pdf.write_bytes(data)
    result = ingest_documents([("t", tmp_path)], warehouse, blobs)
    assert (result.ingested, result.quarantined) == (1, 0), result.intake.quarantined
    row = result.documents.row(0, named=True)
    assert row["file_sha256"] == hashlib.sha256(data).hexdigest()
    assert blobs.get(row["blob_sha256"]) == data  # stored as found, padding included
    assert row["n_pages"] == 1 and row["has_text_layer"]


def test_truncated_files_are_still_quarantined(store, tmp_path):
    warehouse, blobs = store
    whole = text_pdf(tmp_path / "whole.pdf", ["Receipts"]).read_bytes()
    (tmp_path / "whole.pdf").unlink()
    (tmp_path / "cut_tail.pdf").write_bytes(whole[: len(whole) - 6])
    (tmp_path / "header_only.pdf").write_bytes(b"%PDF-1.7\n")
    # a complete PDF with an incremental update that lost its end: the last %%EOF is the
    # original one, and what follows it is an object, not padding
    doc = pymupdf.open(stream=whole, filetype="pdf")
    updated = tmp_path / "updated.pdf"
    doc.save(updated)
    doc.close()
    doc = pymupdf.open(updated)
    doc[0].insert_text((72, 300), "Revised 1,235")
    doc.saveIncr()
    doc.close()
    data = updated.read_bytes()
    updated.unlink()
    first_eof = data.index(b"%%EOF") + len(b"%%EOF\n")
    assert data.rindex(b"%%EOF") > first_eof  # the update appended its own trailer
    (tmp_path / "lost_update.pdf").write_bytes(data[: (first_eof + len(data)) // 2])

    result = ingest_documents([("t", tmp_path)], warehouse, blobs)

    assert (result.ingested, result.quarantined) == (0, 3)
    reasons = warehouse.read("quarantine", QUARANTINE_SCHEMA)["reason"].to_list()
    assert all("truncated" in r for r in reasons), reasons


def test_type_is_checked_from_the_header_without_reading_the_file(store, tmp_path):
    warehouse, blobs = store
    size = 64 * 2**20
    _sparse(tmp_path / "movie.pdf", b"\x00\x00\x00\x18ftypmp42", size)  # an MP4 named .pdf
    _sparse(tmp_path / "late_header.pdf", b"\x00" * 2048 + b"%PDF-1.7\n", size)
    before = _bytes_read()
    result = ingest_documents([("t", tmp_path)], warehouse, blobs)
    read = _bytes_read() - before
    assert (result.ingested, result.quarantined) == (0, 2)
    assert all("not a PDF" in q["reason"] for q in result.intake.quarantined)
    assert read < 4 * 2**20, f"read {read} bytes of two {size}-byte files to refuse them"


def test_size_is_checked_from_a_stat(store, tmp_path):
    warehouse, blobs = store
    assert MAX_FILE_BYTES >= 2**30  # real scanned volumes run to hundreds of MB
    small = text_pdf(tmp_path / "seed.pdf", ["Receipts"]).read_bytes()
    (tmp_path / "seed.pdf").unlink()
    src = tmp_path / "src"
    src.mkdir()
    _sparse(src / "huge_1950_04.pdf", small, 48 * 2**20)  # valid, padded (sparse) to 48 MiB
    # (bytes read by a reaped child count as the parent's: nothing here starts one)
    before = _bytes_read()
    result = ingest_documents([("t", src)], warehouse, blobs, max_file_bytes=32 * 2**20)
    read = _bytes_read() - before
    assert (result.ingested, result.quarantined) == (0, 1)
    reason = result.intake.quarantined[0]["reason"]
    assert reason.startswith("huge_1950_04.pdf: file too large") and "48.0 MiB" in reason
    assert read < 4 * 2**20, f"read {read} bytes to refuse a file by its size"
    # under a limit it is within, the same file is a PDF like any other
    result = ingest_documents([("t", src)], warehouse, blobs, max_file_bytes=64 * 2**20)
    assert (result.ingested, result.quarantined) == (1, 0)


def test_ingesting_a_large_file_streams_it(tmp_path):
    """Peak memory of ingesting a 160 MiB PDF (valid, padded) stays far below its size."""
    script = textwrap.dedent(
        """
        import json, resource, sys
        from pathlib import Path
        from pipeline.config import data_paths
        from pipeline.store import BlobStore, Warehouse
        from pipeline.ingest.scans import ingest_documents
        paths = data_paths(Path(sys.argv[2]))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = ingest_documents([("t", Path(sys.argv[1]))], Warehouse(paths),
                                  BlobStore(paths.blobs_url))
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"ingested": result.ingested,
                          "quarantined": result.intake.quarantined and
                                         result.intake.quarantined[0]["reason"],
                          "peak_growth_mib": (after - before) / 1024}))
        """
    )
    runs = {}
    for label, padding in (("small", 0), ("large", 160 * 2**20)):
        src = tmp_path / label
        src.mkdir()
        pdf = text_pdf(src / "bulletin_1950_03.pdf", ["Receipts 1,234"])
        _sparse(pdf, pdf.read_bytes(), pdf.stat().st_size + padding)
        out = subprocess.run(
            [sys.executable, "-c", script, str(src), str(tmp_path / f"data_{label}")],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        runs[label] = json.loads(out.stdout.strip().splitlines()[-1])
    assert runs["small"]["ingested"] == 1 and runs["large"]["ingested"] == 1, runs
    growth = runs["large"]["peak_growth_mib"] - runs["small"]["peak_growth_mib"]
    assert growth < 48, f"ingesting 160 MiB more raised the peak RSS by {growth:.0f} MiB: {runs}"
