"""Adapter for an HTML web-mail export: the worked example of adding a mailbox format.

The format (as in ``../shared/data/enron/archive_html/<custodian>/``)::

    <custodian>/index.html, <custodian>.html, help.html, ...   the web-mail UI (not mail)
    <custodian>/<folder>/<subject>.html                        one page per message
    <custodian>/<folder>/attachments/<file>                    the original attachment files

A message page has a header table (``<table id=header_table>``) whose rows carry an id:
``from_row``, ``to_row`` / ``cc_row`` (one row per address, the address in a
``mailto:`` link), ``date_row`` (``dd/mm/yyyy hh:mm:ss AM``; no time zone, read as
UTC), ``subject_row`` and ``attach_row`` (one row per attachment, a link such as
``attachments\\Monthly%20samples.xls``, URL-encoded, backslash-separated); then the
body rendered as HTML in ``<div id=msg_body>``. There is no Message-ID: copies of a
message are merged by their headers and body.

How the adapter works, in the two steps every adapter has:

``claim``
    Sniffs ``.html`` files by their first bytes (a header table = a message page).
    Files in an ``attachments`` folder beside message pages are companions; HTML files
    without a header table in a folder beside message folders are the UI pages and are
    rejected as ``not_a_message``.
``read``
    Parses the page with the stdlib HTML parser and builds an
    :class:`email.message.EmailMessage` (plain-text body, the HTML as an alternative, each
    linked attachment file as an attachment part). From there on the message goes
    through the same code as a maildir or mbox message. Each attachment part carries an
    ``X-LedgerForge-Source`` header naming its file (so intake can account for it); a
    linked file that is absent is named in ``X-LedgerForge-Missing`` (quarantined as
    ``attachment_missing``).
"""

from __future__ import annotations

import mimetypes
import os
import urllib.parse
from collections.abc import Sequence
from datetime import datetime
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import format_datetime, formataddr
from html.parser import HTMLParser
from pathlib import Path

from pipeline.ingest.mail.adapters import (
    MISSING_HEADER,
    SOURCE_HEADER,
    Claim,
    MailReadError,
    RawItem,
    Rejected,
    mailbox_location,
    read_head,
)
from pipeline.ingest.mail.html_text import html_to_text
from pipeline.store import storable_path

PAGE_MARKER = b"header_table"
PAGE_SUFFIXES = {".html", ".htm"}
ATTACHMENTS_DIR = "attachments"
DATE_FORMATS = ("%d/%m/%Y %I:%M:%S %p", "%d/%m/%Y %H:%M:%S", "%d/%m/%Y")


class HtmlExport:
    """The HTML web-mail export (see the module docstring)."""

    name = "html_export"

    def claim(self, root: Path, files: Sequence[Path]) -> Claim:
        claim = Claim()
        pages: list[Path] = []
        others: list[Path] = []
        for f in files:
            if f.suffix.lower() in PAGE_SUFFIXES and f.parent.name != ATTACHMENTS_DIR:
                (pages if PAGE_MARKER in read_head(f) else others).append(f)
        page_dirs = {p.parent for p in pages}
        if not page_dirs:
            return claim
        for page in pages:
            custodian, folder = mailbox_location(root, page)
            claim.items.append(
                RawItem(self, os.fspath(page), storable_path(page), custodian, folder)
            )
        export_dirs = {d.parent for d in page_dirs}  # a custodian's folder
        for f in others:
            if f.parent in export_dirs:
                claim.rejected.append(
                    Rejected(os.fspath(f), "not_a_message", "a page of the web-mail interface")
                )
        for f in files:
            if f.parent.name == ATTACHMENTS_DIR and f.parent.parent in page_dirs:
                claim.companions.append(os.fspath(f))
        return claim

    def read(self, item: RawItem) -> EmailMessage:
        try:
            text = Path(item.file).read_bytes().decode("utf-8", "replace")
        except OSError as exc:
            raise MailReadError("unreadable_file", f"{item.path}: {exc}") from exc
        page = _PageParser()
        try:
            page.feed(text)
            page.close()
        except Exception as exc:
            raise MailReadError("unparseable_page", f"{item.path}: {exc!r}") from exc
        if not page.rows:
            raise MailReadError("no_headers", f"{item.path}: no header table rows")
        return build_message(page, Path(item.file).parent, item.path)


def build_message(page: _PageParser, folder: Path, where: str) -> EmailMessage:
    """An EmailMessage from a parsed page; attachment links resolved against ``folder``."""
    msg = EmailMessage(policy=default_policy)
    _set(msg, "From", ", ".join(_addresses(page.rows.get("from_row", []))))
    for row, header in (("to_row", "To"), ("cc_row", "Cc")):
        if addrs := _addresses(page.rows.get(row, [])):
            _set(msg, header, ", ".join(addrs))
    when = _date(" ".join(t for t, _ in page.rows.get("date_row", [])))
    if when is not None:
        msg["Date"] = format_datetime(when)  # naive: written as -0000, read back as UTC
    subject = " ".join(t for t, _ in page.rows.get("subject_row", [])).strip()
    _set(msg, "Subject", subject)
    body_html = "".join(page.body)
    msg.set_content(html_to_text(body_html))
    if body_html.strip():
        msg.add_alternative(body_html, subtype="html")
    for _label, href in page.rows.get("attach_row", []):
        if not href:
            continue
        rel = urllib.parse.unquote(href).replace("\\", "/")
        file = folder / rel
        if not file.is_file():
            msg[MISSING_HEADER] = rel
            continue
        ctype = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        maintype, subtype = ctype.split("/", 1)
        if maintype == "text":  # keep the original bytes: no charset re-encoding
            maintype, subtype = "application", "octet-stream"
        msg.add_attachment(
            file.read_bytes(), maintype=maintype, subtype=subtype, filename=file.name
        )
        msg.get_payload()[-1][SOURCE_HEADER] = os.fspath(file)
    return msg


def _set(msg: EmailMessage, name: str, value: str) -> None:
    """Set a header; a value the header parser refuses is stored as plain text."""
    if not value:
        return
    try:
        msg[name] = value
    except Exception:
        msg[name] = value.encode("ascii", "replace").decode("ascii")


def _addresses(cells: list[tuple[str, str | None]]) -> list[str]:
    out = []
    for text, href in cells:
        addr = urllib.parse.unquote(href[7:]) if href and href.lower().startswith("mailto:") else ""
        name = text.split("<", 1)[0].strip() if "<" in text else ("" if addr else text.strip())
        if "<" in addr:  # mailto:Name <addr> (the From row)
            addr = addr.rsplit("<", 1)[1].rstrip(">").strip()
        name = " ".join(name.split())
        if addr or name:
            out.append(formataddr((name, addr)) if addr else name)
    return out


def _date(text: str) -> datetime | None:
    text = " ".join(text.split())
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


class _PageParser(HTMLParser):
    """Header rows (by ``<tr id>``: list of (text, link) per row) and the body's HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, list[tuple[str, str | None]]] = {}
        self.body: list[str] = []
        self._row: str | None = None
        self._cell = -1
        self._text: list[str] = []
        self._href: str | None = None
        self._body_depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self._body_depth:
            if tag == "div":
                self._body_depth += 1
            self.body.append(self.get_starttag_text() or "")
            return
        if tag == "div" and a.get("id") == "msg_body":
            self._body_depth = 1
        elif tag == "tr" and a.get("id", "").endswith("_row"):
            self._row, self._cell, self._text, self._href = a["id"], -1, [], None
        elif tag == "td" and self._row:
            self._cell += 1
        elif tag == "a" and self._row and self._href is None:
            self._href = a.get("href")

    def handle_startendtag(self, tag, attrs):
        if self._body_depth:
            self.body.append(self.get_starttag_text() or "")
        elif tag == "td" and self._row:
            self._cell += 1

    def handle_endtag(self, tag):
        if self._body_depth:
            if tag == "div":
                self._body_depth -= 1
                if not self._body_depth:
                    return
            self.body.append(f"</{tag}>")
        elif tag == "tr" and self._row:
            text = " ".join("".join(self._text).split())
            self.rows.setdefault(self._row, []).append((text, self._href))
            self._row = None

    def handle_data(self, data):
        if self._body_depth:
            self.body.append(data.replace("&", "&amp;").replace("<", "&lt;"))
        elif self._row and self._cell >= 1:  # cell 0 is the caption ("From: ")
            self._text.append(data)
