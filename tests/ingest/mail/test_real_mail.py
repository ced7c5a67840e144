"""Real mailboxes from ../shared/data/enron: exact intake, dedupe and attachment counts, and
fields of messages checked by eye against the files."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

from pipeline.ingest.mail import default_adapters, ingest_mail
from pipeline.ingest.mail.adapters import discover
from pipeline.ingest.mail.ingest import read_item
from pipeline.store import BlobStore

pytestmark = pytest.mark.real_data


def _row(messages: pl.DataFrame, suffix: str) -> dict:
    hit = messages.filter(
        pl.col("source_paths").list.eval(pl.element().str.ends_with(suffix)).list.any()
    )
    assert hit.height == 1, suffix
    return hit.row(0, named=True)


@pytest.fixture(scope="module")
def bailey(tmp_path_factory):
    from tests.conftest import SHARED_DATA

    root = SHARED_DATA / "enron" / "eml" / "bailey-s"
    if not root.exists():
        pytest.skip(f"real samples not found at {root}")
    blobs = BlobStore(str(tmp_path_factory.mktemp("blobs")))
    return root, ingest_mail([("enron_eml", root)], blobs), blobs


def test_bailey_every_file_ingested_and_duplicates_merged(bailey):
    root, result, _ = bailey
    intake = result.intake
    assert intake.discovered == 2177 == sum(1 for p in root.rglob("*") if p.is_file())
    assert len(intake.ingested) == 2177 and intake.quarantined == []
    # 2,150 distinct Message-IDs; Notes files copies under new ids ("All documents",
    # Calendar repeats): merged by headers and body into 1,443 messages
    assert result.messages.height == 1443
    assert result.messages["source_paths"].list.len().sum() == 2177
    assert result.messages["message_id"].null_count() == 0
    assert (result.messages["n_attachments"] > 0).sum() == 77
    assert result.attachments.height == 159
    assert result.attachments["is_spreadsheet"].sum() == 41
    assert result.messages["date"].null_count() == 380  # Notes placeholders (year 0002, 1706)


def test_bailey_file_level_attachment_counts(bailey):
    root, _, _ = bailey
    items, rejected, companions = discover(root, default_adapters())
    parsed = [read_item(i).parsed for i in items]
    assert rejected == [] and companions == [] and all(parsed)
    assert len({p.message_id for p in parsed}) == 2150
    assert sum(1 for p in parsed if p.attachments) == 84
    sheets = [a for p in parsed for a in p.attachments if a.is_spreadsheet]
    assert len(sheets) == 42  # two are named without .xls ("demand letter log ")
    assert sum(1 for a in sheets if a.file_name.lower().endswith(".xls")) == 40


def test_bailey_fields_read_by_eye(bailey):
    _, result, blobs = bailey
    row = _row(result.messages, "/Inbox/1.eml")
    mid = "C2DC5431391CAD4480D6C59B9A27F27C12F9C6@NAHOU-MSMBX01V.corp.enron.com"
    assert row["message_id"] == mid
    assert row["date"] == datetime(2001, 11, 26, 20, 27, 12, tzinfo=UTC)  # 12:27:12 -0800
    assert (row["from_addr"], row["from_name"]) == ("craig.breslau@enron.com", "Breslau Craig")
    assert row["to_addrs"] == [
        "susan.bailey@enron.com", "jason.r.williams@enron.com", "mark.taylor@enron.com"
    ]  # fmt: skip
    assert (row["subject"], row["norm_subject"]) == ("FW: assignment", "assignment")
    assert row["new_text"].startswith("PCS Nitrogen would like to assign their positions")
    assert row["new_text"].endswith("let me know how we proceed o n this assignment.")
    assert "Original Message" not in row["new_text"] and "EDRM" not in row["new_text"]
    assert len(row["source_paths"]) == 2  # also filed as Deleted Items/68.eml
    reply = _row(result.messages, "/Deleted Items/351.eml")
    assert reply["new_text"] == "This first one to raise this issue?"
    fwd = _row(result.messages, "/Deleted Items/13.eml")
    assert fwd["new_text"] == "" and "Bin Laden" in fwd["body"]
    kona = result.attachments.filter(pl.col("file_name") == "KonaMTMCOB12.11.2001.xls")
    assert kona.height == 4 and kona["is_spreadsheet"].all()  # versions sent in 4 messages
    assert blobs.get(kona["sha256"][0])[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def test_html_export_all_five_custodians(tmp_path):
    from tests.conftest import SHARED_DATA

    root = SHARED_DATA / "enron" / "archive_html"
    if not root.exists():
        pytest.skip(f"real samples not found at {root}")
    blobs = BlobStore(str(tmp_path / "blobs"))
    result = ingest_mail([("enron_html", root)], blobs)
    intake, messages, att = result.intake, result.messages, result.attachments
    files = [p for p in root.rglob("*") if p.is_file()]
    reasons = pl.Series([q["reason"] for q in intake.quarantined]).value_counts()
    assert dict(reasons.iter_rows()) == {"attachment_missing": 653, "not_a_message": 30}
    # every file: 4,752 pages + 391 attachment files ingested, 30 UI pages quarantined;
    # plus 653 links to files the export lacks (629 web-bug .URL links)
    assert len(files) == 5173 and len(intake.ingested) == 5143
    assert intake.discovered == len(files) + 653
    xls_files = {str(p) for p in files if p.suffix.lower() == ".xls"}
    assert len(xls_files) == 93 and xls_files <= set(intake.ingested)
    assert dict(messages.group_by("custodian").len().iter_rows()) == {
        "bailey-s": 1463, "harris-s": 593, "meyers-a": 1159, "rapp-b": 550, "slinger-r": 197,
    }  # fmt: skip
    assert messages.height == 3962 and messages["source_paths"].list.len().sum() == 4752
    assert att.height == 370 and att["is_spreadsheet"].sum() == 91  # 93 files, 2 in merged copies
    row = _row(messages, "harris-s/Deleted Items/TW Weekly Report for October 1.html")
    assert row["date"] == datetime(2001, 10, 18, 17, 6, 6, tzinfo=UTC)  # 18/10/2001 05:06:06 PM
    assert (row["from_addr"], row["from_name"]) == ("jan.moore@enron.com", "Moore Jan")
    assert len(row["to_addrs"]) == 34 and row["to_addrs"][0] == "mansoor.abdmoulaie@enron.com"
    assert row["subject"] == "TW Weekly Report for October 19, 2001"
    assert row["new_text"].startswith("Attached is the TW weekly report for October 19, 2001.")
    mine = att.filter(pl.col("message_key") == row["message_key"])
    assert mine["file_name"].to_list() == ["sharris1001wk3.xls"] and mine["is_spreadsheet"][0]
    springs = _row(messages, "rapp-b/Sent Items/RE_ Springs Industries.html")
    assert springs["new_text"].endswith("to see if anyone there knows anything about this.")
    assert "Forwarded by" not in springs["new_text"] and "Forwarded by" in springs["body"]
