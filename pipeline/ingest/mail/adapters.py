"""Mailbox formats: one small interface (:class:`MailAdapter`) and the built-in adapters.

A researcher points LedgerForge at *a folder*; what is inside varies: a CMU-style maildir
(``custodian/folder/1.``), ``.eml`` trees, mbox files, or an export of some web-mail
tool. Each format is an adapter with two methods:

``claim(root, files)``
    Look at the not-yet-claimed files under ``root`` (sorted paths) and say which are
    yours: the messages (:class:`RawItem`, one per message; an mbox file gives many),
    the files you reject with a reason (:class:`Rejected`, e.g. a web-mail UI page),
    and companion files that belong to messages (attachment files stored beside an
    HTML page). Sniff by name where the format fixes names, by the first bytes
    (:func:`read_head`) otherwise; never parse every message here (that is ``read``'s
    job, run in worker processes).
``read(item)``
    The message as a stdlib :class:`email.message.EmailMessage` (``policy.default``),
    or :class:`MailReadError` with a short reason. Everything after this (headers,
    bodies, attachments, new text, dedupe) is format-independent.

Adapters are tried in order (:data:`DEFAULT_ADAPTERS`); files no adapter claims are
quarantined as ``unknown_format``. A new format is a new module with one class; see
:mod:`pipeline.ingest.mail.html_export` for a worked example. Adapters and items are
pickled to worker processes, so define adapters at module level.
"""

from __future__ import annotations

import email.parser
import email.policy
import mailbox
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable

from pipeline.store import storable_path

HEAD_BYTES = 4096
MAX_MESSAGE_BYTES = 200 << 20  # one message file larger than this is not mail
# Headers an adapter may put on the message it builds: the file an attachment part was
# read from, and an attachment link whose file is absent (see html_export). Removed
# from messages read from files, so no mail can claim them.
SOURCE_HEADER = "X-LedgerForge-Source"
MISSING_HEADER = "X-LedgerForge-Missing"
# Outlook / Notes / CMU folder names: a root whose children include one is a custodian.
MAIL_FOLDER_NAMES = {
    "inbox", "sent", "sent items", "sent_items", "sent mail", "_sent_mail", "sent_mail",
    "deleted items", "deleted_items", "drafts", "all documents", "all_documents",
    "calendar", "contacts", "notes inbox", "notes_inbox", "discussion_threads", "outbox",
    "archive", "junk", "junk e-mail", "trash",
}  # fmt: skip
CMU_NAME = re.compile(r"^\d+\.?$")  # CMU maildir message files: "1.", "2.", ...
EML_SUFFIXES = {".eml"}
MBOX_SUFFIXES = {".mbox", ".mbx"}
HEADER_LINE = re.compile(rb"^[!-9;-~]{1,76}:")  # an RFC 5322 field name and its colon


class _MemoHeaders(HeaderRegistry):
    """The default header registry, remembering parsed headers by (name, raw value).

    ``policy.default`` re-parses a header on every access (``get_content_type`` alone
    parses Content-Type several times per message) and builds a new class per call;
    the same few Content-Type values recur across a mailbox, so a bounded memo makes
    parsing several times cheaper without changing any result (header objects are
    immutable strings).
    """

    MAX = 4096

    def __init__(self):
        super().__init__()
        self._memo: dict[tuple[str, str], object] = {}

    def __call__(self, name, value):
        key = (name, value)
        header = self._memo.get(key)
        if header is None:
            if len(self._memo) >= self.MAX:
                self._memo.clear()
            header = self._memo[key] = super().__call__(name, value)
        return header


# policy.default with the memoising registry: the policy every message is parsed with
MAIL_POLICY = email.policy.default.clone(header_factory=_MemoHeaders())
_PARSER = email.parser.BytesParser(policy=MAIL_POLICY)


class MailReadError(Exception):
    """A message file that cannot be ingested; ``reason`` is a short quarantine reason."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class RawItem:
    """One message, not yet read: which adapter reads it and where it sits."""

    adapter: MailAdapter
    file: str  # the file holding the message
    path: str  # the source path recorded (the file, or "file#index" inside an mbox)
    custodian: str
    folder: str
    index: int | None = None  # position inside a multi-message file

    def read(self) -> EmailMessage:
        return self.adapter.read(self)


@dataclass(frozen=True)
class Rejected:
    """A file an adapter recognises but will not ingest (quarantined with the reason)."""

    file: str  # os.fspath of the file
    reason: str
    detail: str = ""

    @property
    def path(self) -> str:
        return storable_path(self.file)


@dataclass
class Claim:
    """What an adapter took from the files it was shown."""

    items: list[RawItem] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    companions: list[str] = field(default_factory=list)  # files read as parts of items

    def consumed(self) -> set[str]:
        return {i.file for i in self.items} | {r.file for r in self.rejected} | set(self.companions)


@runtime_checkable
class MailAdapter(Protocol):
    """A mailbox format. See the module docstring."""

    name: str

    def claim(self, root: Path, files: Sequence[Path]) -> Claim: ...

    def read(self, item: RawItem) -> EmailMessage: ...


def read_head(path: str | Path, n: int = HEAD_BYTES) -> bytes:
    """The first ``n`` bytes of a file (b"" if it cannot be opened)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError:
        return b""


def looks_like_headers(head: bytes) -> bool:
    """Whether bytes start like an RFC 5322 message (a header field, or an mbox From_ line)."""
    if b"\x00" in head[:1024]:
        return False
    line = head.lstrip(b"\r\n\t ").split(b"\n", 1)[0]
    return line.startswith(b"From ") or bool(HEADER_LINE.match(line))


def mailbox_location(root: Path, file: Path) -> tuple[str, str]:
    """(custodian, folder) of a file under ``root``.

    A root whose children include a mail folder name (Inbox, Sent Items, ...) is one
    custodian's mailbox (custodian = the root's name); otherwise the root holds
    custodians (custodian = the first path component, as in the CMU layout).
    """
    rel = file.relative_to(root).parts[:-1]
    if _is_custodian_root(root) or not rel:
        return root.name, "/".join(rel)
    return rel[0], "/".join(rel[1:])


@lru_cache(maxsize=256)
def _is_custodian_root(root: Path) -> bool:
    try:
        return any(e.is_dir() and e.name.lower() in MAIL_FOLDER_NAMES for e in os.scandir(root))
    except OSError:
        return False


def parse_message_bytes(data: bytes, where: str) -> EmailMessage:
    """Bytes of one RFC 5322 message parsed with ``policy.default``, or MailReadError."""
    if not data.strip():
        raise MailReadError("empty_file", f"{where}: no bytes (or only whitespace)")
    if not looks_like_headers(data[:HEAD_BYTES]):
        raise MailReadError("not_a_message", f"{where}: does not start with a header field")
    msg = _PARSER.parsebytes(data)
    if not msg.keys():
        raise MailReadError("no_headers", f"{where}: no header field could be parsed")
    for part in msg.walk():
        if SOURCE_HEADER in part or MISSING_HEADER in part:
            del part[SOURCE_HEADER], part[MISSING_HEADER]
    return msg


class Rfc822Files:
    """One message per file: CMU maildir files (``1.``), ``.eml`` files, and any file that
    starts like a message (sniffed by its first bytes)."""

    name = "rfc822"

    def claim(self, root: Path, files: Sequence[Path]) -> Claim:
        claim = Claim()
        for f in files:
            by_name = CMU_NAME.match(f.name) or f.suffix.lower() in EML_SUFFIXES
            if by_name or looks_like_headers(read_head(f)):
                custodian, folder = mailbox_location(root, f)
                p = storable_path(f)
                claim.items.append(RawItem(self, os.fspath(f), p, custodian, folder))
        return claim

    def read(self, item: RawItem) -> EmailMessage:
        try:
            with open(item.file, "rb") as fh:
                data = fh.read(MAX_MESSAGE_BYTES + 1)
            if len(data) > MAX_MESSAGE_BYTES:
                raise MailReadError(
                    "oversized", f"{item.path}: over {MAX_MESSAGE_BYTES >> 20} MiB for one message"
                )
        except OSError as exc:
            raise MailReadError("unreadable_file", f"{item.path}: {exc}") from exc
        return parse_message_bytes(data, item.path)


class MboxFiles:
    """Mbox files (stdlib :mod:`mailbox`): ``*.mbox``/``*.mbx`` or files starting with a
    ``From `` line; each message is an item ``file#index``; the folder is the file's stem."""

    name = "mbox"

    def claim(self, root: Path, files: Sequence[Path]) -> Claim:
        claim = Claim()
        for f in files:
            if CMU_NAME.match(f.name) or f.suffix.lower() in EML_SUFFIXES:
                continue  # a single message that happens to start with a From_ line
            if f.suffix.lower() not in MBOX_SUFFIXES and not read_head(f).startswith(b"From "):
                continue
            p = storable_path(f)
            try:
                n = len(_open_mbox(os.fspath(f)))
            except Exception as exc:  # a truncated or unreadable mbox
                claim.rejected.append(Rejected(os.fspath(f), "unreadable_mbox", f"{p}: {exc!r}"))
                continue
            if n == 0:
                claim.rejected.append(Rejected(os.fspath(f), "empty_mbox", f"{p}: no message"))
                continue
            custodian, folder = mailbox_location(root, f)
            folder = "/".join(x for x in (folder, f.stem) if x)
            for i in range(n):
                claim.items.append(RawItem(self, os.fspath(f), f"{p}#{i}", custodian, folder, i))
        return claim

    def read(self, item: RawItem) -> EmailMessage:
        box = _open_mbox(item.file)
        try:
            data = box.get_bytes(box.keys()[item.index])
        except Exception as exc:
            raise MailReadError("unreadable_mbox_message", f"{item.path}: {exc!r}") from exc
        return parse_message_bytes(data, item.path)


@lru_cache(maxsize=4)
def _open_mbox(path: str) -> mailbox.mbox:
    """An mbox with its table of contents built once per process."""
    box = mailbox.mbox(path, create=False)
    box.keys()
    return box


def default_adapters() -> list[MailAdapter]:
    """The built-in adapters in the order they are tried (the specific ones first)."""
    from pipeline.ingest.mail.html_export import HtmlExport

    return [HtmlExport(), MboxFiles(), Rfc822Files()]


def discover(
    root: Path, adapters: Iterable[MailAdapter]
) -> tuple[list[RawItem], list[Rejected], list[str]]:
    """Every file under ``root`` claimed by an adapter or rejected as ``unknown_format``.

    Returns (items, rejected, companion files). Directories are walked without
    following links; hidden files count like any other (nothing is skipped silently).
    """
    _is_custodian_root.cache_clear()  # folders may have changed since the last run
    if not root.is_dir():
        p = storable_path(root)
        return [], [Rejected(os.fspath(root), "missing_source", f"{p}: not a folder")], []
    remaining = sorted(Path(d, name) for d, _dirs, names in os.walk(root) for name in names)
    items: list[RawItem] = []
    rejected: list[Rejected] = []
    companions: list[str] = []
    for adapter in adapters:
        claim = adapter.claim(root, remaining)
        items += claim.items
        rejected += claim.rejected
        companions += claim.companions
        taken = claim.consumed()
        remaining = [f for f in remaining if os.fspath(f) not in taken]
    for f in remaining:
        p = storable_path(f)
        reason = "empty_file" if _size(f) == 0 else "unknown_format"
        rejected.append(Rejected(os.fspath(f), reason, f"{p}: no mail adapter recognises it"))
    return items, rejected, companions


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1
