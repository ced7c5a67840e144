"""The documents and pages stages over the malformed-input corpus of ``pipeline.synth``:
nothing raises, every entry is accounted for once, as its case expects, with a reason
that names it and says what is wrong."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.ingest.scans import build_pages, ingest_documents
from pipeline.store import INTAKE_SCHEMA, QUARANTINE_SCHEMA, storable_path
from pipeline.synth.malformed import write_malformed_corpus
from tests.ingest.malformed_expectations import lock_folder, reason_words


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("malformed") / "bad"
    cases = write_malformed_corpus(out)
    yield out, cases
    (out / "locked").chmod(0o755)


@pytest.fixture
def corpus(written, monkeypatch):
    out, cases = written
    lock_folder(monkeypatch, out / "locked")
    return out, cases


def test_every_malformed_entry_is_accounted_for_with_its_reason(store, corpus):
    warehouse, blobs = store
    out, cases = corpus

    result = ingest_documents([("bad", out)], warehouse, blobs)

    expected = {storable_path(out / c.path): c for c in cases}
    intake = warehouse.read("intake", INTAKE_SCHEMA).filter(pl.col("stage") == "documents")
    assert intake.height == result.discovered == len(cases)
    assert dict(intake.select("path", "status").iter_rows()) == {
        path: case.expect for path, case in expected.items()
    }
    quarantine = warehouse.read("quarantine", QUARANTINE_SCHEMA)
    assert quarantine["path"].is_unique().all()
    for path, reason in quarantine.select("path", "reason").iter_rows():
        case = expected[path]
        assert reason.startswith(f"{storable_path(Path(case.path).name)}: "), reason
        assert any(w in reason for w in reason_words(case)), (case.kind, reason)
    assert "/tmp/lf-documents-" not in " ".join(quarantine["reason"])  # no private path
    docs = warehouse.read("documents")
    assert sorted(docs["source_path"]) == sorted(
        p for p, c in expected.items() if c.expect == "ingested"
    )
    twin = docs.filter(pl.col("file_name") == "bulletin_1950_12.pdf").row(0, named=True)
    assert twin["source_paths"] == [
        str(out / "bulletin_1950_12.pdf"),
        str(out / "copy_of_december.pdf"),
    ]


def test_pages_of_the_ingested_malformed_files(store, corpus):
    warehouse, blobs = store
    out, cases = corpus
    ingest_documents([("bad", out)], warehouse, blobs)
    pages = build_pages(warehouse, blobs, render_dpi=100, workers=1)
    intake = warehouse.read("intake", INTAKE_SCHEMA).filter(pl.col("stage") == "pages")
    quarantined = warehouse.read("quarantine", QUARANTINE_SCHEMA).filter(pl.col("stage") == "pages")
    blank = [c for c in cases if c.pages == "quarantined"]
    assert {p.split("#")[0] for p in quarantined["path"]} == {str(out / c.path) for c in blank}
    assert all("renders blank" in r for r in quarantined["reason"])
    assert intake.height == pages.height + quarantined.height
    # every ingested file but the blank one has one page, and it renders
    ingested = [c for c in cases if c.expect == "ingested"]
    assert pages.height == len(ingested) - len(blank)
