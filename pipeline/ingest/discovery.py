"""Finding and reading input files without trusting them.

``discover_inputs`` walks a source and returns every entry named ``*.pdf`` (any case),
whatever it is: a regular file, a link to one, or something that cannot be read as a
file (a symlink loop, a dangling link, a link to a device, a FIFO, a socket, a
directory), and every folder it could not list. Each comes with its name as it can be
stored (``storable_path``: a name that is not UTF-8 is escaped) and, for what cannot be
read, the reason, so a stage can account for every entry: discovered = ingested +
quarantined.

``survey_file`` reads a regular file the bounded way: a stat (type, size) and the first
kilobyte (magic) before anything else, then one streamed pass that hashes the bytes and
finds the last ``%%EOF``; memory stays at one chunk whatever the file's size. Nothing is
opened by a parser here.

``best_name`` chooses, among several names of identical bytes, the one a document should
carry: the name with the volume date, the earliest-dated and most specific one.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pipeline.store import storable_path

SUFFIX = ".pdf"
HEADER_BYTES = 1024  # the PDF header may sit anywhere in the first 1024 bytes (7.5.2)
CHUNK_BYTES = 1 << 20
MAX_FILE_BYTES = 1 << 30  # 1 GiB: a scanned volume of a few hundred pages is far below
EOF_MARKER = b"%%EOF"
# What only a PDF body holds: an object header, a cross-reference section or a trailer.
# Found after the last %%EOF it means an incremental update lost its end (truncated);
# anything else there is padding (NULs, blanks, a ^Z, junk a transfer appended).
PDF_STRUCTURE = re.compile(
    rb"(?<![0-9])[0-9]{1,10}[\x00\t\n\x0c\r ]{1,8}[0-9]{1,5}[\x00\t\n\x0c\r ]{1,8}obj(?![A-Za-z])"
    rb"|(?<![A-Za-z])(?:xref|trailer|startxref|endobj|endstream)(?![A-Za-z])"
)
# Substrings one of which every PDF_STRUCTURE match holds (a fast filter before the regex).
_STRUCTURE_WORDS = (b"obj", b"xref", b"trailer", b"endstream")
_OVERLAP = 64  # bytes carried between chunks so a marker cut by a chunk edge is found


class Rejected(Exception):
    """A discovered entry that cannot be ingested; ``reason`` names the file."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Found:
    """One discovered entry: ``path`` as the OS names it, ``name`` as it is stored.

    ``problem`` is why the entry cannot be read as a file (its quarantine reason,
    without the name), None for a regular file or a link to one.
    """

    path: Path
    name: str
    problem: str | None = None

    @property
    def file_name(self) -> str:
        return storable_path(self.path.name)

    def reason(self, text: str) -> str:
        return f"{self.file_name}: {text}"


@dataclass(frozen=True)
class Survey:
    """What one bounded pass over a regular file found."""

    sha256: str
    size: int


def _list_dir(folder: Path) -> list[tuple[str, bool]]:
    """(entry name, is a real directory) for every entry of a folder (no link followed)."""
    with os.scandir(folder) as it:
        return [(e.name, e.is_dir(follow_symlinks=False)) for e in it]


def _file_type(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def entry_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read as a regular file (None when it can): from a stat only."""
    try:
        own = os.lstat(path)
    except OSError as exc:
        return f"cannot stat ({exc.strerror})"
    if not stat.S_ISLNK(own.st_mode):
        kind = _file_type(own.st_mode)
        return None if kind == "regular file" else f"not a regular file: a {kind}"
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    shown = storable_path(target)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"symlink loop (-> {shown} never reaches a file)"
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return f"dangling symlink (-> {shown} does not exist)"
        return f"unreadable symlink (-> {shown}: {exc.strerror})"
    kind = _file_type(mode)
    return None if kind == "regular file" else f"symlink to a {kind} (-> {shown})"


def _is_input(name: str) -> bool:
    return name.lower().endswith(SUFFIX)


def discover_inputs(
    source: Path, list_dir: Callable[[Path], list[tuple[str, bool]]] | None = None
) -> list[Found]:
    """Every ``*.pdf`` entry and every unlistable folder under ``source``, sorted as paths.

    ``source`` may be a folder (walked; links to folders are not followed, so a link
    cycle cannot trap the walk) or a single entry, which is taken whatever its name.
    """
    list_dir = list_dir or _list_dir
    source = Path(source)
    if not os.path.lexists(source):
        return [Found(source, storable_path(source), "source path does not exist")]
    if not source.is_dir():
        problem = entry_problem(source)
        if problem and problem.startswith("dangling symlink"):
            problem = f"source path does not exist ({problem})"
        return [Found(source, storable_path(source), problem)]
    found: list[Found] = []
    folders = [source]
    while folders:
        folder = folders.pop()
        try:
            entries = list_dir(folder)
        except OSError as exc:
            problem = f"unreadable folder ({exc.strerror or exc}): its entries cannot be listed"
            found.append(Found(folder, storable_path(folder), problem))
            continue
        for name, is_dir in entries:
            path = folder / name
            if is_dir:
                folders.append(path)
                if _is_input(name):
                    found.append(
                        Found(path, storable_path(path), "not a regular file: a directory")
                    )
            elif _is_input(name):
                found.append(Found(path, storable_path(path), entry_problem(path)))
    return sorted(found, key=lambda f: f.path)


def survey_file(found: Found, max_bytes: int = MAX_FILE_BYTES) -> Survey:
    """Stat, header, then one streamed pass (sha256, last ``%%EOF``); raise ``Rejected``.

    The file is opened without blocking (a FIFO swapped in after discovery cannot hang
    the stage) and checked from its descriptor: regular, not empty, not over
    ``max_bytes``, a ``%PDF-`` header in the first kilobyte; only then are its bytes
    streamed. A file without ``%%EOF``, or with PDF objects after its last ``%%EOF``
    (an incremental update cut short), is truncated; bytes after the last ``%%EOF``
    that hold no PDF syntax are padding and do not matter.
    """
    try:
        fd = os.open(found.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Rejected(found.reason("symlink loop"), str(exc)) from exc
        raise Rejected(found.reason(f"unreadable ({exc.strerror})"), str(exc)) from exc
    with os.fdopen(fd, "rb", buffering=0) as fh:
        info = os.fstat(fd)
        kind = _file_type(info.st_mode)
        if kind != "regular file":
            raise Rejected(found.reason(f"not a regular file: a {kind}"))
        size = info.st_size
        if size == 0:
            raise Rejected(found.reason("zero-byte file"))
        if size > max_bytes:
            raise Rejected(
                found.reason(
                    f"file too large: {size / 2**20:.1f} MiB, {size:,} bytes "
                    f"(limit {max_bytes:,} bytes); not read"
                ),
                f"{size} bytes",
            )
        try:
            head = _read_upto(fh, HEADER_BYTES)
        except OSError as exc:
            raise Rejected(found.reason(f"unreadable ({exc.strerror})"), str(exc)) from exc
        if b"%PDF-" not in head:
            raise Rejected(
                found.reason("not a PDF (no %PDF- header in the first 1024 bytes)"),
                f"first bytes {head[:16]!r}",
            )
        digest = hashlib.sha256(head)
        total = len(head)
        last_eof = head.rfind(EOF_MARKER)
        carry = head[-_OVERLAP:]
        try:
            while chunk := fh.read(CHUNK_BYTES):
                digest.update(chunk)
                window = carry + chunk
                at = window.rfind(EOF_MARKER)
                if at >= 0:
                    last_eof = max(last_eof, total - len(carry) + at)
                total += len(chunk)
                if total > max_bytes:
                    raise Rejected(found.reason("file grew past the size limit while read"))
                carry = window[-_OVERLAP:]
            if total != size:
                raise Rejected(
                    found.reason("file changed while it was read"), f"{size} -> {total} bytes"
                )
            if last_eof < 0:
                raise Rejected(
                    found.reason("truncated or corrupt PDF (no %%EOF trailer)"), f"{size} bytes"
                )
            tail_at = _structure_after(fd, last_eof + len(EOF_MARKER), size)
        except OSError as exc:
            raise Rejected(found.reason(f"unreadable ({exc.strerror})"), str(exc)) from exc
        if tail_at is not None:
            raise Rejected(
                found.reason("truncated PDF (an update after its last %%EOF is cut short)"),
                f"PDF syntax at byte {tail_at} after the last %%EOF at byte {last_eof}",
            )
    return Survey(digest.hexdigest(), size)


def _read_upto(fh, n: int) -> bytes:
    out = b""
    while len(out) < n and (part := fh.read(n - len(out))):
        out += part
    return out


def _structure_after(fd: int, start: int, end: int) -> int | None:
    """Offset of the first PDF object, xref or trailer in ``[start, end)``, else None."""
    offset, carry = start, b""
    while offset < end:
        chunk = os.pread(fd, min(CHUNK_BYTES, end - offset), offset)
        if not chunk:
            break
        window = carry + chunk
        match = (
            PDF_STRUCTURE.search(window)
            if any(word in window for word in _STRUCTURE_WORDS)
            else None
        )
        if match:
            return offset - len(carry) + match.start()
        offset += len(chunk)
        carry = window[-_OVERLAP:]
    return None


def copy_verified(path: Path, dest: Path, sha256: str) -> None:
    """Stream ``path`` to ``dest`` and check it still hashes to ``sha256``."""
    digest = hashlib.sha256()
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    with os.fdopen(os.open(path, flags), "rb", buffering=0) as src, open(dest, "wb") as out:
        if not stat.S_ISREG(os.fstat(src.fileno()).st_mode):
            raise OSError(errno.EINVAL, "no longer a regular file")
        while chunk := src.read(CHUNK_BYTES):
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != sha256:
        raise ValueError("the file changed between its survey and its copy")


# --- naming duplicates ---------------------------------------------------------------

VOLUME_PATTERN = re.compile(r"(?<!\d)(1[6-9]\d\d|20\d\d)[_-](0[1-9]|1[0-2])(?!\d)")
YEAR_PATTERN = re.compile(r"(?<!\d)(1[6-9]\d\d|20\d\d)(?!\d)")
# Words and marks that say a name is a copy of another file, not the volume's own name.
COPY_WORDS = frozenset(
    {"copy", "copie", "kopie", "duplicate", "dup", "backup", "bak", "old", "tmp", "temp"}
)
COPY_MARK = re.compile(r"\(\d+\)\s*$|~$|\.(bak|tmp|old)$", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+|\d+")


def parse_volume(file_name: str) -> str | None:
    """``treasury_bulletin_1939_01.pdf`` -> ``"1939-01"``; None when the name has no date."""
    match = VOLUME_PATTERN.search(Path(file_name).stem)
    return f"{match.group(1)}-{match.group(2)}" if match else None


def name_rank(path: str) -> tuple:
    """Sort key of a candidate name (smaller is better); see ``best_name``."""
    stem = Path(path).stem
    volume = parse_volume(stem)
    year = YEAR_PATTERN.search(stem)
    if volume:
        dated = (0, volume)
    elif year:
        dated = (1, year.group(1))
    else:
        dated = (2, "")
    words = [w.lower() for w in _WORD.findall(stem)]
    copy = bool(COPY_MARK.search(stem)) or any(w in COPY_WORDS for w in words)
    specific = sum(w not in COPY_WORDS for w in words)
    escaped = storable_path(path) != path
    return (*dated, copy, -specific, escaped, len(Path(path).parts), os.fsencode(path))


def best_name(paths: Iterable[str]) -> str:
    """The name identical bytes should carry, among several.

    The name that carries the volume date (year and month) wins over one that carries a
    year only, which wins over an undated name; among dated names the earliest date (a
    later date on the same bytes is a re-filing, not the volume); then a name that is not
    marked as a copy ('Copy of ...', '... (2)', '..._copy', '~'); then the most specific
    name (most words and numbers, e.g. ``treasury_bulletin_1950_03`` over ``1950_03``);
    then a UTF-8 name over an escaped one, a shallower path, and finally the path itself,
    so the choice never depends on discovery order.
    """
    return min(paths, key=name_rank)
