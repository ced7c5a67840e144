"""Scanned archives: the ``documents`` and ``pages`` stages.

``documents``: every ``*.pdf`` entry under the configured sources (whatever its name
and whatever it is: a file, a link, a FIFO, a folder) and every folder that cannot be
listed is either ingested (a row, the PDF bytes in the blob store) or quarantined with a
reason that names it, so ``discovered = ingested + quarantined`` holds for the stage.
Reading is bounded (``pipeline.ingest.discovery``): a stat and the header first, then
one streamed pass; structural checks (``pipeline.ingest.pdf_checks``) run before any
page is rendered: a hostile or broken file costs a header read, not a 4 GB pixmap.

``pages``: each page is rendered to a grayscale PNG (blob store), measured (effective
DPI, text layer, blur) and tagged clear / blurry / very_blurry. Rendering is keyed by
the PDF's sha256 and the render DPI and cached under ``<data>/cache/pages`` so a rerun
or a new volume does not re-render the volumes already seen.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

import numpy as np
import polars as pl
import pymupdf
from PIL import Image
from scipy import ndimage

from pipeline.ingest import discovery
from pipeline.ingest.discovery import (
    MAX_FILE_BYTES,
    VOLUME_PATTERN,
    Found,
    Rejected,
    best_name,
    copy_verified,
    discover_inputs,
    parse_volume,
    survey_file,
)
from pipeline.ingest.pdf_checks import (
    MAX_IMAGE_PIXELS,
    MAX_PAGE_INCHES,
    MAX_RENDER_PIXELS,
    PdfCheck,
    PdfInspector,
    check_page_size,
    text_layer_chars,
)
from pipeline.ingest.schemas import DOCUMENTS_SCHEMA, PAGES_SCHEMA
from pipeline.progress import StageProgress
from pipeline.store import BlobStore, Intake, Warehouse

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_IMAGE_PIXELS",
    "MAX_PAGE_INCHES",
    "MAX_RENDER_PIXELS",
    "VOLUME_PATTERN",
    "IngestResult",
    "Rejected",
    "best_name",
    "build_pages",
    "check_page_size",
    "discover_inputs",
    "discover_pdfs",
    "ingest_documents",
    "parse_volume",
    "text_layer_chars",
]

TEXT_LAYER_POLICIES = ("auto", "ignore", "require")
# How folders are listed (a test replaces it to make a folder unreadable when run as root).
_list_dir = discovery._list_dir

# An image covering at least this share of the page makes it a scanned page: its
# text layer, if any, is an archive's OCR laid under the image and is not trusted.
SCANNED_IMAGE_COVERAGE = 0.5

# Blur score: see ``sharpness`` and ``blur_score``. Thresholds calibrated against the
# share of printed numbers tesseract (--psm 6) read back exactly, pages rendered at 300 DPI:
# - the synth corpus (seed 5, 4 volumes, 20 pages): 100-150 DPI pages scored 0.61-1.10
#   and read 98-100% (clear); 80 DPI pages 0.127-0.137, 78% (blurry); 60 DPI pages
#   0.028-0.038, 0% (very_blurry);
# - a generated table page degraded over DPI 60-150 x blur sigma 0.3-1.5 px x noise sd
#   3/9 (50 variants): at >= 90 DPI, scores >= 0.30 read 81-100%; scores < 0.10 read
#   at most 11%; in between 9-97%.
SHARPNESS_REFERENCE_DPI = 100
CLEAR_MIN_SCORE = 0.30
BLURRY_MIN_SCORE = 0.10
FULL_RESOLUTION_DPI = 100.0  # below this effective DPI the score is scaled down
# Crisp scans under this DPI still lost glyph detail (80 DPI, sigma 0.3: 68-72% read).
CLEAR_MIN_DPI = 90.0
# Ink: a 32x32 tile at 100 DPI whose gray levels vary this much. Printed text on the real
# bulletins gives tiles of sd 40-80; show-through from the verso and paper grain 3-16.
INK_TILE_MIN_SD = 20.0
MIN_INKED_TILES = 5
# Bump when what is measured per page changes, so cached page measurements are redone.
PAGE_MEASURE_VERSION = 3
# A scan denser than the render DPI is rendered at its own density, up to this: some
# volumes are scanned at 400-500 DPI onto a page box smaller than the printed page (the
# 1953-09 bulletin: 501 DPI on a 4.5-inch box, print 13 px tall at 300 DPI), and a
# 300-DPI render throws away the pixels tesseract needs. Gold pages of that volume
# (re-OCR of the same pages): periods 40 -> 68 of 140, row labels 76 -> 99 of 147 at
# 400 DPI; 450 and 500 DPI read fewer (62 / 65 periods) and cost more.
MAX_SCAN_RENDER_DPI = 400
# Densities within this factor of the render DPI are rendered at the render DPI.
DENSER_SCAN_FACTOR = 1.1

_PAGE_CACHE_SCHEMA = {
    "page_no": pl.Int32,
    "image_sha256": pl.String,
    "width_px": pl.Int32,
    "height_px": pl.Int32,
    "dpi": pl.Float64,
    "text_layer_chars": pl.Int32,
    "scanned": pl.Boolean,
    "sharpness": pl.Float64,
    "error": pl.String,
}


@dataclass
class IngestResult:
    """What ``ingest_documents`` produced: the table and the stage's intake."""

    documents: pl.DataFrame
    intake: Intake

    @property
    def discovered(self) -> int:
        return self.intake.discovered

    @property
    def ingested(self) -> int:
        return len(self.intake.ingested)

    @property
    def quarantined(self) -> int:
        return len(self.intake.quarantined)


def discover_pdfs(source: Path) -> list[Path]:
    """Every ``*.pdf`` entry (any case) under a folder, recursively, or the entry itself,
    readable or not (see ``discover_inputs`` for the reason an entry cannot be read)."""
    return [found.path for found in discover_inputs(Path(source), _list_dir)]


def ingest_documents(
    sources: list[tuple[str, Path]],
    warehouse: Warehouse,
    blobs: BlobStore,
    text_layer_policy: str = "auto",
    max_file_bytes: int = MAX_FILE_BYTES,
    check_timeout_s: float | None = None,
) -> IngestResult:
    """Discover PDFs, ingest or quarantine each, write ``documents``, ``quarantine``, ``intake``.

    ``sources`` are (corpus name, folder or file). ``text_layer_policy`` is ``auto`` (use a
    text layer where it is trustworthy, decided per page by ``build_pages``), ``ignore``
    (always OCR) or ``require`` (quarantine a document without a text layer).

    Every discovered entry is recorded once (its name stored escaped when it is not
    UTF-8): entries that are not regular files and unlistable folders are quarantined
    from a stat; each file is surveyed from a stat, its header and one streamed pass
    (``survey_file``: size limit ``max_file_bytes``, magic, sha256, truncation); files
    with identical bytes become one document named by ``best_name`` that keeps every
    name in ``source_paths`` (the other names are quarantined as its duplicates); each
    document's bytes are copied (streamed, hash re-checked) and checked by
    ``inspect_pdf`` in a child process (``PdfInspector``: at most ``check_timeout_s``,
    default ``pdf_checks.CHECK_TIMEOUT_S``, per document) before they enter the blob store.
    """
    if text_layer_policy not in TEXT_LAYER_POLICIES:
        raise ValueError(f"text_layer_policy {text_layer_policy!r} not in {TEXT_LAYER_POLICIES}")
    intake = Intake("documents")
    groups: dict[str, list[tuple[str, Found]]] = {}
    for corpus, source in sources:
        for found in discover_inputs(Path(source), _list_dir):
            if found.problem:
                intake.quarantine(found.name, found.reason(found.problem))
                continue
            try:
                survey = survey_file(found, max_file_bytes)
            except Rejected as rej:
                intake.quarantine(found.name, rej.reason, rej.detail)
                continue
            groups.setdefault(survey.sha256, []).append((corpus, found))
    rows: list[dict] = []
    with (
        tempfile.TemporaryDirectory(prefix="lf-documents-") as spool,
        PdfInspector(check_timeout_s) as inspector,
    ):
        for sha, members in groups.items():
            best = best_name([str(found.path) for _, found in members])
            members.sort(key=lambda m: str(m[1].path) != best)  # stable: the rest keep order
            (corpus, winner), others = members[0], [found for _, found in members[1:]]
            try:
                check = _check_and_store(
                    winner, sha, text_layer_policy, blobs, Path(spool), inspector
                )
            except Rejected as rej:
                intake.quarantine(winner.name, rej.reason, rej.detail)
                for found in others:
                    reason = found.reason(f"duplicate of {winner.name}, quarantined: {rej.reason}")
                    intake.quarantine(found.name, reason, rej.detail)
                continue
            rows.append(
                {
                    "doc_id": sha[:16],
                    "file_sha256": sha,
                    "corpus": corpus,
                    "source_path": winner.name,
                    "source_paths": [winner.name, *(found.name for found in others)],
                    "file_name": winner.file_name,
                    "volume": parse_volume(winner.file_name),
                    "n_pages": check.n_pages,
                    "has_text_layer": check.has_text_layer,
                    "text_layer_policy": text_layer_policy,
                    "blob_sha256": sha,
                }
            )
            intake.ingest(winner.name)
            for found in others:
                intake.quarantine(found.name, found.reason(f"duplicate of {winner.name}"))
    documents = pl.DataFrame(rows, schema=DOCUMENTS_SCHEMA)
    warehouse.replace("documents", documents, DOCUMENTS_SCHEMA)
    warehouse.write("quarantine", intake.quarantine_frame(), part="documents")
    warehouse.write("intake", intake.intake_frame(), part="documents")
    return IngestResult(documents, intake)


def _check_and_store(
    found: Found, sha: str, policy: str, blobs: BlobStore, spool: Path, inspector: PdfInspector
) -> PdfCheck:
    """Check one surveyed file and put its bytes in the blob store; raise ``Rejected``.

    MuPDF opens a private copy (streamed, hash re-checked against the survey), so what
    is checked is exactly what is stored, even if the file changes meanwhile; a PDF
    already in a local blob store is checked where it lies.
    """
    stored = _local_blob(blobs, sha)
    if stored is None:
        copy = spool / sha
        try:
            copy_verified(found.path, copy, sha)
        except (OSError, ValueError) as exc:
            raise Rejected(found.reason(f"file changed while it was read ({exc})")) from exc
    check = inspector.inspect(found.file_name, stored or copy)
    if policy == "require" and not check.has_text_layer:
        raise Rejected(found.reason("no text layer (text_layer_policy=require)"))
    if stored is None:
        blobs.put_file(copy, sha)
        copy.unlink()
    return check


def _local_blob(blobs: BlobStore, sha: str) -> str | None:
    try:
        path = blobs.local_path(sha)
    except ValueError:
        return None
    return path if os.path.isfile(path) else None


# --- pages -------------------------------------------------------------------------


def sharpness(gray: np.ndarray, render_dpi: float) -> float | None:
    """How sharp the text of a page image is, comparable across render DPIs; None if blank.

    The image is first box-resampled to ``SHARPNESS_REFERENCE_DPI`` so that the same
    page rendered at 150 or 300 DPI is measured on the same pixel grid (a Laplacian
    scales with 1/pixel size squared, so raw scores at different DPIs are not
    comparable). A 3x3 median removes scanner noise, which a Laplacian would
    otherwise count as sharpness. The page is cut into 32x32 tiles; on tiles that
    hold ink (intensity sd >= ``INK_TILE_MIN_SD`` gray levels, and >= 0.1 of the
    page's 1-99% range) the score is the variance of the Laplacian divided by the
    tile's intensity variance, which makes it independent of ink contrast (faded
    print) and of how much text the page carries; the page's score is the median
    over those tiles. A page with fewer than ``MIN_INKED_TILES`` such tiles is blank
    (white, or only show-through from the verso) and has no score.
    """
    scale = SHARPNESS_REFERENCE_DPI / render_dpi
    height, width = gray.shape
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    small = Image.fromarray(gray).resize(size, Image.Resampling.BOX)
    g = ndimage.median_filter(np.asarray(small, dtype=np.float64), size=3)
    tile = 32
    h, w = (g.shape[0] // tile) * tile, (g.shape[1] // tile) * tile
    if not h or not w:
        return None
    lo, hi = np.percentile(g, [1, 99])
    span = max(hi - lo, 1.0)
    tiles = g[:h, :w].reshape(h // tile, tile, w // tile, tile)
    sd = tiles.std(axis=(1, 3))
    inked = (sd >= INK_TILE_MIN_SD) & (sd >= 0.1 * span)
    if inked.sum() < MIN_INKED_TILES:
        return None
    lap = ndimage.laplace(g / span)
    lap_tiles = lap[:h, :w].reshape(h // tile, tile, w // tile, tile)
    ratio = lap_tiles.var(axis=(1, 3))[inked] / (sd[inked] / span) ** 2
    return float(np.median(ratio))


def blur_score(page_sharpness: float | None, dpi: float) -> float | None:
    """The page's blur score (higher = sharper): sharpness, discounted for low resolution.

    Upsampled low-DPI scans keep crisp-looking edges while the glyph detail OCR needs
    is gone, so below ``FULL_RESOLUTION_DPI`` the score is scaled by (dpi/100)^2.
    None for a blank page.
    """
    if page_sharpness is None:
        return None
    return page_sharpness * min(1.0, dpi / FULL_RESOLUTION_DPI) ** 2


def quality_tag(score: float | None, dpi: float | None = None) -> str:
    """clear / blurry / very_blurry from a blur score and, if known, the effective DPI.

    Thresholds are in the module header; a page under ``CLEAR_MIN_DPI`` is at best
    blurry. A blank page (no score) is clear: there is nothing on it to misread.
    """
    if score is None:
        return "clear"
    if score >= CLEAR_MIN_SCORE and (dpi is None or dpi >= CLEAR_MIN_DPI):
        return "clear"
    if score >= BLURRY_MIN_SCORE:
        return "blurry"
    return "very_blurry"


def scan_dpi(page: pymupdf.Page) -> float | None:
    """The resolution of a scanned page's largest image over the box it is drawn in;
    None for a page that is no scan (images cover less than half of it) or whose image
    box is empty."""
    area = abs(page.rect) or 1.0
    infos = [i for i in page.get_image_info() if i["width"] and i["height"]]
    covered = sum(abs(pymupdf.Rect(i["bbox"]) & page.rect) for i in infos)
    if covered / area < SCANNED_IMAGE_COVERAGE:
        return None
    largest = max(infos, key=lambda i: i["width"] * i["height"])
    box = pymupdf.Rect(largest["bbox"])
    if box.width <= 0 or box.height <= 0:
        return 0.0
    return ((largest["width"] / (box.width / 72)) * (largest["height"] / (box.height / 72))) ** 0.5


def effective_dpi(native: float | None, render_dpi: float) -> tuple[float, bool]:
    """(effective DPI of the page image, whether the page is a scan), from the page's
    ``scan_dpi``.

    A scan is a page whose images cover at least half its area; its DPI is the
    resolution of the largest image over the box it is drawn in, capped by the
    render DPI (rendering cannot add detail). Vector pages get the render DPI.
    """
    if native is None:
        return float(render_dpi), False
    if native <= 0:
        return float(render_dpi), True
    return float(min(native, render_dpi)), True


def page_render_dpi(native: float | None, render_dpi: int) -> int:
    """The DPI a page whose ``scan_dpi`` is ``native`` is rendered at: the build's, or a
    denser scan's own density up to ``MAX_SCAN_RENDER_DPI`` (never fewer pixels than the
    build's render)."""
    if not native or native <= render_dpi * DENSER_SCAN_FACTOR:
        return render_dpi
    return max(render_dpi, min(round(native), MAX_SCAN_RENDER_DPI))


def render_pages(blob_url: str, pdf_sha: str, render_dpi: int) -> pl.DataFrame:
    """Render every page of one stored PDF; PNGs go to the blob store. Runs in a worker."""
    blobs = BlobStore(blob_url)
    rows = []
    stored = _local_blob(blobs, pdf_sha)  # opened in place: MuPDF reads what it needs
    opened = (
        pymupdf.open(stored, filetype="pdf")
        if stored
        else pymupdf.open(stream=blobs.get(pdf_sha), filetype="pdf")
    )
    with opened as doc:
        for index, page in enumerate(doc):
            row: dict = {"page_no": index + 1}
            try:
                pixels = (page.rect.width / 72 * render_dpi) * (page.rect.height / 72 * render_dpi)
                if pixels > MAX_RENDER_PIXELS:
                    raise ValueError(f"{pixels / 1e6:.0f} MP at {render_dpi} DPI exceeds the limit")
                native = scan_dpi(page)  # the page's image list is read once
                page_dpi = page_render_dpi(native, render_dpi)
                if pixels * (page_dpi / render_dpi) ** 2 > MAX_RENDER_PIXELS:
                    page_dpi = render_dpi  # a dense scan of a huge page: the build's DPI
                dpi, scanned = effective_dpi(native, page_dpi)
                pix = page.get_pixmap(dpi=page_dpi, colorspace=pymupdf.csGRAY, alpha=False)
                gray = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.stride)
                gray = gray[:, : pix.w]
                row |= {
                    "image_sha256": blobs.put(pix.tobytes("png")),
                    "width_px": pix.w,
                    "height_px": pix.h,
                    "dpi": dpi,
                    "text_layer_chars": text_layer_chars(page),
                    "scanned": scanned,
                    "sharpness": sharpness(gray, page_dpi),
                }
            except Exception as exc:  # one bad page is quarantined, not fatal
                row["error"] = f"{type(exc).__name__}: {exc}"
            rows.append(row)
    return pl.DataFrame(rows, schema=_PAGE_CACHE_SCHEMA)


def word_source(policy: str, chars: int, scanned: bool) -> str:
    """Where a page's words come from under a text-layer policy."""
    if policy == "ignore":
        return "ocr"
    if policy == "require":
        return "text_layer"
    return "text_layer" if chars > 0 and not scanned else "ocr"


def build_pages(
    warehouse: Warehouse,
    blobs: BlobStore,
    render_dpi: int = 300,
    workers: int | None = None,
    cache_dir: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> pl.DataFrame:
    """Render and measure every page of the ingested documents; write ``pages``.

    Pages are rendered at ``render_dpi``, except scans denser than that, which are
    rendered at their own density up to ``MAX_SCAN_RENDER_DPI`` (``page_render_dpi``).
    Renders documents in a process pool (``workers`` defaults to the CPU count); a
    document already rendered at this DPI is read back from
    ``cache_dir`` (default ``<data>/cache/pages``). A page that fails to render is
    quarantined (stage ``pages``, path ``<source>#page=<n>``) and gets no row.
    """
    documents = warehouse.read("documents", DOCUMENTS_SCHEMA)
    cache_dir = Path(cache_dir or warehouse.paths.cache / "pages")
    cache_dir.mkdir(parents=True, exist_ok=True)
    cached: dict[str, pl.DataFrame] = {}
    todo: list[str] = []
    for sha in documents["file_sha256"].unique(maintain_order=True):
        path = cache_dir / f"{sha}_{render_dpi}dpi_v{PAGE_MEASURE_VERSION}.parquet"
        frame = pl.read_parquet(path, glob=False) if path.exists() else None  # "[" in roots
        # a cache entry is only good while the images it names are still stored
        if frame is not None and all(map(blobs.exists, frame["image_sha256"].drop_nulls())):
            cached[sha] = frame
        else:
            todo.append(sha)
    blob_of = dict(zip(documents["file_sha256"], documents["blob_sha256"], strict=True))
    pdf_blobs = [blob_of[sha] for sha in todo]
    lines = StageProgress("render", len(todo), log or (lambda _line: None), "documents")
    if log is not None:
        log(f"render: {len(todo)} documents to render, {len(cached)} cached")
    for sha, frame in zip(
        todo, _render_all(blobs.url, pdf_blobs, render_dpi, workers), strict=True
    ):
        _write_atomic(frame, cache_dir / f"{sha}_{render_dpi}dpi_v{PAGE_MEASURE_VERSION}.parquet")
        cached[sha] = frame
        lines.advance()

    intake = Intake("pages")
    frames = []
    for doc in documents.iter_rows(named=True):
        frame = cached[doc["file_sha256"]]
        ok = frame.filter(pl.col("error").is_null())
        blank = renders_blank(ok)
        for row in frame.iter_rows(named=True):
            where = f"{doc['source_path']}#page={row['page_no']}"
            if row["error"]:
                reason = f"{doc['file_name']} page {row['page_no']}: render failed"
                intake.quarantine(where, reason, row["error"])
            elif blank:
                reason = (
                    f"{doc['file_name']} renders blank: none of its {ok.height} pages "
                    "draws any ink or carries a text layer"
                )
                intake.quarantine(where, reason, "every page rendered white (no words to read)")
            else:
                intake.ingest(where)
        if blank:
            continue
        score = [blur_score(s, d) for s, d in zip(ok["sharpness"], ok["dpi"], strict=True)]
        frames.append(
            ok.with_columns(
                doc_id=pl.lit(doc["doc_id"]),
                word_source=pl.Series(
                    [
                        word_source(doc["text_layer_policy"], c, s)
                        for c, s in zip(ok["text_layer_chars"], ok["scanned"], strict=True)
                    ],
                    dtype=pl.String,
                ),
                blur_score=pl.Series(score, dtype=pl.Float64),
                quality=pl.Series(
                    [quality_tag(s, d) for s, d in zip(score, ok["dpi"], strict=True)],
                    dtype=pl.String,
                ),
            )
        )
    pages = pl.concat(frames) if frames else pl.DataFrame(schema=PAGES_SCHEMA)
    pages = pages.select(list(PAGES_SCHEMA))
    warehouse.replace("pages", pages, PAGES_SCHEMA)
    warehouse.write("quarantine", intake.quarantine_frame(), part="pages")
    warehouse.write("intake", intake.intake_frame(), part="pages")
    return warehouse.read("pages", PAGES_SCHEMA)


def renders_blank(pages: pl.DataFrame) -> bool:
    """A document none of whose pages draws anything: every page image is white (no
    sharpness measured) and no page has a text layer. Its pages are quarantined rather
    than passed on as 'clear' pages with no words (a stripped or broken PDF, such as a
    copy whose content streams only set clipping paths)."""
    return (
        pages.height > 0
        and pages["sharpness"].null_count() == pages.height
        and int(pages["text_layer_chars"].sum()) == 0
    )


def _render_all(
    blob_url: str, pdf_blobs: list[str], render_dpi: int, workers: int | None
) -> Iterator[pl.DataFrame]:
    n_workers = min(workers or os.cpu_count() or 1, len(pdf_blobs))
    if n_workers <= 1:  # a pool's start-up costs more than one document's pages
        yield from (render_pages(blob_url, sha, render_dpi) for sha in pdf_blobs)
        return
    with ProcessPoolExecutor(n_workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield from pool.map(render_pages, repeat(blob_url), pdf_blobs, repeat(render_dpi))


def _write_atomic(frame: pl.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    frame.write_parquet(tmp)
    os.replace(tmp, path)


def page_image(blobs: BlobStore, image_sha256: str) -> Image.Image:
    """A stored page image (for callers that crop or display pages)."""
    return Image.open(io.BytesIO(blobs.get(image_sha256)))
