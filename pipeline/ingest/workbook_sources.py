"""The workbook corpus: every spreadsheet attachment and every file of a spreadsheet
folder, read into the ``workbooks``, ``sheets`` and ``cells`` tables.

A *source* is one place a workbook was found: an attachment of one message (its bytes
already in the blob store) or one file of a corpus folder. A workbook is its bytes
(``workbook_id`` = sha256): the same file attached to forty messages is one workbook with
forty rows in ``workbook_sources`` (``WORKBOOK_SOURCES_SCHEMA``), which is what version
chains and thread evidence join on.

Mail is hostile input, so each workbook is checked *before* anything parses it, from the
container's own directory: a zip whose declared uncompressed size or compression ratio
exceeds the limits is a ``zip_bomb`` (never inflated); an OLE file holding an
``EncryptedPackage`` (an encrypted .xlsx) or an .xls with a FILEPASS record
(msoffcrypto-tool tells both) is ``encrypted``; a file over the size limit, or a workbook
past the cell limit while reading, is ``oversized``; a zip or OLE container that does not
open is ``corrupt``; anything else that cannot be read (no workbook inside, LibreOffice
cannot convert it, openpyxl cannot parse it) is ``unreadable_workbook``. Every source
ends up ingested or quarantined with its reason (``Intake``, stage ``workbooks``).

Legacy ``.xls`` files are converted in batches (:mod:`pipeline.ingest.xls_conversion`,
cached by sha256 in the blob store); every .xlsx is then read in one pass per sheet
(:mod:`pipeline.ingest.xlsx_reader`), in a process pool when there are many. A workbook
whose formulas cannot be read is kept with its cached values, ``read_mode`` =
``values_only``.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import zipfile
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import msoffcrypto
import olefile
import polars as pl

from pipeline.ingest.workbooks import (
    CELLS_SCHEMA,
    OLE_MAGIC,
    SHEETS_SCHEMA,
    STAGE,
    WORKBOOK_SUFFIXES,
    WORKBOOKS_SCHEMA,
    ZIP_MAGIC,
    WorkbookError,
    WorkbookIngest,
)
from pipeline.ingest.xls_conversion import CHUNK_FILES, PER_FILE_S, convert_xls_batch
from pipeline.ingest.xlsx_reader import Oversized, as_frames, read_columns
from pipeline.store import BlobStore, Intake, storable_path

WORKBOOK_SOURCES_SCHEMA = {
    "workbook_id": pl.String,
    "source_kind": pl.String,  # attachment | corpus
    "source_path": pl.String,  # the corpus file, or "attachment:<message_key>:<file name>"
    "file_name": pl.String,
    "message_key": pl.String,  # null for a corpus file
    "file_date": pl.Datetime("us", "UTC"),  # message date or file mtime; null if unknown
}

REASONS = ("encrypted", "corrupt", "zip_bomb", "oversized", "unreadable_workbook")
SOURCE_KINDS = ("attachment", "corpus")
PARALLEL_FROM = 16  # workbooks to read before a process pool pays for its start


@dataclass(frozen=True)
class WorkbookLimits:
    """What a workbook may declare or hold before it is quarantined."""

    max_file_bytes: int = 256 * 2**20
    max_cells: int = 5_000_000
    max_uncompressed_bytes: int = 1 * 2**30  # sum of the zip directory's declared sizes
    max_ratio: float = 100.0  # uncompressed / compressed, checked above ratio_floor_bytes
    ratio_floor_bytes: int = 16 * 2**20


@dataclass(frozen=True)
class WorkbookSource:
    """One place a workbook was found.

    ``ref`` is the file path for a ``corpus`` source and the blob sha256 of the decoded
    bytes for an ``attachment`` source (the mail stage stored them).
    """

    source_kind: str
    ref: str
    file_name: str
    message_key: str | None = None
    file_date: datetime | None = None

    def __post_init__(self) -> None:
        if self.source_kind not in SOURCE_KINDS:
            raise ValueError(f"source_kind must be one of {SOURCE_KINDS}: {self.source_kind!r}")

    @classmethod
    def corpus(cls, path: str | Path, file_date: datetime | None = None) -> WorkbookSource:
        path = Path(path)
        return cls("corpus", os.fspath(path), path.name, None, file_date)

    @property
    def source_path(self) -> str:
        """How the source is recorded (intake, quarantine, ``workbook_sources``)."""
        if self.source_kind == "corpus":
            return storable_path(self.ref)
        return f"attachment:{self.message_key or ''}:{storable_path(self.file_name)}"


def sources_from_folder(root: str | Path) -> list[WorkbookSource]:
    """Every .xlsx/.xlsm/.xls file under ``root`` (any case), dated by its mtime."""
    out = []
    for path in sorted(Path(root).rglob("*")):
        if path.suffix.lower() in WORKBOOK_SUFFIXES and path.is_file():
            mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
            out.append(WorkbookSource.corpus(path, mtime))
    return out


def sources_from_attachments(
    attachments: pl.DataFrame, messages: pl.DataFrame | None = None
) -> list[WorkbookSource]:
    """The spreadsheet attachments (``is_spreadsheet``) of the mail stage, dated by their
    message (``messages.date``) when ``messages`` is given."""
    sheets = attachments.filter(pl.col("is_spreadsheet"))
    if messages is not None:
        dates = messages.select("message_key", pl.col("date").alias("file_date"))
        sheets = sheets.join(dates.unique("message_key"), on="message_key", how="left")
    else:
        sheets = sheets.with_columns(pl.lit(None, pl.Datetime("us", "UTC")).alias("file_date"))
    return [
        WorkbookSource(
            "attachment", r["sha256"], r["file_name"] or "", r["message_key"], r["file_date"]
        )
        for r in sheets.sort("message_key", "part_index").iter_rows(named=True)
    ]


class Quarantined(Exception):
    """A workbook refused with one of ``REASONS``."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason


def check_container(path: Path, limits: WorkbookLimits) -> str:
    """The workbook's format (``xlsx``, ``xlsm`` or ``xls``) after the safety checks, which
    read only the container's header and directory; raise :class:`Quarantined`."""
    name = storable_path(path)
    size = path.stat().st_size
    if size > limits.max_file_bytes:
        raise Quarantined("oversized", f"{name}: {size} bytes > limit {limits.max_file_bytes}")
    if sniff_container(path) == "zip":
        _check_zip(path, name, limits)
        return "xlsm" if path.suffix.lower() == ".xlsm" else "xlsx"
    _check_ole(path, name)
    return "xls"


def sniff_container(path: Path, name: str | None = None) -> str:
    """``zip`` or ``ole`` from the first 8 bytes (the bytes decide, not the name: mail
    attachments named .xls are sometimes HTML); else raise ``unreadable_workbook``."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(ZIP_MAGIC):
        return "zip"
    if head == OLE_MAGIC:
        return "ole"
    raise Quarantined(
        "unreadable_workbook",
        f"{name or storable_path(path)}: not a workbook (neither zip nor OLE container: {head!r})",
    )


def _check_zip(path: Path, name: str, limits: WorkbookLimits) -> None:
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise Quarantined("corrupt", f"{name}: broken zip container: {exc}") from exc
    declared = sum(i.file_size for i in infos)
    packed = sum(i.compress_size for i in infos) or 1
    if declared > limits.max_uncompressed_bytes:
        raise Quarantined(
            "zip_bomb",
            f"{name}: declares {declared} uncompressed bytes "
            f"> limit {limits.max_uncompressed_bytes}",
        )
    if declared > limits.ratio_floor_bytes and declared / packed > limits.max_ratio:
        raise Quarantined(
            "zip_bomb",
            f"{name}: compression ratio {declared / packed:.0f} > limit {limits.max_ratio:.0f}",
        )
    names = {i.filename for i in infos}
    if "xl/workbook.xml" not in names and not any(n.endswith("workbook.xml") for n in names):
        raise Quarantined("unreadable_workbook", f"{name}: a zip with no workbook part")


def _check_ole(path: Path, name: str) -> None:
    try:
        with open(path, "rb") as fh:
            ole = olefile.OleFileIO(fh)
            streams = {"/".join(s) for s in ole.listdir()}
            ole.close()
    except Exception as exc:  # olefile raises OSError and others for a broken container
        raise Quarantined("corrupt", f"{name}: broken OLE container: {exc}") from exc
    if "EncryptedPackage" in streams:
        raise Quarantined("encrypted", f"{name}: an encrypted OOXML package (EncryptedPackage)")
    if not {"Workbook", "Book"} & streams:
        raise Quarantined("unreadable_workbook", f"{name}: an OLE file with no workbook stream")
    try:
        with open(path, "rb") as fh:
            encrypted = msoffcrypto.OfficeFile(fh).is_encrypted()
    except Exception as exc:  # a workbook stream msoffcrypto cannot walk
        raise Quarantined("corrupt", f"{name}: unreadable BIFF workbook stream: {exc}") from exc
    if encrypted:
        raise Quarantined("encrypted", f"{name}: a password-protected .xls (FILEPASS record)")


@dataclass
class _Workbook:
    """One distinct workbook (sha256) and the sources it was found at."""

    sha: str
    path: Path  # a local copy of the original bytes
    sources: list[WorkbookSource] = field(default_factory=list)
    fmt: str | None = None
    converted: str | None = None  # blob sha of the .xlsx made from an .xls
    read_path: Path | None = None
    frames: dict | None = None


def _read_one(args: tuple[str, str, int]) -> dict:
    """Process-pool task: read one .xlsx; a refusal comes back as data, not an exception."""
    path, sha, max_cells = args
    try:
        return read_columns(path, sha, max_cells)
    except Oversized as exc:
        return {"error": ("oversized", str(exc))}
    except WorkbookError as exc:
        return {"error": ("unreadable_workbook", str(exc))}
    except Exception as exc:  # noqa: BLE001 - a parser crash quarantines one workbook
        return {"error": ("unreadable_workbook", f"{path}: {type(exc).__name__}: {exc}")}


def _read_all(books: list[_Workbook], limits: WorkbookLimits, workers: int | None) -> None:
    tasks = [(str(b.read_path), b.sha, limits.max_cells) for b in books]
    cpus = os.cpu_count() or 1
    # a spawned worker costs its imports (~1 s): worth it with cores to spare
    n = workers if workers is not None else (min(cpus, 4) if cpus > 2 else 1)
    if n > 1 and len(tasks) >= PARALLEL_FROM:
        # spawned, as every pool of the pipeline: a fork of a process with threads
        # (Dagster's, polars') can deadlock the child on a lock held at the fork
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=n, mp_context=ctx) as pool:
            results = list(pool.map(_read_one, tasks, chunksize=max(1, len(tasks) // (4 * n))))
    else:
        results = [_read_one(t) for t in tasks]
    for book, result in zip(books, results, strict=True):
        book.frames = result if "error" in result else as_frames(result)


def _local_copy(item: WorkbookSource, blobs: BlobStore) -> Path:
    if item.source_kind == "corpus":
        return Path(item.ref)
    return Path(blobs.local_path(item.ref))


def _sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def ingest_workbook_sources(
    items: Iterable[WorkbookSource],
    blobs: BlobStore,
    *,
    limits: WorkbookLimits | None = None,
    workers: int | None = None,
    chunk_files: int = CHUNK_FILES,
    per_file_s: float = PER_FILE_S,
    progress: Callable[[str], None] | None = None,
) -> WorkbookIngest:
    """Read every source's workbook once; quarantine what fails with the reason.

    Returns ``workbooks`` (one row per distinct workbook, its first source naming it),
    ``sheets``, ``cells``, ``sources`` (``WORKBOOK_SOURCES_SCHEMA``, one row per ingested
    source) and the ``Intake`` (every source ingested or quarantined). Corpus files are
    stored in the blob store (attachments already are), so are converted .xlsx files.
    ``workers`` sizes the reading pool (default: up to 4 processes where there are more
    than 2 CPUs, else 1; 1 reads in this process).
    """
    limits = limits or WorkbookLimits()
    intake = Intake(STAGE)
    books: dict[str, _Workbook] = {}
    for item in items:
        where = item.source_path
        try:
            path = _local_copy(item, blobs)
            if not path.is_file():
                raise Quarantined("unreadable_workbook", f"{where}: no such file")
            size = path.stat().st_size
            if size > limits.max_file_bytes:  # refused before its bytes are hashed
                raise Quarantined(
                    "oversized", f"{where}: {size} bytes > limit {limits.max_file_bytes}"
                )
            sniff_container(path, where)  # the header first: a non-workbook is not hashed
            sha = item.ref if item.source_kind == "attachment" else _sha256(path)
        except Quarantined as q:
            intake.quarantine(where, q.reason, str(q))
            continue
        except OSError as exc:
            intake.quarantine(where, "unreadable_workbook", f"{where}: {exc}")
            continue
        books.setdefault(sha, _Workbook(sha, path)).sources.append(item)

    refused: dict[str, tuple[str, str]] = {}
    for book in books.values():
        try:
            book.fmt = check_container(book.path, limits)
        except Quarantined as q:
            refused[book.sha] = (q.reason, str(q))
        except OSError as exc:
            refused[book.sha] = ("unreadable_workbook", f"{storable_path(book.path)}: {exc}")

    legacy = {s: b.path for s, b in books.items() if s not in refused and b.fmt == "xls"}
    if legacy:
        batch = convert_xls_batch(
            legacy, blobs, chunk_files=chunk_files, per_file_s=per_file_s, progress=progress
        )
        for sha, error in batch.failed.items():
            refused[sha] = ("unreadable_workbook", error)
        for sha, converted in batch.converted.items():
            books[sha].converted = converted
            books[sha].read_path = Path(blobs.local_path(converted))
    to_read = [b for s, b in books.items() if s not in refused]
    for book in to_read:
        book.read_path = book.read_path or book.path
    if progress:
        progress(f"reading {len(to_read)} workbooks")
    _read_all(to_read, limits, workers)
    for book in to_read:
        if "error" in book.frames:
            refused[book.sha] = book.frames["error"]

    frames: dict[str, list[pl.DataFrame]] = {"workbooks": [], "sheets": [], "cells": []}
    source_rows = []
    for sha, book in books.items():
        if sha not in refused:
            try:
                if book.sources[0].source_kind == "corpus":
                    blobs.put_file(book.path, sha)  # streamed, hash re-checked
            except (OSError, ValueError) as exc:  # changed or vanished since it was read
                refused[sha] = ("unreadable_workbook", f"{storable_path(book.path)}: {exc}")
        if sha in refused:
            reason, detail = refused[sha]
            for item in book.sources:
                intake.quarantine(item.source_path, reason, detail)
            continue
        first = book.sources[0]
        got = book.frames
        frames["workbooks"].append(
            pl.DataFrame(
                [
                    {
                        "workbook_id": sha,
                        "source_path": first.source_path,
                        "file_name": storable_path(first.file_name),
                        "source_format": book.fmt,
                        "converted_sha256": book.converted,
                        "n_sheets": got["sheets"].height,
                        "n_cells": got["n_cells"],
                        "n_formulas": got["n_formulas"],
                        "read_mode": got["read_mode"],
                        "read_note": got["read_note"],
                    }
                ],
                schema=WORKBOOKS_SCHEMA,
            )
        )
        frames["sheets"].append(got["sheets"])
        frames["cells"].append(got["cells"])
        for item in book.sources:
            intake.ingest(item.source_path)
            source_rows.append(
                {
                    "workbook_id": sha,
                    "source_kind": item.source_kind,
                    "source_path": item.source_path,
                    "file_name": storable_path(item.file_name),
                    "message_key": item.message_key,
                    "file_date": item.file_date,
                }
            )
    schemas = {"workbooks": WORKBOOKS_SCHEMA, "sheets": SHEETS_SCHEMA, "cells": CELLS_SCHEMA}
    out = {
        name: pl.concat(parts) if parts else pl.DataFrame(schema=schemas[name])
        for name, parts in frames.items()
    }
    return WorkbookIngest(
        out["workbooks"],
        out["sheets"],
        out["cells"],
        intake,
        pl.DataFrame(source_rows, schema=WORKBOOK_SOURCES_SCHEMA),
    )
