"""Duplicates keep the best name: identical bytes under several names become one document
named by the name that carries the volume date (the earliest-dated, most specific one),
whatever the alphabet says; every name is kept as a source and the others are
quarantined as duplicates of it."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.ingest.scans import best_name, ingest_documents
from pipeline.store import QUARANTINE_SCHEMA
from tests.ingest.scan_fixtures import text_pdf


def _copies(folder: Path, names: list[str], text: str) -> list[Path]:
    data = text_pdf(folder / "_seed.pdf", [text]).read_bytes()
    (folder / "_seed.pdf").unlink()
    paths = []
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        paths.append(path)
    return paths


def test_the_dated_volume_name_beats_an_alphabetically_earlier_copy(store, tmp_path):
    warehouse, blobs = store
    src = tmp_path / "src"
    src.mkdir()
    _copies(src, ["copy_of_march.pdf", "treasury_bulletin_1950_03.pdf"], "March receipts")
    _copies(src, ["a_1951_01.pdf"], "January receipts")

    result = ingest_documents([("t", src)], warehouse, blobs)

    assert (result.discovered, result.ingested, result.quarantined) == (3, 2, 1)
    docs = warehouse.read("documents").sort("file_name")
    march = docs.filter(pl.col("file_name") == "treasury_bulletin_1950_03.pdf").row(0, named=True)
    assert march["volume"] == "1950-03"
    assert march["source_path"] == str(src / "treasury_bulletin_1950_03.pdf")
    assert march["source_paths"] == [
        str(src / "treasury_bulletin_1950_03.pdf"),
        str(src / "copy_of_march.pdf"),
    ]
    january = docs.filter(pl.col("file_name") == "a_1951_01.pdf").row(0, named=True)
    assert january["source_paths"] == [january["source_path"]]
    quarantine = warehouse.read("quarantine", QUARANTINE_SCHEMA).row(0, named=True)
    assert quarantine["path"] == str(src / "copy_of_march.pdf")
    assert quarantine["reason"] == (
        f"copy_of_march.pdf: duplicate of {src / 'treasury_bulletin_1950_03.pdf'}"
    )


def test_duplicates_across_sources_keep_the_best_name_whatever_the_source_order(store, tmp_path):
    warehouse, blobs = store
    (tmp_path / "inbox").mkdir()
    (tmp_path / "archive").mkdir()
    copy, dated = _copies(
        tmp_path,
        ["inbox/scan0001 (1).pdf", "archive/1950/treasury_bulletin_1950_03.pdf"],
        "March receipts",
    )
    result = ingest_documents(
        [("inbox", tmp_path / "inbox"), ("archive", tmp_path / "archive")], warehouse, blobs
    )
    assert (result.ingested, result.quarantined) == (1, 1)
    row = result.documents.row(0, named=True)
    assert (row["corpus"], row["source_path"], row["volume"]) == ("archive", str(dated), "1950-03")
    assert row["source_paths"] == [str(dated), str(copy)]


@pytest.mark.parametrize(
    ("names", "winner"),
    [
        # the name with the volume date wins over any undated name
        (["copy_of_march.pdf", "march.pdf", "treasury_bulletin_1950_03.pdf"], 2),
        # two dated names: the earliest date is the volume (a later one is a re-filing)
        (["bulletin_1952_01.pdf", "bulletin_1950_03.pdf"], 1),
        # same date: the original beats a marked copy, whatever the alphabet says
        (["Copy of bulletin_1950_03.pdf", "bulletin_1950_03.pdf"], 1),
        (["bulletin_1950_03 (2).pdf", "bulletin_1950_03.pdf"], 1),
        (["bulletin_1950_03_copy.pdf", "bulletin_1950_03.pdf"], 1),
        (["bulletin_1950_03 - Copy.pdf", "bulletin_1950_03.pdf"], 1),
        # same date, no copy mark: the most specific (most descriptive) name
        (["1950_03.pdf", "treasury_bulletin_1950_03.pdf"], 1),
        # no date anywhere: a year beats nothing, then the most specific name
        (["scan.pdf", "bulletin_1950.pdf"], 1),
        (["scan.pdf", "treasury_bulletin.pdf"], 1),
    ],
)
def test_best_name(names, winner):
    paths = [Path("/in") / n for n in names]
    assert best_name([str(p) for p in paths]) == str(paths[winner])
    assert best_name([str(p) for p in reversed(paths)]) == str(paths[winner])
