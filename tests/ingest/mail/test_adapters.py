"""Adapters: CMU maildir, .eml trees, mbox, the HTML web-mail export; sniffing and quarantine."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.ingest.mail import MailAdapter, default_adapters, ingest_mail
from pipeline.ingest.mail.adapters import discover, mailbox_location
from pipeline.store import BlobStore

from .mail_fixtures import OLE_XLS, UI_PAGE, html_page, message, write_cmu, write_mbox


@pytest.fixture
def blobs(tmp_path) -> BlobStore:
    return BlobStore(str(tmp_path / "blobs"))


def _by_path(result, suffix: str) -> dict:
    rows = [
        r for r in result.messages.iter_rows(named=True)
        if any(p.endswith(suffix) for p in r["source_paths"])
    ]  # fmt: skip
    assert len(rows) == 1, f"{suffix}: {len(rows)} rows"
    return rows[0]


def test_every_builtin_adapter_follows_the_protocol():
    assert all(isinstance(a, MailAdapter) for a in default_adapters())


def test_cmu_maildir_layout_gives_custodian_and_folder(tmp_path, blobs):
    root = tmp_path / "maildir"
    write_cmu(
        root,
        "bailey-s",
        "inbox",
        [bytes(message(f"s{i}", message_id=f"<{i}@x>")) for i in range(3)],
    )
    write_cmu(root, "rapp-b", "sent_items", [bytes(message(message_id="<r@x>"))])
    result = ingest_mail([("enron", root)], blobs)
    assert result.messages.height == 4
    row = _by_path(result, "rapp-b/sent_items/1.")
    assert (row["custodian"], row["folder"], row["corpus"]) == ("rapp-b", "sent_items", "enron")
    assert result.intake.discovered == len(result.intake.ingested) == 4


def test_a_custodian_root_is_recognised_by_its_mail_folders(tmp_path):
    root = tmp_path / "bailey-s"
    (root / "Inbox" / "sub").mkdir(parents=True)
    assert mailbox_location(root, root / "Inbox" / "sub" / "1.eml") == ("bailey-s", "Inbox/sub")
    other = tmp_path / "many"
    (other / "ann" / "Inbox").mkdir(parents=True)
    assert mailbox_location(other, other / "ann" / "Inbox" / "2.") == ("ann", "Inbox")


def test_eml_tree_and_a_headerlike_file_without_extension(tmp_path, blobs):
    root = tmp_path / "ann"
    (root / "Inbox").mkdir(parents=True)
    (root / "Inbox" / "a.eml").write_bytes(bytes(message(message_id="<a@x>")))
    (root / "Inbox" / "saved-message").write_bytes(bytes(message("b", message_id="<b@x>")))
    result = ingest_mail([("c", root)], blobs)
    assert sorted(result.messages["message_id"].to_list()) == ["a@x", "b@x"]
    assert set(result.messages["custodian"]) == {"ann"}


def test_mbox_messages_are_items_named_file_index(tmp_path, blobs):
    root = tmp_path / "boxes"
    write_mbox(
        root / "ann" / "Inbox.mbox", [message(f"s{i}", message_id=f"<{i}@x>") for i in range(3)]
    )
    result = ingest_mail([("c", root)], blobs)
    paths = sorted(p for ps in result.messages["source_paths"] for p in ps)
    assert [p.rsplit("/", 1)[1] for p in paths] == ["Inbox.mbox#0", "Inbox.mbox#1", "Inbox.mbox#2"]
    assert set(result.messages["folder"]) == {"Inbox"}
    assert result.intake.ingested == [str(root / "ann" / "Inbox.mbox")]


def test_a_file_starting_with_from_line_is_sniffed_as_mbox(tmp_path, blobs):
    root = tmp_path / "x"
    write_mbox(
        root / "archive", [message("a", message_id="<1@x>"), message("b", message_id="<2@x>")]
    )
    result = ingest_mail([("c", root)], blobs)
    assert result.messages.height == 2


def test_unknown_empty_and_binary_files_are_quarantined_never_skipped(tmp_path, blobs):
    root = tmp_path / "mail"
    write_cmu(root, "ann", "inbox", [bytes(message()), b"", b"\x00\x01binary junk"])
    (root / "ann" / "notes.txt").write_text("just some notes\nnot a message\n")
    (root / "ann" / "empty.dat").write_bytes(b"")
    (root / "ann" / ".hidden").write_bytes(b"\x89PNG\r\n")
    result = ingest_mail([("c", root)], blobs)
    reasons = {Path(q["path"]).name: q["reason"] for q in result.intake.quarantined}
    assert reasons == {
        "2.": "empty_file",
        "3.": "not_a_message",
        "notes.txt": "unknown_format",
        "empty.dat": "empty_file",
        ".hidden": "unknown_format",
    }
    assert result.intake.discovered == 6 and len(result.intake.ingested) == 1
    assert result.intake.quarantine_frame()["detail"].str.contains("/").all()  # names the file


def test_an_oversized_message_file_is_quarantined(tmp_path, blobs, monkeypatch):
    from pipeline.ingest.mail import adapters

    monkeypatch.setattr(adapters, "MAX_MESSAGE_BYTES", 100)
    root = tmp_path / "m"
    write_cmu(root, "ann", "inbox", [bytes(message(body="x" * 500))])
    result = ingest_mail([("c", root)], blobs, workers=1)
    assert [q["reason"] for q in result.intake.quarantined] == ["oversized"]


def test_missing_source_folder_is_quarantined(tmp_path, blobs):
    result = ingest_mail([("c", tmp_path / "nope")], blobs)
    assert [q["reason"] for q in result.intake.quarantined] == ["missing_source"]


def test_empty_mbox_is_quarantined(tmp_path, blobs):
    root = tmp_path / "m"
    root.mkdir()
    (root / "empty.mbox").write_bytes(b"")
    result = ingest_mail([("c", root)], blobs)
    assert [q["reason"] for q in result.intake.quarantined] == ["empty_mbox"]


def _html_export(root: Path) -> Path:
    cust = root / "harris-s"
    inbox = cust / "Inbox"
    (inbox / "attachments").mkdir(parents=True)
    (cust / "index.html").write_text(UI_PAGE)
    (cust / "help.html").write_text(UI_PAGE)
    (inbox / "attachments" / "Monthly samples.xls").write_bytes(OLE_XLS)
    (inbox / "attachments" / "notes.doc").write_bytes(b"doc bytes")
    (inbox / "attachments" / "nobody links me.pdf").write_bytes(b"%PDF-1.4")
    body = (
        "Attached are the samples.<br>\n<br>\nJan<br>\n<br>\n -----Original Message-----<br>\n"
        "From: \tBlair, Lynn  <br>\nSent:\tFriday, November 09, 2001 2:27 PM<br>\n"
        "To:\tMoore, Jan<br>\nSubject:\tsamples<br>\n<br>\nCan you send the samples?<br>"
    )
    page = html_page(
        "RE&#58; Monthly samples &amp; pigging",
        body,
        links=["Monthly samples.xls", "notes.doc", "__DL-39.URL"],
    )
    (inbox / "RE_ Monthly samples.html").write_text(page)
    (inbox / "RE_ Monthly samples (1).html").write_text(page)  # the export's duplicate copy
    (inbox / "Other.html").write_text(
        html_page("Lunch", "Lunch at noon?", date="02/03/2002 09:15:00 AM")
    )
    return root


def test_html_export_pages_become_messages_with_attachments(tmp_path, blobs):
    root = _html_export(tmp_path / "archive_html")
    result = ingest_mail([("enron_html", root)], blobs)
    row = _by_path(result, "RE_ Monthly samples.html")
    assert row["from_addr"] == "jan.moore@enron.com" and row["from_name"] == "Moore Jan"
    assert row["to_addrs"] == ["steven.harris@enron.com", "lynn.blair@enron.com"]
    assert row["cc_addrs"] == ["kim.watson@enron.com"]
    assert row["subject"] == "RE: Monthly samples & pigging"
    assert row["norm_subject"] == "monthly samples & pigging"
    assert str(row["date"]) == "2001-10-18 17:06:06+00:00"  # dd/mm/yyyy, read as UTC
    assert row["new_text"] == "Attached are the samples.\n\nJan"
    assert "Can you send the samples?" in row["body"]
    assert (row["custodian"], row["folder"]) == ("harris-s", "Inbox")
    assert len(row["source_paths"]) == 2  # the "(1)" copy merged by headers and body
    assert row["message_id"] is None and row["n_attachments"] == 2
    att = result.attachments.filter(result.attachments["message_key"] == row["message_key"])
    assert att["file_name"].to_list() == ["Monthly samples.xls", "notes.doc"]
    assert att["is_spreadsheet"].to_list() == [True, False]
    assert blobs.get(att["sha256"][0]) == OLE_XLS
    other = _by_path(result, "Other.html")
    assert str(other["date"]) == "2002-03-02 09:15:00+00:00"


def test_html_export_intake_accounts_for_every_file(tmp_path, blobs):
    root = _html_export(tmp_path / "archive_html")
    result = ingest_mail([("enron_html", root)], blobs)
    intake = result.intake
    reasons = sorted((q["path"].rsplit("harris-s/")[-1], q["reason"]) for q in intake.quarantined)
    assert reasons == [
        ("Inbox/RE_ Monthly samples (1).html#attachments/__DL-39.URL", "attachment_missing"),
        ("Inbox/RE_ Monthly samples.html#attachments/__DL-39.URL", "attachment_missing"),
        ("Inbox/attachments/nobody links me.pdf", "orphan_attachment"),
        ("help.html", "not_a_message"),
        ("index.html", "not_a_message"),
    ]
    ingested = sorted(Path(p).name for p in intake.ingested)
    assert ingested == sorted(
        ["Monthly samples.xls", "notes.doc", "Other.html", "RE_ Monthly samples.html",
         "RE_ Monthly samples (1).html"]
    )  # fmt: skip
    files = [p for p in root.rglob("*") if p.is_file()]
    assert len(files) == 8 and intake.discovered == len(files) + 2  # + the 2 missing links


def test_discover_claims_each_file_once(tmp_path):
    root = _html_export(tmp_path / "archive_html")
    write_cmu(root, "bailey-s", "inbox", [bytes(message())])
    items, rejected, companions = discover(root, default_adapters())
    claimed = [i.file for i in items] + [r.file for r in rejected] + companions
    assert len(claimed) == len(set(claimed)) == sum(1 for p in root.rglob("*") if p.is_file())
    assert {i.adapter.name for i in items} == {"html_export", "rfc822"}


class JsonLinesExport:
    """A researcher's own format: one JSON object per line ({"from", "subject", "text"})."""

    name = "jsonl"

    def claim(self, root: Path, files):
        from pipeline.ingest.mail import Claim, RawItem

        claim = Claim()
        for f in files:
            if f.suffix == ".jsonl":
                lines = f.read_text().splitlines()
                claim.items += [
                    RawItem(self, str(f), f"{f}#{i}", "ann", f.stem, i) for i in range(len(lines))
                ]
        return claim

    def read(self, item):
        import json
        from email.message import EmailMessage

        from pipeline.ingest.mail import MailReadError

        line = Path(item.file).read_text().splitlines()[item.index]
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise MailReadError("bad_json", f"{item.path}: {exc}") from exc
        msg = EmailMessage()
        msg["From"], msg["Subject"] = record["from"], record["subject"]
        msg.set_content(record["text"])
        return msg


def test_a_researcher_adds_a_format_with_one_class(tmp_path, blobs):
    root = tmp_path / "export"
    root.mkdir()
    (root / "inbox.jsonl").write_text(
        '{"from": "a@x.com", "subject": "Q3", "text": "Numbers attached."}\n{broken\n'
    )
    (root / "readme.md").write_text("# an export\n")
    adapters = [JsonLinesExport(), *default_adapters()]
    result = ingest_mail([("own", root)], blobs, adapters=adapters)
    assert result.messages["subject"].to_list() == ["Q3"]
    assert result.messages["folder"].to_list() == ["inbox"]
    reasons = sorted((Path(q["path"]).name, q["reason"]) for q in result.intake.quarantined)
    assert reasons == [("inbox.jsonl#1", "bad_json"), ("readme.md", "unknown_format")]
    assert [Path(p).name for p in result.intake.ingested] == ["inbox.jsonl"]
