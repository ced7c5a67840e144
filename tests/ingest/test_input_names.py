"""Every file name is a valid input name, and every entry named ``*.pdf`` is accounted for.

A name that is not UTF-8 is stored escaped (and its file ingested or quarantined like any
other); ``*.pdf`` entries that are not regular files and folders that cannot be listed
are quarantined with a reason instead of vanishing: discovered = ingested + quarantined.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import polars as pl
import pytest

from pipeline.ingest import scans
from pipeline.ingest.scans import discover_inputs, ingest_documents
from pipeline.store import INTAKE_SCHEMA, QUARANTINE_SCHEMA, storable_path
from tests.ingest.scan_fixtures import text_pdf


def _bytes_path(folder: Path, name: bytes) -> Path:
    """A path whose last part is the raw bytes ``name`` (not necessarily UTF-8)."""
    return Path(os.fsdecode(os.fsencode(folder) + b"/" + name))


def test_storable_path_keeps_utf8_names_and_escapes_the_others():
    assert (
        storable_path("/a/b/treasury_bulletin_1950_03.pdf") == "/a/b/treasury_bulletin_1950_03.pdf"
    )
    assert storable_path("/a/Résumé 1950\\03.pdf") == "/a/Résumé 1950\\03.pdf"  # valid UTF-8
    raw = b"/a/bulletin_\xff_1950\\03.pdf"
    escaped = storable_path(os.fsdecode(raw))
    assert escaped == "/a/bulletin_\\xff_1950\\\\03.pdf"
    assert storable_path(raw) == escaped  # bytes and surrogate-escaped str agree
    escaped.encode("utf-8")  # storable: no lone surrogates
    # two different non-UTF-8 names never collide once escaped
    assert storable_path(b"\\xff\xfe.pdf") != storable_path(b"\xff\xfe.pdf")
    # a UTF-8-encoded surrogate is not UTF-8 either
    assert storable_path(b"\xed\xa0\x80.pdf") == "\\xed\\xa0\\x80.pdf"


def test_non_utf8_names_are_ingested_or_quarantined_like_any_other(store, tmp_path):
    warehouse, blobs = store
    src = tmp_path / "src"
    src.mkdir()
    text_pdf(src / "plain_1950_03.pdf", ["Receipts of March"])
    valid = text_pdf(tmp_path / "valid.pdf", ["Receipts of April"]).read_bytes()
    _bytes_path(src, b"bulletin_\xff_1951_04.pdf").write_bytes(valid)
    _bytes_path(src, b"r\xe9sum\xe9.pdf").write_bytes(b"")  # Latin-1 name, zero bytes
    folder = _bytes_path(src, b"vol\xfe\xfe")  # a folder whose own name is not UTF-8
    folder.mkdir()
    inner = text_pdf(tmp_path / "inner.pdf", ["Receipts of May"]).read_bytes()
    (folder / "inner_1952_05.pdf").write_bytes(inner)  # MuPDF cannot save to such a path

    result = ingest_documents([("t", src)], warehouse, blobs)

    assert (result.discovered, result.ingested, result.quarantined) == (4, 3, 1)
    docs = warehouse.read("documents").sort("file_name")
    assert docs["file_name"].to_list() == [
        "bulletin_\\xff_1951_04.pdf",
        "inner_1952_05.pdf",
        "plain_1950_03.pdf",
    ]
    assert docs["volume"].to_list() == ["1951-04", "1952-05", "1950-03"]
    assert f"{storable_path(src)}/vol\\xfe\\xfe/inner_1952_05.pdf" in docs["source_path"].to_list()
    quarantine = warehouse.read("quarantine", QUARANTINE_SCHEMA)
    assert quarantine["path"].to_list() == [f"{storable_path(src)}/r\\xe9sum\\xe9.pdf"]
    assert "r\\xe9sum\\xe9.pdf: zero-byte file" in quarantine["reason"][0]
    intake = warehouse.read("intake", INTAKE_SCHEMA)
    assert intake.height == 4 and intake["path"].n_unique() == 4


@pytest.fixture
def odd_entries(tmp_path) -> tuple[Path, dict[str, str]]:
    """A folder of ``*.pdf`` entries that are not regular files (name -> reason word)."""
    src = tmp_path / "src"
    src.mkdir()
    text_pdf(src / "good_1950_03.pdf", ["Receipts"])
    (src / "loop.pdf").symlink_to("loop.pdf")
    (src / "ping.pdf").symlink_to("pong.pdf")
    (src / "pong.pdf").symlink_to("ping.pdf")
    (src / "dangling.pdf").symlink_to("no_such_volume.pdf")
    (src / "null.pdf").symlink_to("/dev/null")
    (src / "zero.PDF").symlink_to("/dev/zero")
    os.mkfifo(src / "pipe.pdf")
    (src / "folder.pdf").mkdir()
    (src / "folder_link.pdf").symlink_to("folder.pdf")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(src / "sock.pdf"))
    sock.close()
    return src, {
        "loop.pdf": "symlink loop",
        "ping.pdf": "symlink loop",
        "pong.pdf": "symlink loop",
        "dangling.pdf": "dangling symlink",
        "null.pdf": "character device",
        "zero.PDF": "character device",
        "pipe.pdf": "FIFO",
        "folder.pdf": "directory",
        "folder_link.pdf": "directory",
        "sock.pdf": "socket",
    }


def test_pdf_entries_that_are_not_regular_files_are_quarantined(store, odd_entries):
    warehouse, blobs = store
    src, expected = odd_entries
    found = discover_inputs(src)
    assert sorted(f.name.rsplit("/", 1)[1] for f in found) == sorted(
        [*expected, "good_1950_03.pdf"]
    )

    result = ingest_documents([("t", src)], warehouse, blobs)  # never blocks on the FIFO

    assert (result.discovered, result.ingested, result.quarantined) == (len(expected) + 1, 1, 10)
    quarantine = warehouse.read("quarantine", QUARANTINE_SCHEMA)
    by_file = {p.rsplit("/", 1)[1]: r for p, r in quarantine.select("path", "reason").iter_rows()}
    assert set(by_file) == set(expected)
    for name, word in expected.items():
        assert by_file[name].startswith(f"{name}: "), by_file[name]
        assert word in by_file[name], (name, by_file[name])


def test_unreadable_folders_are_quarantined(store, tmp_path, monkeypatch):
    warehouse, blobs = store
    src = tmp_path / "src"
    locked = src / "1950" / "locked"
    locked.mkdir(parents=True)
    text_pdf(src / "1950" / "open_1950_03.pdf", ["Receipts"])
    text_pdf(locked / "hidden_1950_04.pdf", ["Receipts of April"])
    locked.chmod(0)
    if os.access(locked, os.R_OK | os.X_OK):  # root reads any folder: make the listing fail
        list_dir = scans._list_dir

        def denied(folder):
            if Path(folder) == locked:
                raise PermissionError(13, "Permission denied", str(folder))
            return list_dir(folder)

        monkeypatch.setattr(scans, "_list_dir", denied)
    try:
        result = ingest_documents([("t", src)], warehouse, blobs)
    finally:
        locked.chmod(0o755)
    assert (result.discovered, result.ingested, result.quarantined) == (2, 1, 1)
    row = warehouse.read("quarantine", QUARANTINE_SCHEMA).row(0, named=True)
    assert row["path"] == str(locked)
    assert "unreadable folder" in row["reason"] and "Permission denied" in row["reason"]


def test_a_source_that_is_itself_a_special_file_is_quarantined(store, tmp_path):
    warehouse, blobs = store
    os.mkfifo(tmp_path / "source.pdf")
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    result = ingest_documents(
        [("fifo", tmp_path / "source.pdf"), ("gone", tmp_path / "gone")], warehouse, blobs
    )
    assert (result.discovered, result.ingested, result.quarantined) == (2, 0, 2)
    reasons = [q["reason"] for q in result.intake.quarantined]
    assert "FIFO" in reasons[0] and "does not exist" in reasons[1]
    intake = warehouse.read("intake").filter(pl.col("stage") == "documents")
    assert intake.height == 2
