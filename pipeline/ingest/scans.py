"""Scanned archives: the ``documents`` and ``pages`` stages.

``documents``: every ``*.pdf`` under the configured sources is either ingested (a row,
the PDF bytes in the blob store) or quarantined with a reason that names the file, so
``discovered = ingested + quarantined`` holds for the stage. All checks run before any
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
import re
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

import numpy as np
import polars as pl
import pymupdf
from PIL import Image
from scipy import ndimage

from pipeline.ingest.schemas import DOCUMENTS_SCHEMA, PAGES_SCHEMA
from pipeline.store import BlobStore, Intake, Warehouse, sha256_bytes

TEXT_LAYER_POLICIES = ("auto", "ignore", "require")

# Limits checked from the page dictionary before anything is rendered.
MAX_PAGE_INCHES = 100.0  # a side longer than this is not a printed page
MAX_RENDER_PIXELS = 60_000_000  # page pixels at the render DPI (letter at 300 DPI is 8.4 MP)
MAX_IMAGE_PIXELS = 150_000_000  # an embedded image (a 600 DPI letter scan is 34 MP)

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
PAGE_MEASURE_VERSION = 2

VOLUME_PATTERN = re.compile(r"(?<!\d)(1[6-9]\d\d|20\d\d)[_-](0[1-9]|1[0-2])(?!\d)")

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


class Rejected(Exception):
    """A discovered file that cannot be ingested; ``reason`` names the file."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def parse_volume(file_name: str) -> str | None:
    """``treasury_bulletin_1939_01.pdf`` -> ``"1939-01"``; None when the name has no date."""
    match = VOLUME_PATTERN.search(Path(file_name).stem)
    return f"{match.group(1)}-{match.group(2)}" if match else None


def discover_pdfs(source: Path) -> list[Path]:
    """Every ``*.pdf`` (any case) under a folder, recursively, or the file itself."""
    if source.is_file():
        return [source]
    return sorted(p for p in source.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf")


def open_checked(path: Path, data: bytes) -> pymupdf.Document:
    """Open PDF bytes or raise ``Rejected`` with a reason naming ``path``.

    Checks, in order and all before rendering: empty file, magic bytes, a missing
    ``%%EOF`` trailer (truncation: MuPDF would otherwise repair the stub silently),
    parse errors, encryption, zero pages, and page or embedded-image sizes.
    """
    name = path.name
    if not data:
        raise Rejected(f"{name}: zero-byte file")
    # The PDF header may sit anywhere in the first 1024 bytes (PDF 32000-1, 7.5.2).
    if b"%PDF-" not in data[:1024]:
        raise Rejected(f"{name}: not a PDF (no %PDF- header)", f"first bytes {data[:16]!r}")
    if b"%%EOF" not in data[-2048:]:
        raise Rejected(f"{name}: truncated or corrupt PDF (no %%EOF trailer)", f"{len(data)} bytes")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # MuPDF raises several types for broken files
        raise Rejected(f"{name}: corrupt PDF ({type(exc).__name__})", str(exc)) from exc
    if doc.needs_pass:
        raise Rejected(f"{name}: encrypted PDF (needs a password)")
    if doc.page_count == 0:
        raise Rejected(f"{name}: PDF has zero pages")
    for index in range(doc.page_count):
        try:
            page = doc[index]
            rect = page.rect
            images = page.get_images(full=True)
        except Exception as exc:
            raise Rejected(f"{name}: corrupt page {index + 1}", str(exc)) from exc
        check_page_size(name, index + 1, rect.width / 72, rect.height / 72, images)
    return doc


def check_page_size(
    name: str, page_no: int, width_in: float, height_in: float, images: Iterable[tuple]
) -> None:
    """Reject absurd pages from their declared sizes (nothing is decoded or rendered)."""
    if max(width_in, height_in) > MAX_PAGE_INCHES or min(width_in, height_in) <= 0:
        raise Rejected(
            f"{name}: absurd page size on page {page_no}: {width_in:.0f}x{height_in:.0f} in"
        )
    # The render DPI is not known here; the default 300 is the contract's worst case.
    pixels = width_in * height_in * 300 * 300
    if pixels > MAX_RENDER_PIXELS:
        raise Rejected(
            f"{name}: page {page_no} too large to render: {pixels / 1e6:.0f} MP at 300 DPI "
            f"(limit {MAX_RENDER_PIXELS / 1e6:.0f} MP)"
        )
    for image in images:
        width, height = image[2], image[3]
        if width * height > MAX_IMAGE_PIXELS:
            raise Rejected(
                f"{name}: page {page_no} embeds an absurdly large image: {width}x{height} px "
                f"(limit {MAX_IMAGE_PIXELS / 1e6:.0f} MP)"
            )


def text_layer_chars(page: pymupdf.Page) -> int:
    """Non-blank characters in the page's text layer."""
    return sum(1 for ch in page.get_text() if not ch.isspace())


def ingest_documents(
    sources: list[tuple[str, Path]],
    warehouse: Warehouse,
    blobs: BlobStore,
    text_layer_policy: str = "auto",
) -> IngestResult:
    """Discover PDFs, ingest or quarantine each, write ``documents``, ``quarantine``, ``intake``.

    ``sources`` are (corpus name, folder or file). ``text_layer_policy`` is ``auto`` (use a
    text layer where it is trustworthy, decided per page by ``build_pages``), ``ignore``
    (always OCR) or ``require`` (quarantine a document without a text layer).
    """
    if text_layer_policy not in TEXT_LAYER_POLICIES:
        raise ValueError(f"text_layer_policy {text_layer_policy!r} not in {TEXT_LAYER_POLICIES}")
    intake = Intake("documents")
    rows: list[dict] = []
    seen: dict[str, str] = {}
    for corpus, source in sources:
        source = Path(source)
        if not source.exists():
            intake.quarantine(str(source), f"{source}: source path does not exist")
            continue
        for path in discover_pdfs(source):
            try:
                row = _document_row(corpus, path, text_layer_policy, blobs, seen)
            except Rejected as rej:
                intake.quarantine(str(path), rej.reason, rej.detail)
                continue
            except OSError as exc:
                intake.quarantine(str(path), f"{path.name}: unreadable ({exc.strerror})", str(exc))
                continue
            seen[row["file_sha256"]] = str(path)
            rows.append(row)
            intake.ingest(str(path))
    documents = pl.DataFrame(rows, schema=DOCUMENTS_SCHEMA)
    warehouse.replace("documents", documents, DOCUMENTS_SCHEMA)
    warehouse.write("quarantine", intake.quarantine_frame(), part="documents")
    warehouse.write("intake", intake.intake_frame(), part="documents")
    return IngestResult(documents, intake)


def _document_row(
    corpus: str, path: Path, policy: str, blobs: BlobStore, seen: dict[str, str]
) -> dict:
    data = path.read_bytes()
    sha = sha256_bytes(data)
    if sha in seen:
        # Same bytes twice would give two rows with one doc_id; keep the first.
        raise Rejected(f"{path.name}: duplicate of {seen[sha]}")
    with open_checked(path, data) as doc:
        has_text = any(text_layer_chars(page) for page in doc)
        n_pages = doc.page_count
    if policy == "require" and not has_text:
        raise Rejected(f"{path.name}: no text layer (text_layer_policy=require)")
    return {
        "doc_id": sha[:16],
        "file_sha256": sha,
        "corpus": corpus,
        "source_path": str(path),
        "file_name": path.name,
        "volume": parse_volume(path.name),
        "n_pages": n_pages,
        "has_text_layer": has_text,
        "text_layer_policy": policy,
        "blob_sha256": blobs.put(data),
    }


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


def effective_dpi(page: pymupdf.Page, render_dpi: float) -> tuple[float, bool]:
    """(effective DPI of the page image, whether the page is a scan).

    A scan is a page whose images cover at least half its area; its DPI is the
    resolution of the largest image over the box it is drawn in, capped by the
    render DPI (rendering cannot add detail). Vector pages get the render DPI.
    """
    area = abs(page.rect) or 1.0
    infos = [i for i in page.get_image_info() if i["width"] and i["height"]]
    covered = sum(abs(pymupdf.Rect(i["bbox"]) & page.rect) for i in infos)
    if covered / area < SCANNED_IMAGE_COVERAGE:
        return float(render_dpi), False
    largest = max(infos, key=lambda i: i["width"] * i["height"])
    box = pymupdf.Rect(largest["bbox"])
    if box.width <= 0 or box.height <= 0:
        return float(render_dpi), True
    dpi = ((largest["width"] / (box.width / 72)) * (largest["height"] / (box.height / 72))) ** 0.5
    return float(min(dpi, render_dpi)), True


def render_pages(blob_url: str, pdf_sha: str, render_dpi: int) -> pl.DataFrame:
    """Render every page of one stored PDF; PNGs go to the blob store. Runs in a worker."""
    blobs = BlobStore(blob_url)
    rows = []
    with pymupdf.open(stream=blobs.get(pdf_sha), filetype="pdf") as doc:
        for index, page in enumerate(doc):
            row: dict = {"page_no": index + 1}
            try:
                pixels = (page.rect.width / 72 * render_dpi) * (page.rect.height / 72 * render_dpi)
                if pixels > MAX_RENDER_PIXELS:
                    raise ValueError(f"{pixels / 1e6:.0f} MP at {render_dpi} DPI exceeds the limit")
                dpi, scanned = effective_dpi(page, render_dpi)
                pix = page.get_pixmap(dpi=render_dpi, colorspace=pymupdf.csGRAY, alpha=False)
                gray = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.stride)
                gray = gray[:, : pix.w]
                row |= {
                    "image_sha256": blobs.put(pix.tobytes("png")),
                    "width_px": pix.w,
                    "height_px": pix.h,
                    "dpi": dpi,
                    "text_layer_chars": text_layer_chars(page),
                    "scanned": scanned,
                    "sharpness": sharpness(gray, render_dpi),
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
) -> pl.DataFrame:
    """Render and measure every page of the ingested documents; write ``pages``.

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
        frame = pl.read_parquet(path) if path.exists() else None
        # a cache entry is only good while the images it names are still stored
        if frame is not None and all(map(blobs.exists, frame["image_sha256"].drop_nulls())):
            cached[sha] = frame
        else:
            todo.append(sha)
    blob_of = dict(zip(documents["file_sha256"], documents["blob_sha256"], strict=True))
    pdf_blobs = [blob_of[sha] for sha in todo]
    for sha, frame in zip(
        todo, _render_all(blobs.url, pdf_blobs, render_dpi, workers), strict=True
    ):
        _write_atomic(frame, cache_dir / f"{sha}_{render_dpi}dpi_v{PAGE_MEASURE_VERSION}.parquet")
        cached[sha] = frame

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
