"""ingest_mail end to end on generated mailboxes: dedupe, intake, blobs, progress, workers."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.ingest.mail import ATTACHMENTS_SCHEMA, MESSAGES_SCHEMA, ingest_mail
from pipeline.ingest.mail import ingest as ingest_module
from pipeline.store import BlobStore

from .mail_fixtures import OLE_XLS, message, write_cmu, write_mbox


@pytest.fixture
def blobs(tmp_path) -> BlobStore:
    return BlobStore(str(tmp_path / "blobs"))


def test_frames_follow_the_contract_schemas(tmp_path, blobs):
    root = tmp_path / "m"
    write_cmu(
        root,
        "ann",
        "inbox",
        [bytes(message(attachments=[("a.xls", OLE_XLS, "application/vnd.ms-excel")]))],
    )
    result = ingest_mail([("c", root)], blobs)
    assert result.messages.schema == pl.Schema(MESSAGES_SCHEMA)
    assert result.attachments.schema == pl.Schema(ATTACHMENTS_SCHEMA)
    assert result.intake.stage == "mail"
    row = result.messages.row(0, named=True)
    assert (
        row["cc_addrs"] == [] and row["references"] == [] and row["to_addrs"] == ["bob@example.com"]
    )


def test_same_message_id_in_two_folders_is_one_row_with_both_paths(tmp_path, blobs):
    root = tmp_path / "m"
    data = bytes(message(attachments=[("Q3.xls", OLE_XLS, "application/vnd.ms-excel")]))
    a = write_cmu(root, "ann", "inbox", [data])
    b = write_cmu(root, "ann", "all_documents", [data])
    result = ingest_mail([("c", root)], blobs)
    assert result.messages.height == 1
    row = result.messages.row(0, named=True)
    assert row["source_paths"] == [str(b[0]), str(a[0])]  # sorted discovery order
    assert row["folder"] == "all_documents"  # the first source's
    assert row["message_id"] == "m1@example.com" and row["n_attachments"] == 1
    assert result.attachments.height == 1  # the attachment once, not once per copy
    assert len(result.intake.ingested) == 2


def test_without_message_id_copies_merge_by_headers_and_body(tmp_path, blobs):
    root = tmp_path / "m"
    copy = bytes(message(message_id=None, body="Totals attached.\n"))
    refolded = copy.replace(b"Totals attached.", b"Totals   attached.")  # whitespace only
    other = bytes(message(message_id=None, body="Different text.\n"))
    later = bytes(
        message(message_id=None, body="Totals attached.\n", date="Tue, 27 Nov 2001 09:00:00 -0800")
    )
    write_cmu(root, "ann", "inbox", [copy, refolded, other, later])
    result = ingest_mail([("c", root)], blobs)
    sizes = sorted(result.messages["source_paths"].list.len().to_list())
    assert sizes == [1, 1, 2]
    assert result.messages["message_id"].null_count() == 3


def test_copies_with_different_ids_but_same_content_merge(tmp_path, blobs):
    """Lotus Notes files a message in "All documents" under a new id: one message."""
    root = tmp_path / "m"
    write_cmu(root, "ann", "sent", [bytes(message(message_id="<a@notes>"))])
    write_cmu(root, "ann", "all_documents", [bytes(message(message_id="<b@notes>"))])
    write_cmu(root, "ann", "inbox", [bytes(message(message_id="<a@notes>", body="edited"))])
    result = ingest_mail([("c", root)], blobs)
    # a@notes (sent) ~ b@notes by content, and ~ the edited a@notes by id: all one message
    assert result.messages.height == 1
    assert len(result.messages["source_paths"][0]) == 3


def test_message_key_is_sha256_of_message_id_or_content(tmp_path, blobs):
    import hashlib

    root = tmp_path / "m"
    write_cmu(root, "ann", "inbox", [bytes(message()), bytes(message("x", message_id=None))])
    result = ingest_mail([("c", root)], blobs)
    keys = dict(zip(result.messages["message_id"], result.messages["message_key"], strict=True))
    assert keys["m1@example.com"] == hashlib.sha256(b"id:m1@example.com").hexdigest()
    assert len(keys[None]) == 64


def test_attachment_bytes_go_to_the_blob_store(tmp_path, blobs):
    root = tmp_path / "m"
    write_cmu(root, "ann", "inbox", [bytes(message(attachments=[
        ("book.xlsx", b"PK\x03\x04xl/workbook.xml", "application/octet-stream"),
        ("memo.doc", b"word", "application/msword"),
    ]))])  # fmt: skip
    att = ingest_mail([("c", root)], blobs).attachments
    assert att["part_index"].to_list() == [0, 1]
    assert att["is_spreadsheet"].to_list() == [True, False]
    assert att["size"].to_list() == [19, 4]
    assert [blobs.get(s) for s in att["sha256"]] == [b"PK\x03\x04xl/workbook.xml", b"word"]


def test_one_bad_file_never_stops_the_run(tmp_path, blobs, monkeypatch):
    root = tmp_path / "m"
    write_cmu(
        root,
        "ann",
        "inbox",
        [bytes(message("a", message_id="<a@x>")), bytes(message("b", message_id="<b@x>"))],
    )
    real = ingest_module.parse_message

    def flaky(msg):
        if msg["Subject"] == "a":
            raise RuntimeError("parser bug")
        return real(msg)

    monkeypatch.setattr(ingest_module, "parse_message", flaky)
    result = ingest_mail([("c", root)], blobs, workers=1)
    assert result.messages["message_id"].to_list() == ["b@x"]
    [q] = result.intake.quarantined
    assert q["reason"] == "unparseable_message" and "parser bug" in q["detail"]
    assert result.intake.discovered == 2


def test_mbox_with_one_unreadable_message_names_it(tmp_path, blobs, monkeypatch):
    root = tmp_path / "m"
    write_mbox(
        root / "ann" / "box.mbox",
        [message("a", message_id="<a@x>"), message("b", message_id="<b@x>")],
    )
    real = ingest_module.parse_message
    monkeypatch.setattr(
        ingest_module,
        "parse_message",
        lambda m: (_ for _ in ()).throw(ValueError("bad")) if m["Subject"] == "b" else real(m),
    )  # noqa: E501
    result = ingest_mail([("c", root)], blobs, workers=1)
    assert result.messages.height == 1
    assert [p.rsplit("/", 1)[1] for p in result.intake.ingested] == ["box.mbox"]
    assert [q["path"].rsplit("/", 1)[1] for q in result.intake.quarantined] == ["box.mbox#1"]


def test_progress_is_reported_every_n_files(tmp_path, blobs):
    root = tmp_path / "m"
    write_cmu(
        root, "ann", "inbox", [bytes(message(f"s{i}", message_id=f"<{i}@x>")) for i in range(7)]
    )
    lines: list[str] = []
    ingest_mail([("c", root)], blobs, progress=lines.append, progress_every=3)
    assert [line.split(",")[0] for line in lines] == [
        "mail: 3/7 files",
        "mail: 6/7 files",
        "mail: 7/7 files",
    ]
    assert all(line.endswith(" msg/s") for line in lines)


def test_worker_pool_gives_the_same_result_as_one_process(tmp_path, blobs, monkeypatch):
    root = tmp_path / "m"
    msgs = [
        bytes(
            message(
                f"s{i}",
                message_id=f"<{i}@x>",
                attachments=[("f.xls", OLE_XLS + bytes([i]), "application/vnd.ms-excel")]
                if i % 3 == 0
                else [],
            )
        )
        for i in range(30)
    ]  # noqa: E501
    write_cmu(root, "ann", "inbox", msgs)
    serial = ingest_mail([("c", root)], blobs, workers=1)
    monkeypatch.setattr(ingest_module, "SERIAL_BELOW", 0)
    monkeypatch.setattr(ingest_module, "CHUNK_ITEMS", 7)
    pooled = ingest_mail([("c", root)], blobs, workers=2)
    assert pooled.messages.equals(serial.messages)
    assert pooled.attachments.equals(serial.attachments)
    assert pooled.intake.ingested == serial.intake.ingested


def test_several_sources_keep_their_corpus(tmp_path, blobs):
    write_cmu(tmp_path / "a", "ann", "inbox", [bytes(message("x", message_id="<x@a>"))])
    write_cmu(tmp_path / "b", "bob", "inbox", [bytes(message("y", message_id="<y@b>"))])
    result = ingest_mail([("first", tmp_path / "a"), ("second", tmp_path / "b")], blobs)
    assert dict(zip(result.messages["message_id"], result.messages["corpus"], strict=True)) == {
        "x@a": "first",
        "y@b": "second",
    }
