"""LibreOffice conversions: one file (the judge's recalculation and screenshots) or many
legacy ``.xls`` files per LibreOffice start (ingestion).

Starting headless LibreOffice costs seconds; a mailbox holds hundreds of ``.xls``
attachments. :func:`convert_xls_batch` therefore hands LibreOffice a chunk of files per
start (``soffice --convert-to xlsx --outdir D a.xls b.xls ...``), bounded by a timeout
per chunk. When a chunk fails (a crash, a hang, a non-zero exit) its files are retried
one by one, so one bad file only fails itself. Converted bytes go to the blob store and
are linked to the original's sha256 (``BlobStore.link``): a rerun converts nothing twice.

Inputs are handed to LibreOffice as symlinks named by their sha256, so two attachments
both called ``budget.xls`` cannot overwrite each other's output.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.store import BlobStore, storable_path

SOFFICE_TIMEOUT_S = 120.0
XLSX_FILTER = "xlsx:Calc MS Excel 2007 XML"
CONVERTED_LINK = "xlsx-of-xls"  # BlobStore.link kind: original .xls sha -> converted .xlsx sha
CHUNK_FILES = 16
CHUNK_BASE_S = 30.0  # start-up allowance of one LibreOffice run
PER_FILE_S = 30.0  # conversion allowance of one file within a chunk


class WorkbookError(ValueError):
    """A workbook could not be read; the message names the file and the reason."""


class ConversionError(WorkbookError):
    """LibreOffice could not convert a file; the message names it and the reason."""


def run_soffice(args: list[str], workdir: Path, timeout: float, what: str) -> None:
    """Run headless LibreOffice with a private user profile, bounded by ``timeout``.

    Each call gets its own profile directory: concurrent soffice processes sharing
    the default profile block on its lock or fail. On timeout the whole process group
    is killed so no orphaned soffice.bin keeps a core busy.
    """
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe is None:
        raise ConversionError(f"{what}: LibreOffice (soffice) is not installed")
    profile = workdir / f"lo-profile-{uuid.uuid4().hex}"
    cmd = [exe, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore", *args]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=workdir,
        start_new_session=True,
        env={**os.environ, "HOME": str(workdir)},
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise ConversionError(f"{what}: LibreOffice timed out after {timeout:.0f}s") from exc
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if proc.returncode != 0:
        tail = (err or out).decode(errors="replace")[-500:]
        raise ConversionError(f"{what}: LibreOffice exited with {proc.returncode}: {tail}")


def convert_with_soffice(
    path: Path, out_dir: Path, target: str = "xlsx", timeout: float = SOFFICE_TIMEOUT_S
) -> Path:
    """Convert ``path`` with headless LibreOffice to ``target`` (xlsx, pdf) in ``out_dir``."""
    path = Path(path).resolve()
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    filt = XLSX_FILTER if target == "xlsx" else target
    with tempfile.TemporaryDirectory(prefix="lf-soffice-") as work:
        work_dir = Path(work)
        run_soffice(
            ["--convert-to", filt, "--outdir", str(work_dir), str(path)],
            work_dir,
            timeout,
            str(path),
        )
        produced = work_dir / f"{path.stem}.{target}"
        if not produced.exists():
            raise ConversionError(f"{path}: LibreOffice produced no .{target} file")
        dest = out_dir / produced.name
        shutil.move(produced, dest)
    return dest


def convert_xls(path: Path, out_dir: Path, timeout: float = SOFFICE_TIMEOUT_S) -> Path:
    """Convert a legacy ``.xls`` to ``.xlsx`` (formulas and cached values kept)."""
    return convert_with_soffice(path, out_dir, "xlsx", timeout)


@dataclass
class BatchConversion:
    """What a batch made: converted blob sha by original sha, the reason for each failure,
    and how many LibreOffice starts it took (0 when everything was cached)."""

    converted: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    cached: int = 0
    soffice_runs: int = 0


def _run_chunk(
    chunk: list[tuple[str, Path]], work: Path, timeout: float
) -> tuple[dict[str, Path], str | None]:
    """Convert one chunk in one LibreOffice start: produced files by sha, and the
    chunk's error (None when LibreOffice exited cleanly)."""
    src = work / "in"
    out = work / "out"
    for folder in (src, out):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    names = []
    for sha, path in chunk:
        link = src / f"{sha}.xls"
        link.symlink_to(Path(path).resolve())
        names.append(str(link))
    what = f"{len(chunk)} file(s) from {storable_name(chunk[0][1])}"
    error = None
    try:
        run_soffice(
            ["--convert-to", XLSX_FILTER, "--outdir", str(out), *names], work, timeout, what
        )
    except ConversionError as exc:
        error = str(exc)
    produced = {sha: out / f"{sha}.xlsx" for sha, _ in chunk if (out / f"{sha}.xlsx").exists()}
    return produced, error


def storable_name(path: Path) -> str:
    return storable_path(Path(path).name)


def convert_xls_batch(
    files: Mapping[str, Path],
    blobs: BlobStore,
    *,
    chunk_files: int = CHUNK_FILES,
    per_file_s: float = PER_FILE_S,
    progress: Callable[[str], None] | None = None,
) -> BatchConversion:
    """Convert every ``.xls`` of ``files`` (original sha256 -> local path) to ``.xlsx``.

    Already converted originals (a blob linked under ``CONVERTED_LINK``) are reused.
    The rest go to LibreOffice ``chunk_files`` at a time with a timeout of
    ``CHUNK_BASE_S + per_file_s * len(chunk)``; a chunk that fails is retried file by
    file (timeout ``CHUNK_BASE_S + per_file_s`` each), so a file that crashes or hangs
    LibreOffice fails alone. Every original ends up in ``converted`` or ``failed``.
    """
    result = BatchConversion()
    pending: list[tuple[str, Path]] = []
    for sha, path in files.items():
        done = blobs.linked(CONVERTED_LINK, sha)
        if done is not None:
            result.converted[sha] = done
            result.cached += 1
        else:
            pending.append((sha, Path(path)))
    if not pending:
        return result

    def keep(sha: str, produced: Path) -> None:
        target = blobs.put_file(produced)
        blobs.link(CONVERTED_LINK, sha, target)
        result.converted[sha] = target

    with tempfile.TemporaryDirectory(prefix="lf-xls-batch-") as tmp:
        work = Path(tmp)
        chunks = [pending[i : i + chunk_files] for i in range(0, len(pending), chunk_files)]
        for n, chunk in enumerate(chunks):
            if progress:
                progress(f"converting .xls chunk {n + 1}/{len(chunks)} ({len(chunk)} files)")
            produced, error = _run_chunk(chunk, work, CHUNK_BASE_S + per_file_s * len(chunk))
            result.soffice_runs += 1
            for sha, path in chunk:
                if sha in produced:
                    keep(sha, produced[sha])
                elif error is None or len(chunk) == 1:
                    result.failed[sha] = error or (
                        f"{storable_name(path)}: LibreOffice produced no .xlsx (cannot load it)"
                    )
            retry = [(sha, path) for sha, path in chunk if sha not in produced]
            if error is None or len(chunk) == 1 or not retry:
                continue
            for sha, path in retry:  # the chunk failed: each file on its own
                alone, alone_error = _run_chunk([(sha, path)], work, CHUNK_BASE_S + per_file_s)
                result.soffice_runs += 1
                if sha in alone:
                    keep(sha, alone[sha])
                else:
                    result.failed[sha] = alone_error or (
                        f"{storable_name(path)}: LibreOffice produced no .xlsx (cannot load it)"
                    )
    return result
