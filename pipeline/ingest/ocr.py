"""The ``words`` stage: word boxes from tesseract, or from a trusted text layer.

OCR is the slow step, so its results are cached by what determines them: the page
image's sha256, the tesseract version, the tesseract configuration and, for degraded
pages, the preprocessing recipe (``pipeline.ingest.enhance``). Each page's
words live in ``<cache_dir>/<key>.parquet``; the ``words`` table is assembled from
the cache for the current pages, so a rerun, or a run that adds one volume, OCRs
only the pages it has not seen.

Tesseract runs as one single-threaded process per worker (``OMP_THREAD_LIMIT=1``):
on a few cores, page-level parallelism beats tesseract's own OpenMP threads, which
mostly wait on each other.
"""

from __future__ import annotations

import functools
import hashlib
import io
import multiprocessing
import os
import subprocess
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pymupdf
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from pipeline.ingest import ocr_worker
from pipeline.ingest.enhance import Enhancement, enhancement_for
from pipeline.ingest.head_bands import HEAD_BANDS_VERSION, reread_head_bands
from pipeline.ingest.leaders import LEADERS_VERSION
from pipeline.ingest.ocr_worker import ocr_image
from pipeline.ingest.ocr_worker import run_tesseract as run_tesseract  # public here too
from pipeline.ingest.rules import RULES_VERSION
from pipeline.ingest.schemas import DOCUMENTS_SCHEMA, PAGES_SCHEMA, WORDS_SCHEMA
from pipeline.progress import StageProgress
from pipeline.store import BlobStore, Intake, Warehouse

# --psm 6 (one uniform block of text). On four clear synth table pages it read 294/295
# printed numbers exactly, --psm 4 291 and --psm 3 293; all three put the numbers of a
# table row on one OCR line equally often (49-50 of 59 rows).
TESSERACT_PSM = 6
TESSERACT_LANG = "eng"

# The per-page word columns held in the cache (doc_id and page_no are added when the
# table is assembled, since one image may belong to several documents).
PAGE_WORDS_SCHEMA = {k: v for k, v in WORDS_SCHEMA.items() if k not in ("doc_id", "page_no")}


@dataclass
class WordsResult:
    """Counts of one ``build_words`` run and the table it wrote."""

    pages: int  # pages in the ``pages`` table
    cached: int  # OCR pages whose words came from the cache
    ocrd: int  # OCR pages run through tesseract in this call
    text_layer: int  # pages whose words came from the PDF text layer
    failed: int  # pages quarantined (stage ``words``)
    words: int  # rows written to ``words``
    table: pl.DataFrame


@functools.cache
def tesseract_version() -> str:
    """The first line of ``tesseract --version`` (part of the OCR cache key)."""
    out = subprocess.run(["tesseract", "--version"], capture_output=True, text=True, check=True)
    return (out.stdout or out.stderr).splitlines()[0].strip()


def tesseract_args(psm: int = TESSERACT_PSM) -> list[str]:
    """The tesseract configuration after ``<input> stdout`` (part of the cache key).

    No ``--dpi``: the page PNGs carry their pixel density (pHYs), which is part of the
    image bytes and so of the image hash.
    """
    return ["--psm", str(psm), "-l", TESSERACT_LANG, "-c", "preserve_interword_spaces=1", "tsv"]


def ocr_key(image_sha256: str, args: list[str], recipe: Enhancement | None = None) -> str:
    """Cache key of one page's OCR: image hash + tesseract version + configuration.

    Every page has its dot leaders erased first (``pipeline.ingest.leaders``, versioned);
    a page enhanced before OCR (``pipeline.ingest.enhance``) adds its recipe.
    """
    extra = [f"leaders-v{LEADERS_VERSION}"] + ([recipe.cache_tag()] if recipe else [])
    material = "\0".join([image_sha256, tesseract_version(), *args, *extra])
    return hashlib.sha256(material.encode()).hexdigest()


def parse_tsv(tsv: str) -> pl.DataFrame:
    """Tesseract TSV -> word rows (``PAGE_WORDS_SCHEMA``), in tesseract's reading order.

    Only level-5 (word) rows with text are kept. ``line_no`` numbers the distinct
    (block, paragraph, line) triples of the page in order of appearance.
    """
    if not tsv.strip():
        return pl.DataFrame(schema=PAGE_WORDS_SCHEMA)
    raw = pl.read_csv(
        io.StringIO(tsv),
        separator="\t",
        quote_char=None,  # a word may be a lone '"'
        infer_schema=False,
    )
    words = raw.filter(
        (pl.col("level") == "5") & (pl.col("text").fill_null("").str.strip_chars() != "")
    )
    ints = ["block_num", "par_num", "line_num", "left", "top", "width", "height"]
    words = words.with_columns([pl.col(c).cast(pl.Int64) for c in ints]).with_columns(
        pl.col("conf").cast(pl.Float64)
    )
    return words.select(
        word_no=pl.int_range(pl.len(), dtype=pl.Int32),
        block_no=pl.col("block_num").cast(pl.Int32),
        line_no=_first_seen_rank(words),
        text=pl.col("text").str.strip_chars(),
        x0=pl.col("left").cast(pl.Float64),
        y0=pl.col("top").cast(pl.Float64),
        x1=(pl.col("left") + pl.col("width")).cast(pl.Float64),
        y1=(pl.col("top") + pl.col("height")).cast(pl.Float64),
        conf=pl.col("conf").clip(0, 100),
        source=pl.lit("ocr"),
    )


def _first_seen_rank(words: pl.DataFrame) -> pl.Series:
    # Lines numbered in reading order, not by sort order of their ids.
    keys = list(zip(words["block_num"], words["par_num"], words["line_num"], strict=True))
    order: dict[tuple, int] = {}
    return pl.Series([order.setdefault(k, len(order)) for k in keys], dtype=pl.Int32)


def ocr_page_to_cache(
    blob_url: str,
    image_sha256: str,
    args: list[str],
    path: str,
    recipe: Enhancement | None = None,
) -> int:
    """OCR one stored page image, preprocessed by ``recipe`` if any; words to ``path``."""
    return _write_words(ocr_image(BlobStore(blob_url).get(image_sha256), args, recipe), path)


def _write_words(result: str | pl.DataFrame, path: str | Path) -> int:
    """A worker's result (TSV text, or a words frame) parsed and cached atomically."""
    words = parse_tsv(result) if isinstance(result, str) else result
    tmp = f"{path}.{os.getpid()}.tmp"
    words.write_parquet(tmp)
    os.replace(tmp, path)
    return len(words)


def _image_source(blobs: BlobStore, sha: str) -> bytes | str:
    """What to send a worker: a local blob's path (the worker reads it), else the bytes."""
    try:
        return blobs.local_path(sha)
    except ValueError:
        return blobs.get(sha)


def text_layer_words(page: pymupdf.Page, width_px: int, height_px: int) -> pl.DataFrame:
    """A page's text-layer words scaled to page-image pixels (``PAGE_WORDS_SCHEMA``)."""
    sx, sy = width_px / page.rect.width, height_px / page.rect.height
    rows = page.get_text("words", sort=True)
    order: dict[tuple[int, int], int] = {}
    out = [
        {
            "word_no": i,
            "block_no": w[5],
            "line_no": order.setdefault((w[5], w[6]), len(order)),
            "text": w[4],
            "x0": w[0] * sx,
            "y0": w[1] * sy,
            "x1": w[2] * sx,
            "y1": w[3] * sy,
            "conf": 100.0,
            "source": "text_layer",
        }
        for i, w in enumerate(rows)
    ]
    return pl.DataFrame(out, schema=PAGE_WORDS_SCHEMA)


def _progress(enabled: bool) -> Progress:
    return Progress(
        TextColumn("[bold]OCR"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not enabled,
    )


def _pooled(
    work: Callable[..., Any],
    jobs: dict[str, tuple],
    stage: str,
    workers: int | None,
    progress: bool,
    log: Callable[[str], None] | None,
) -> Iterator[tuple[str, Any, Exception | None]]:
    """Run ``work(*args)`` for each ``jobs`` key in a pool of spawned processes; yield
    (key, result, None) or (key, None, error) as each finishes, with a terminal bar and
    throttled progress lines for ``log``."""
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
    with (
        ProcessPoolExecutor(n_workers, mp_context=multiprocessing.get_context("spawn")) as pool,
        _progress(progress) as bar,
    ):
        task = bar.add_task(stage, total=len(jobs))
        lines = StageProgress(stage, len(jobs), log or (lambda _line: None), "pages")
        futures = {pool.submit(work, *args): key for key, args in jobs.items()}
        for future in as_completed(futures):
            try:
                result, error = future.result(), None
            except Exception as exc:  # the caller decides: quarantine, or keep what it had
                result, error = None, exc
            yield futures[future], result, error
            bar.advance(task)
            lines.advance()


def ocr_pages(
    images: list[str],
    blobs: BlobStore,
    cache_dir: Path,
    workers: int | None = None,
    progress: bool = True,
    recipes: dict[str, Enhancement] | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[dict[str, Path], dict[str, str], int]:
    """OCR the page images (by sha256) not yet in the cache.

    ``recipes`` maps an image sha to its preprocessing (absent: OCR the image as is).
    ``log`` receives a progress line now and then (pages done, rate, time left) for a
    run log; ``progress`` draws a live bar on the terminal.
    Returns (image sha -> cache file, image sha -> error for failures, pages OCR'd now).
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    recipes = recipes or {}
    paths: dict[str, Path] = {}
    todo: dict[str, tuple[list[str], Path]] = {}
    args = tesseract_args()
    for sha in images:
        path = cache_dir / f"{ocr_key(sha, args, recipes.get(sha))}.parquet"
        paths[sha] = path
        if not path.exists() and sha not in todo:
            todo[sha] = (args, path)
    errors: dict[str, str] = {}
    if not todo:
        return paths, errors, 0
    # workers run the light ocr_worker module; the parent parses and caches
    jobs = {
        sha: (_image_source(blobs, sha), args, recipes.get(sha)) for sha, (args, _) in todo.items()
    }
    for sha, result, error in _pooled(ocr_worker.ocr_image, jobs, "OCR", workers, progress, log):
        try:
            if error is not None:
                raise error
            _write_words(result, todo[sha][1])
        except Exception as exc:  # quarantined by the caller, the run goes on
            errors[sha] = f"{type(exc).__name__}: {exc}"
    return paths, errors, len(todo) - len(errors)


def head_bands_path(first_pass: Path) -> Path:
    """The cache file of a page's head-band pass, next to its first pass's."""
    return first_pass.with_name(
        f"{first_pass.stem}_heads-v{HEAD_BANDS_VERSION}-rules-v{RULES_VERSION}.parquet"
    )


def reread_page_to_cache(image: bytes | str, first_pass: str, args: list[str]) -> int:
    """Worker: one page's first-pass words with its garbled head bands read again, cached
    next to the first pass; returns the bands replaced."""
    if isinstance(image, str):
        with open(image, "rb") as fh:
            image = fh.read()
    words = pl.read_parquet(first_pass, glob=False)
    words, replaced = reread_head_bands(
        image, words, lambda png: parse_tsv(ocr_worker.run_tesseract(png, args))
    )
    _write_words(words, head_bands_path(Path(first_pass)))
    return replaced


def reread_head_bands_of(
    paths: dict[str, Path],
    failed: dict[str, str],
    blobs: BlobStore,
    workers: int | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """The head-band pass (``pipeline.ingest.head_bands``) over every OCR'd page not yet
    done: image sha -> the words file to read. A page whose second pass fails keeps its
    first pass's words (said in ``log``): the page was read, only not improved."""
    out = {sha: head_bands_path(p) for sha, p in paths.items() if sha not in failed}
    todo = [sha for sha, p in out.items() if not p.exists()]
    if not todo:
        return out
    args = tesseract_args()
    jobs = {sha: (_image_source(blobs, sha), str(paths[sha]), args) for sha in todo}
    replaced, failures = 0, []
    for sha, result, error in _pooled(
        reread_page_to_cache, jobs, "head bands", workers, progress, log
    ):
        if error is None:
            replaced += result
        else:  # the first pass stands, the run goes on
            out[sha] = paths[sha]
            failures.append(f"{sha[:12]}: {type(error).__name__}: {error}")
    if log is not None:
        log(f"head bands: {replaced} garbled ruled head bands read again on {len(todo)} pages")
        for failure in failures:
            log(f"head bands: second pass failed, first pass kept: {failure}")
    return out


def page_recipes(pages: pl.DataFrame) -> dict[str, Enhancement]:
    """Image sha -> preprocessing for the pages that get one (by quality tag and DPI)."""
    recipes: dict[str, Enhancement] = {}
    for sha, quality, dpi in pages.select("image_sha256", "quality", "dpi").iter_rows():
        recipe = enhancement_for(quality, dpi)
        if recipe is not None:
            recipes[sha] = recipe
    return recipes


def build_words(
    warehouse: Warehouse,
    blobs: BlobStore,
    cache_dir: Path | None = None,
    workers: int | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> WordsResult:
    """Build ``words`` for every page in ``pages``: OCR (cached) or the text layer.

    ``cache_dir`` defaults to ``<data>/cache/ocr``. Pages whose OCR fails are
    quarantined (stage ``words``) and contribute no rows.
    """
    cache_dir = Path(cache_dir or warehouse.paths.cache / "ocr")
    pages = warehouse.read("pages", PAGES_SCHEMA)
    documents = warehouse.read("documents", DOCUMENTS_SCHEMA)
    ocr_rows = pages.filter(pl.col("word_source") == "ocr")
    images = ocr_rows["image_sha256"].unique(maintain_order=True).to_list()
    recipes = page_recipes(ocr_rows)
    args = tesseract_args()
    cached_before = sum(
        (cache_dir / f"{ocr_key(sha, args, recipes.get(sha))}.parquet").exists() for sha in images
    )
    if log is not None:
        log(
            f"words: {len(images)} page images to OCR ({cached_before} cached), "
            f"{pages.height - ocr_rows.height} pages from text layers"
        )
    paths, errors, ocrd = ocr_pages(images, blobs, cache_dir, workers, progress, recipes, log)
    # garbled ruled head bands read again with their rules erased (a cached second pass)
    paths = reread_head_bands_of(paths, errors, blobs, workers, progress, log)

    intake = Intake("words")
    source_of = dict(zip(documents["doc_id"], documents["source_path"], strict=True))
    frames: list[pl.DataFrame] = []
    for row in ocr_rows.iter_rows(named=True):
        where = f"{source_of[row['doc_id']]}#page={row['page_no']}"
        if row["image_sha256"] in errors:
            intake.quarantine(where, f"{Path(where).name}: OCR failed", errors[row["image_sha256"]])
            continue
        intake.ingest(where)
        frames.append(
            # glob=False: the cache sits under the data root, whose path may hold [ ] * ?
            pl.read_parquet(paths[row["image_sha256"]], glob=False).with_columns(
                doc_id=pl.lit(row["doc_id"]), page_no=pl.lit(row["page_no"], dtype=pl.Int32)
            )
        )
    text_pages = pages.filter(pl.col("word_source") == "text_layer")
    for doc_id, doc_pages in text_pages.group_by("doc_id", maintain_order=True):
        doc = documents.filter(pl.col("doc_id") == doc_id[0]).row(0, named=True)
        with pymupdf.open(stream=blobs.get(doc["blob_sha256"]), filetype="pdf") as pdf:
            for row in doc_pages.iter_rows(named=True):
                intake.ingest(f"{doc['source_path']}#page={row['page_no']}")
                frames.append(
                    text_layer_words(
                        pdf[row["page_no"] - 1], row["width_px"], row["height_px"]
                    ).with_columns(
                        doc_id=pl.lit(doc["doc_id"]),
                        page_no=pl.lit(row["page_no"], dtype=pl.Int32),
                    )
                )
    table = (
        pl.concat([f.select(list(WORDS_SCHEMA)) for f in frames])
        if frames
        else pl.DataFrame(schema=WORDS_SCHEMA)
    )
    table = table.sort("doc_id", "page_no", "word_no")
    warehouse.replace("words", table, WORDS_SCHEMA)
    warehouse.write("quarantine", intake.quarantine_frame(), part="words")
    warehouse.write("intake", intake.intake_frame(), part="words")
    return WordsResult(
        pages=len(pages),
        cached=cached_before,
        ocrd=ocrd,
        text_layer=len(text_pages),
        failed=len(intake.quarantined),
        words=len(table),
        table=table,
    )
