"""One parsed message (stdlib ``email``, ``policy.default``) -> the fields of a row.

Format-independent: every adapter hands over an :class:`email.message.EmailMessage`.
Real mail is messy, so every field is read defensively: a header the parser cannot
make sense of gives a null (or its raw text), never an exception that loses the
message. Text is decoded with the declared charset, and when that fails or none is
declared, as UTF-8, then Windows-1252, then Latin-1 (which always succeeds), the order
in which undeclared 8-bit mail is most often right. Headers with raw 8-bit bytes get
the same treatment.

Attachments are every leaf part that is not the chosen body: parts with a file name or
an ``attachment`` disposition, and non-text parts. ``message/rfc822`` parts are walked
into, so files attached to a forwarded message count as attachments of this one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.utils import getaddresses, parsedate_to_datetime

from pipeline.ingest.mail.adapters import MISSING_HEADER, SOURCE_HEADER
from pipeline.ingest.mail.html_text import html_to_text
from pipeline.ingest.mail.new_text import new_text

SPREADSHEET_SUFFIXES = (".xls", ".xlsx", ".xlsm")
SPREADSHEET_TYPES = ("excel", "spreadsheetml", "msexcel")
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
OLE_WORKBOOK = ("Workbook".encode("utf-16-le"), "Book\x00".encode("utf-16-le"))
_SUBJECT_TAGS = re.compile(
    r"^(?:\s*(?:\[[^\]]{0,40}\]|(?:re|fw|fwd|aw|sv|wg|tr|antw)\s*(?:\[\d+\]|\(\d+\))?\s*:))+",
    re.IGNORECASE,
)
# A year written "0002" or "1706" is an export's placeholder (Notes calendar entries),
# which the stdlib would read as 2002: no date.
_PLACEHOLDER_YEAR = re.compile(r"^\s*(?:\w+,\s*)?\d{1,2}\s+\w+\s+0\d{3}\b")
MIN_YEAR = 1970
_SURROGATES = re.compile("[\udc80-\udcff]")
ROW_HEADERS = {"from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references"}
_MSGID = re.compile(r"<([^<>\s]+)>")


@dataclass
class Attachment:
    file_name: str | None
    content_type: str
    data: bytes
    is_spreadsheet: bool
    source_file: str | None = None  # the companion file it was read from (HTML export)
    size: int = -1  # len(data), kept when the bytes are dropped after storing them

    def __post_init__(self):
        self.size = len(self.data)


@dataclass
class Parsed:
    """The row fields of one message (before dedupe) and its attachments."""

    message_id: str | None
    date: datetime | None
    from_addr: str | None
    from_name: str | None
    to_addrs: list[str]
    cc_addrs: list[str]
    subject: str | None
    norm_subject: str
    body: str
    new_text: str
    in_reply_to: str | None
    references: list[str]
    attachments: list[Attachment] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # linked attachment files that are absent

    def fingerprint(self, attachment_shas: list[str]) -> str:
        """sha256 of the normalised headers and body (the dedupe key without Message-ID)."""
        parts = [
            self.from_addr or "",
            ",".join(sorted(self.to_addrs)),
            ",".join(sorted(self.cc_addrs)),
            self.date.isoformat() if self.date else "",
            " ".join((self.subject or "").split()),
            " ".join(self.body.split()),
            ",".join(attachment_shas),
        ]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def parse_message(msg: Message) -> Parsed:
    """The row fields of a message; never raises for a bad header."""
    raw = _raw_headers(msg)
    from_name, from_addr = _first_address(raw.get("from"))
    subject = _decoded(raw.get("subject"))
    body_part = _body_part(msg)
    body = _part_text(body_part) if body_part is not None else ""
    if body_part is not None and body_part.get_content_type() == "text/html":
        body = html_to_text(body)
    return Parsed(
        message_id=_first_id(raw.get("message-id")),
        date=_date(raw.get("date")),
        from_addr=from_addr,
        from_name=from_name,
        to_addrs=_addresses(raw.get("to")),
        cc_addrs=_addresses(raw.get("cc")),
        subject=subject,
        norm_subject=normalise_subject(subject or ""),
        body=body,
        new_text=new_text(body),
        in_reply_to=_first_id(raw.get("in-reply-to")),
        references=_ids(raw.get("references")),
        attachments=list(_attachments(msg, body_part)),
        missing=[str(v) for v in (msg.get_all(MISSING_HEADER) or [])],
    )


def normalise_subject(subject: str) -> str:
    """Subject without Re:/Fw:/Fwd:/[list] prefixes, whitespace collapsed, lower-case."""
    return " ".join(_SUBJECT_TAGS.sub("", subject).split()).lower()


def is_spreadsheet(file_name: str | None, content_type: str, data: bytes) -> bool:
    """A workbook by extension, declared type or content (OLE2 workbook stream, xlsx zip)."""
    if file_name and file_name.strip().lower().endswith(SPREADSHEET_SUFFIXES):
        return True
    if any(t in content_type.lower() for t in SPREADSHEET_TYPES):
        return True
    if data.startswith(OLE_MAGIC):
        return any(name in data for name in OLE_WORKBOOK)
    return data.startswith(b"PK\x03\x04") and b"xl/workbook.xml" in data


# -- headers ---------------------------------------------------------------------------


def _fix_text(value: str) -> str:
    """Header text with raw 8-bit bytes (surrogate escapes) decoded as UTF-8/1252/Latin-1."""
    if not _SURROGATES.search(value):
        return value
    return decode_bytes(value.encode("utf-8", "surrogateescape"), None)


def _raw_headers(msg: Message) -> dict[str, str]:
    """The raw (unparsed) values of the headers a row needs, first occurrence wins.

    Read raw on purpose: ``policy.default``'s structured parse of address headers costs
    more than parsing the whole message, and ``email.utils`` reads the same fields.
    """
    out: dict[str, str] = {}
    for key, raw in msg.raw_items():
        k = key.lower()
        if k in ROW_HEADERS and k not in out:
            out[k] = raw if isinstance(raw, str) else str(raw)
    return out


def _decoded(raw: str | None) -> str | None:
    """An unstructured header's text: RFC 2047 words and 8-bit bytes decoded, unfolded."""
    if raw is None:
        return None
    text = _raw_decoded(raw) if "=?" in raw else raw
    text = " ".join(_fix_text(text).split())
    return text or None


def _raw_decoded(raw: str) -> str:
    try:
        return str(make_header(decode_header(raw)))
    except Exception:
        return raw


def _address_list(raw: str | None) -> list[tuple[str, str]]:
    if not raw:
        return []
    raw = " ".join(raw.split())
    if "@" not in raw and "<" not in raw:  # "From: Susan Bailey", "MAILER-DAEMON", X.400
        parts = re.split(r"[,;]", _fix_text(raw))
        return [_bare(x) for x in parts if x.strip() and not x.strip().endswith(":")]
    try:
        pairs = [(n, a) for n, a in getaddresses([raw]) if n or a]
    except Exception:
        pairs = []
    out = []
    for name, addr in pairs:
        name = _decoded(name) or "" if "=?" in name else _fix_text(name)
        addr = _fix_text(addr)
        if "@" not in addr and " " in addr.strip().strip('"'):  # "From: Susan Bailey": a name
            name, addr = name or addr.strip().strip('"'), ""
        out.append((name, addr))
    return out


def _bare(part: str) -> tuple[str, str]:
    """A list entry without @ or <>: a display name if it has spaces, else an address."""
    part = part.strip().strip('"').strip()
    if _decoded(part) != part:
        part = _decoded(part) or ""
    return (part, "") if " " in part and not part.startswith("/") else ("", part)


def _addresses(raw: str | None) -> list[str]:
    return [a.strip().lower() for _, a in _address_list(raw) if a.strip()]


def _first_address(raw: str | None) -> tuple[str | None, str | None]:
    pairs = _address_list(raw)
    if not pairs:
        return None, None
    display, addr = pairs[0]
    return (" ".join(display.split()) or None), (addr.strip().lower() or None)


def _first_id(value: str | None) -> str | None:
    if not value:
        return None
    m = _MSGID.search(value)
    return m.group(1) if m else (value.strip().strip("<>").split()[0] or None)


def _ids(value: str | None) -> list[str]:
    if not value:
        return []
    found = _MSGID.findall(value)
    return found or [v.strip("<>") for v in value.replace(",", " ").split() if v.strip("<>")]


def _date(raw: str | None) -> datetime | None:
    if not raw or _PLACEHOLDER_YEAR.search(raw):
        return None
    try:
        when = parsedate_to_datetime(" ".join(_fix_text(raw).split()))
    except Exception:
        return None
    if when is None:
        return None
    try:
        when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    except (OverflowError, ValueError):
        return None
    return when if when.year >= MIN_YEAR else None


# -- bodies and attachments -------------------------------------------------------------


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Bytes as text: the declared charset if it works, else UTF-8, Windows-1252, Latin-1."""
    if charset:
        cs = charset.strip().strip('"').lower()
        if cs in ("iso-8859-1", "latin-1", "latin1", "us-ascii", "ascii"):
            cs = "cp1252"  # what mail declared as these almost always is (WHATWG does the same)
        try:
            return data.decode(cs)
        except (LookupError, UnicodeDecodeError):
            pass
    for cs in ("utf-8", "cp1252"):
        try:
            return data.decode(cs)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _part_text(part: Message) -> str:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if data is None:
        payload = part.get_payload()
        return payload if isinstance(payload, str) else ""
    return decode_bytes(data, part.get_content_charset())


def _body_part(msg: Message) -> Message | None:
    if isinstance(msg, EmailMessage):
        try:
            part = msg.get_body(preferencelist=("plain", "html"))
        except Exception:
            part = None
        if part is not None:
            return part
    for part in msg.walk():  # a legacy Message, or a body get_body does not find
        if part.get_content_type() in ("text/plain", "text/html") and not _is_file(part):
            return part
    return None


def _is_file(part: Message) -> bool:
    try:
        return part.get_content_disposition() == "attachment" or bool(part.get_filename())
    except Exception:
        return part.get_content_disposition() == "attachment"


def _filename(part: Message) -> str | None:
    try:
        name = part.get_filename()
    except Exception:
        name = part.get_param("name")
        name = name if isinstance(name, str) else None
    if not name:
        return None
    if "=?" in name:  # RFC 2047 words inside a parameter (not standard, but common)
        name = _raw_decoded(name)
    return " ".join(_fix_text(name).split()) or None


def _attachments(msg: Message, body_part: Message | None):
    for part in msg.walk():
        if part is body_part or part.is_multipart():
            continue
        ctype = part.get_content_type()
        if ctype.startswith("text/") and not _is_file(part):
            continue  # an alternative or additional body, not a file
        try:
            data = part.get_payload(decode=True)
        except Exception:
            data = None
        if data is None:
            payload = part.get_payload()
            data = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
        name = _filename(part)
        source = part.get(SOURCE_HEADER)
        yield Attachment(
            file_name=name,
            content_type=ctype,
            data=data,
            is_spreadsheet=is_spreadsheet(name, ctype, data),
            source_file=str(source) if source else None,
        )
