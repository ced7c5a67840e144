"""MIME oddities: nested multiparts, forwarded messages, encoded names, legacy charsets,
broken and missing headers. Each builds the raw bytes and reads them as an adapter would."""

from __future__ import annotations

import io
import zipfile
from email.message import EmailMessage

from pipeline.ingest.mail.adapters import parse_message_bytes
from pipeline.ingest.mail.parse import is_spreadsheet, normalise_subject, parse_message

from .mail_fixtures import OLE_XLS, message


def parsed(data: bytes):
    return parse_message(parse_message_bytes(data, "test"))


def test_nested_multipart_body_and_attachments():
    inner = EmailMessage()
    inner.set_content("plain text body")
    inner.add_alternative("<p>html <b>body</b></p>", subtype="html")
    outer = message(body="x")
    outer.clear_content()
    outer.make_mixed()
    outer.attach(inner)
    outer.add_attachment(b"a,b\n1,2\n", maintype="text", subtype="csv", filename="t.csv")
    outer.add_attachment(OLE_XLS, maintype="application", subtype="octet-stream", filename="Q3.XLS")
    p = parsed(bytes(outer))
    assert p.body.strip() == "plain text body"
    assert [(a.file_name, a.content_type, a.is_spreadsheet) for a in p.attachments] == [
        ("t.csv", "text/csv", False),
        ("Q3.XLS", "application/octet-stream", True),
    ]


def test_attachments_inside_a_forwarded_message_count():
    forwarded = message(
        "Budget",
        "see the file",
        attachments=[
            (
                "budget.xlsx",
                b"PK\x03\x04zz",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            )
        ],
    )
    outer = message("FW: Budget", "FYI, forwarding.", message_id="<fw@x>")
    outer.add_attachment(forwarded)  # a message/rfc822 part
    p = parsed(bytes(outer))
    assert p.body.strip() == "FYI, forwarding."
    assert [a.file_name for a in p.attachments] == ["budget.xlsx"]
    assert p.attachments[0].is_spreadsheet and p.attachments[0].data == b"PK\x03\x04zz"


def test_rfc2047_subject_and_names_and_rfc2231_filename():
    raw = (
        b"From: =?utf-8?q?Jos=C3=A9_P=C3=A9rez?= <jose@example.com>\r\n"
        b"To: =?iso-8859-1?q?M=FCller?= <mueller@example.com>\r\n"
        b"Subject: =?utf-8?b?UmU6IFByw6l2aXNpb25zIOKCrA==?=\r\n"
        b"Message-ID: <enc@x>\r\n"
        b"MIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="B"\r\n\r\n'
        b"--B\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHola\r\n"
        b"--B\r\nContent-Type: application/vnd.ms-excel\r\n"
        b"Content-Disposition: attachment; filename*=utf-8''Pr%C3%A9visions%20%E2%82%AC.xls\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\nAAEC\r\n"
        b"--B\r\nContent-Type: application/pdf\r\n"
        b'Content-Disposition: attachment; filename="=?utf-8?q?r=C3=A9sum=C3=A9.pdf?="\r\n'
        b"Content-Transfer-Encoding: base64\r\n\r\nAAEC\r\n"
        b"--B--\r\n"
    )
    p = parsed(raw)
    assert p.subject == "Re: Prévisions €"
    assert p.norm_subject == "prévisions €"
    assert (p.from_name, p.from_addr) == ("José Pérez", "jose@example.com")
    assert p.to_addrs == ["mueller@example.com"]
    assert [a.file_name for a in p.attachments] == ["Prévisions €.xls", "résumé.pdf"]
    assert p.attachments[0].data == b"\x00\x01\x02"


def test_legacy_charsets_cp1252_latin1_and_undeclared_8bit():
    def raw(ctype: bytes, body: bytes, subject: bytes = b"Prices") -> bytes:
        return (
            b"From: a@example.com\r\nSubject: " + subject + b"\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: " + ctype + b"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body
        )

    cp1252 = parsed(raw(b"text/plain; charset=windows-1252", b"\x93quoted\x94 \x80 5\r\n"))
    assert cp1252.body.strip() == "\u201cquoted\u201d \u20ac 5"
    latin1 = parsed(raw(b"text/plain; charset=iso-8859-1", b"caf\xe9 \x96 cr\xe8me\r\n"))
    assert latin1.body.strip() == "caf\xe9 \u2013 cr\xe8me"  # 0x96 read as 1252's en dash
    undeclared = parsed(raw(b"text/plain", b"na\xefve r\xe9sum\xe9\r\n", b"Caf\xe9 prices"))
    assert undeclared.body.strip() == "na\xefve r\xe9sum\xe9"
    assert undeclared.subject == "Caf\xe9 prices"  # raw 8-bit header bytes decoded too
    utf8 = parsed(raw(b"text/plain", "na\xefve\r\n".encode()))
    assert utf8.body.strip() == "na\xefve"
    unknown = parsed(raw(b"text/plain; charset=x-no-such-charset", b"ok \xe9\r\n"))
    assert unknown.body.strip() == "ok \xe9"


def test_broken_and_missing_headers_still_ingest():
    raw = (
        b"From: <<broken@@example..com\r\n"
        b"To: undisclosed-recipients:;\r\n"
        b"Date: not a date at all\r\n"
        b"Subject: \r\n"
        b"X-Weird-Header-Without-Value:\r\n"
        b"References: <a@x> garbage <b@x>\r\n"
        b"In-Reply-To: b@x\r\n"
        b"\r\nbody text\r\n"
    )
    p = parsed(raw)
    assert p.date is None and p.subject is None and p.norm_subject == ""
    assert p.to_addrs == []
    assert p.references == ["a@x", "b@x"] and p.in_reply_to == "b@x"
    assert p.body.strip() == "body text"
    bare = parsed(b"Subject: only a subject\r\n\r\nhello\r\n")
    assert bare.from_addr is None and bare.message_id is None and bare.date is None
    assert bare.new_text == "hello"


def test_headers_only_message_and_missing_body_separator():
    p = parsed(b"From: a@example.com\r\nSubject: no body\r\n")
    assert p.body == "" and p.new_text == ""
    q = parsed(b"From: a@example.com\r\nSubject: s\r\nthis line is not a header\r\nmore\r\n")
    assert "this line is not a header" in q.body


def test_dates_to_utc_and_placeholders_to_null():
    p = parsed(bytes(message(date="Mon, 26 Nov 2001 12:27:12 -0800 (PST)")))
    assert p.date.isoformat() == "2001-11-26T20:27:12+00:00"
    naive = parsed(bytes(message(date="26 Nov 2001 12:27:12 -0000")))
    assert naive.date.isoformat() == "2001-11-26T12:27:12+00:00"
    for placeholder in (b"Sun, 30 Nov 0002 00:00:00 -0800 (PST)", b"Fri, 31 Dec 1706 04:19 -0800"):
        assert parsed(b"From: a@x.com\r\nDate: " + placeholder + b"\r\n\r\nx\r\n").date is None


def test_html_only_body_becomes_text():
    msg = EmailMessage()
    msg["From"] = "a@example.com"
    msg.set_content(
        "<html><head><style>p{}</style></head><body><p>Numbers &amp; totals</p>"
        "<p>Line two<br>Line three</p></body></html>",
        subtype="html",
    )
    p = parsed(bytes(msg))
    assert p.body == "Numbers & totals\n\nLine two\nLine three"


def test_display_name_only_sender_and_address_case():
    p = parsed(b"From:  Susan Bailey\r\nTo: <Neel.Lemon@BakerBotts.com>,<ff@x.com>\r\n\r\nx\r\n")
    assert (p.from_name, p.from_addr) == ("Susan Bailey", None)
    assert p.to_addrs == ["neel.lemon@bakerbotts.com", "ff@x.com"]
    daemon = parsed(b"From: MAILER-DAEMON\r\nTo: Ann Lee, Bob Roe\r\n\r\nx\r\n")
    assert (daemon.from_name, daemon.from_addr, daemon.to_addrs) == (None, "mailer-daemon", [])


def test_spreadsheet_detection_by_extension_type_and_content():
    assert is_spreadsheet("a.xlsm", "application/octet-stream", b"")
    assert is_spreadsheet("demand letter log ", "application/msexcell", b"")
    assert is_spreadsheet(None, "application/octet-stream", OLE_XLS)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
    assert is_spreadsheet("report", "application/octet-stream", buf.getvalue())
    doc = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "WordDocument".encode("utf-16-le")
    assert not is_spreadsheet("memo.doc", "application/msword", doc)


def test_subject_normalisation():
    assert normalise_subject("RE: Fw: FWD:  [finance-l] Re[2]: Q3   Budget ") == "q3 budget"
    assert normalise_subject("AW: SV: Tr: Plan") == "plan"
    assert normalise_subject("Report: Q3") == "report: q3"


def test_mail_cannot_claim_the_adapters_internal_headers():
    raw = bytes(message(attachments=[("a.xls", OLE_XLS, "application/vnd.ms-excel")]))
    raw = raw.replace(b"Subject:", b"X-LedgerForge-Missing: attachments/x.doc\nSubject:", 1)
    raw = raw.replace(
        b"Content-Disposition: attachment",
        b"X-LedgerForge-Source: /etc/passwd\nContent-Disposition: attachment",
    )
    p = parsed(raw)
    assert p.missing == [] and [a.source_file for a in p.attachments] == [None]
