"""The default scanned-statement corpus: image-only bulletin PDFs plus their ground truth.

``generate_scans(out_dir)`` writes ``synth_bulletin_<YYYY>_<MM>.pdf`` per volume (a
contents page, then table pages holding one or two statement tables each, every
page an image with no text layer) and ``truth/*.parquet`` recording every page's
degradation, every table, cell, identity and revision (schemas in
``pipeline.synth.truth``). The same seed and parameters give byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pymupdf
from rich.progress import Progress

from pipeline.synth.render import (
    BODY_BOTTOM,
    BODY_TOP,
    CHART_H,
    GUTTER,
    HALF_W,
    HI_DPI,
    MARGIN,
    PAGE_H_PT,
    PAGE_HEAD_H,
    PAGE_W_PT,
    TABLE_GAP,
    ScanQuality,
    TableBlock,
    blank_page,
    degrade,
    draw_chart,
    draw_contents,
    draw_page_head,
    draw_quality,
    draw_running_head,
    png_bytes,
)
from pipeline.synth.statements import (
    Bulletin,
    StatementTable,
    build_bulletins,
    decimal_text,
    stable_key,
)
from pipeline.synth.truth import TRUTH_SCHEMAS, read_truth, truth_frame

GENERATOR_VERSION = 6  # bump whenever output bytes change, so default_corpus regenerates
# Fixed PDF metadata: no wall-clock dates, so identical inputs give identical bytes.
PDF_DATE = "D:20000101000000Z"
DEFAULT_PARAMS: dict[str, object] = {
    "volumes": 3,
    "tables_per_volume": 16,
    "dpi_choices": [150, 120, 100, 80, 60],
    "tables_per_page": 2,
    "first_issue": [1950, 3],
    "months_between_volumes": 6,
    "revision_rate": 0.6,
    "misprint_rate": 0.1,
}


@dataclass(frozen=True)
class ScanCorpus:
    """A generated corpus: where its PDFs and truth live, and how it was made."""

    root: Path
    pdfs: tuple[Path, ...]
    truth_dir: Path
    seed: int
    params: dict[str, object] = field(default_factory=dict)

    def truth(self, name: str) -> pl.DataFrame:
        """One truth table by name (``truth_pages``, ``truth_tables``, ``truth_cells``, ...)."""
        return read_truth(self.truth_dir, name)


@dataclass
class PageJob:
    """Everything needed to draw one page, so pages can be drawn in worker processes."""

    file_name: str
    volume: str
    page_no: int
    kind: str  # contents | tables
    issue_title: str
    quality: ScanQuality
    noise_seed: list[int]
    contents: list[tuple[str, int]] = field(default_factory=list)
    tables: list[StatementTable] = field(default_factory=list)
    page_head: str = ""  # a unit line printed once at the head of the page
    chart: bool = False  # a bar chart above the first table
    beside: list[bool] = field(default_factory=list)  # per table: right of the one before


def generate_scans(
    out_dir: Path,
    *,
    seed: int = 7,
    volumes: int = 3,
    tables_per_volume: int = 8,
    dpi_choices: tuple[int, ...] = (150, 120, 100, 80, 60),
    tables_per_page: int = 2,
    first_issue: tuple[int, int] = (1950, 3),
    months_between_volumes: int = 6,
    revision_rate: float = 0.6,
    misprint_rate: float = 0.1,
    workers: int = 1,
    progress: bool | None = None,
    recipes: tuple[str, ...] | None = None,
) -> ScanCorpus:
    """Generate scanned bulletin volumes and their ground truth into ``out_dir``.

    Each volume is one PDF: a contents page, then table pages with up to
    ``tables_per_page`` tables; every page is an image at a DPI drawn from
    ``dpi_choices`` (three quarters of pages at >= 120 dpi), blurred, noisy and
    slightly skewed. Series are reprinted in every volume over sliding, overlapping
    periods; ``revision_rate`` is the chance that a reprint revises earlier figures
    and ``misprint_rate`` the share of tables with one member figure contradicting its
    total. ``workers`` > 1 draws pages in that many processes (output is identical).
    ``recipes`` (keys of ``RECIPES``, "" for the classic layout) lays the series out in
    that order, over and over, instead of the seeded cycle: a corpus of chosen layouts.
    Stale ``synth_bulletin_*.pdf`` files from an earlier run in ``out_dir`` are removed
    so that the folder holds exactly the corpus the truth describes.
    """
    out_dir = Path(out_dir)
    params: dict[str, object] = {
        "volumes": volumes,
        "tables_per_volume": tables_per_volume,
        "dpi_choices": list(dpi_choices),
        "tables_per_page": tables_per_page,
        "first_issue": list(first_issue),
        "months_between_volumes": months_between_volumes,
        "revision_rate": revision_rate,
        "misprint_rate": misprint_rate,
    }
    if recipes is not None:
        params["recipes"] = list(recipes)
    if volumes < 1 or tables_per_volume < 1 or tables_per_page < 1:
        raise ValueError(f"{out_dir}: volumes, tables_per_volume and tables_per_page must be >= 1")
    bulletins, revisions = build_bulletins(
        seed,
        volumes,
        tables_per_volume,
        first_issue=first_issue,
        months_between_volumes=months_between_volumes,
        revision_rate=revision_rate,
        misprint_rate=misprint_rate,
        recipes=recipes,
    )
    jobs = [
        job for b in bulletins for job in _page_jobs(b, seed, tuple(dpi_choices), tables_per_page)
    ]
    truth_dir = out_dir / "truth"
    truth_dir.mkdir(parents=True, exist_ok=True)
    wanted = {b.file_name for b in bulletins}
    for stale in out_dir.glob("synth_bulletin_*.pdf"):
        if stale.name not in wanted:
            stale.unlink()

    rows: dict[str, list[dict]] = {name: [] for name in TRUTH_SCHEMAS}
    show = progress if progress is not None else len(jobs) > 40
    pdfs: list[Path] = []
    drawn: list[tuple[PageJob, list[tuple[int, int, int, int]]]] = []
    with Progress(disable=not show, transient=True) as bar:
        task = bar.add_task("drawing bulletin pages", total=len(jobs))
        rendered = _render_all(jobs, workers)
        n_pages = Counter(job.file_name for job in jobs)
        by_file: dict[str, list[tuple[PageJob, bytes]]] = {}
        for job, (page_pdf, boxes) in zip(jobs, rendered, strict=True):
            by_file.setdefault(job.file_name, []).append((job, page_pdf))
            drawn.append((job, boxes))
            bar.advance(task)
            if len(by_file[job.file_name]) == n_pages[job.file_name]:
                pdfs.append(_write_pdf(out_dir / job.file_name, by_file.pop(job.file_name)))
    for job, boxes in drawn:
        _truth_rows(job, boxes, rows)
    for rev in revisions:
        rows["truth_revisions"].append(rev.__dict__)
    for name, records in rows.items():
        _write_parquet(truth_frame(name, records), truth_dir / f"{name}.parquet")
    manifest = {
        "generator": "pipeline.synth.scans",
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "params": params,
        "files": {p.name: _sha256(p) for p in pdfs},
        "counts": {name: len(records) for name, records in rows.items()},
    }
    (truth_dir / "corpus.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return ScanCorpus(out_dir, tuple(pdfs), truth_dir, seed, params)


def default_corpus(out_dir: Path, *, progress: bool | None = None) -> ScanCorpus:
    """The default corpus (seed 7, ``DEFAULT_PARAMS``) in ``out_dir``; reused when complete.

    An existing corpus is returned without regenerating when its ``truth/corpus.json``
    has the same generator version, seed and parameters and every PDF and truth file is
    present with the recorded hash.
    """
    out_dir = Path(out_dir)
    seed = 7
    existing = _existing(out_dir, seed, DEFAULT_PARAMS)
    if existing is not None:
        return existing
    p = DEFAULT_PARAMS
    return generate_scans(
        out_dir,
        seed=seed,
        volumes=int(p["volumes"]),  # type: ignore[arg-type]
        tables_per_volume=int(p["tables_per_volume"]),  # type: ignore[arg-type]
        dpi_choices=tuple(p["dpi_choices"]),  # type: ignore[arg-type]
        tables_per_page=int(p["tables_per_page"]),  # type: ignore[arg-type]
        first_issue=tuple(p["first_issue"]),  # type: ignore[arg-type]
        months_between_volumes=int(p["months_between_volumes"]),  # type: ignore[arg-type]
        revision_rate=float(p["revision_rate"]),  # type: ignore[arg-type]
        misprint_rate=float(p["misprint_rate"]),  # type: ignore[arg-type]
        progress=progress,
    )


def _existing(out_dir: Path, seed: int, params: dict[str, object]) -> ScanCorpus | None:
    """The corpus already in ``out_dir`` if it is complete and made the same way."""
    manifest_path = out_dir / "truth" / "corpus.json"
    if not manifest_path.is_file():
        return None
    try:
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError:
        return None
    if (
        manifest.get("generator_version") != GENERATOR_VERSION
        or manifest.get("seed") != seed
        or manifest.get("params") != params
    ):
        return None
    pdfs = []
    for name, digest in sorted(manifest.get("files", {}).items()):
        path = out_dir / name
        if not path.is_file() or _sha256(path) != digest:
            return None
        pdfs.append(path)
    if not all((out_dir / "truth" / f"{name}.parquet").is_file() for name in TRUTH_SCHEMAS):
        return None
    return ScanCorpus(out_dir, tuple(pdfs), out_dir / "truth", seed, dict(params))


def _page_jobs(
    bulletin: Bulletin, seed: int, dpi_choices: tuple[int, ...], tables_per_page: int
) -> list[PageJob]:
    """Paginate a volume: the contents page, then tables packed top to bottom.

    A table with a chart, the second part of a continued table and a table whose unit is
    printed at the head of the page start a page; the first part of a continued table
    ends one. A table that prints the same unit line may join a page-head page, and then
    prints no unit line of its own.
    """
    pages: list[list[StatementTable]] = []
    heads: list[str] = []
    charts: list[bool] = []
    besides: list[list[bool]] = []
    used = BODY_BOTTOM  # forces a new page for the first table
    closed = True
    for table in bulletin.tables:
        height = TableBlock.fit(table).height
        if table.spec.layout.half:
            # a half-width table starts a page on the left; the next one goes beside it
            prev = pages[-1][-1] if pages else None
            if (
                prev is not None
                and prev.spec.layout.half
                and len(pages[-1]) == 1
                and BODY_TOP + height <= BODY_BOTTOM
            ):
                # set in one type size, so that the rows of the two stand at one height
                pt = min(TableBlock.fit(prev).pt, TableBlock.fit(table).pt)
                prev.type_pt = table.type_pt = pt
                pages[-1].append(table)
                besides[-1].append(True)
                used = BODY_TOP + max(TableBlock.fit(t).height for t in pages[-1])
            else:
                pages.append([table])
                heads.append("")
                charts.append(False)
                besides.append([False])
                used = BODY_TOP + height
            closed = False
            continue
        alone = table.chart or table.part == 2 or table.unit_place == "page_head"
        joins = not (alone or closed or not pages or len(pages[-1]) >= tables_per_page)
        if joins and heads[-1]:
            joins = table.unit_place == "line" and table.spec.unit == heads[-1]
            if joins:
                table.unit_place, table.unit = "page_head", ""
                height = TableBlock.fit(table).height
                if used + TABLE_GAP + height > BODY_BOTTOM:
                    table.unit_place, table.unit = "line", table.spec.unit
                    joins = False
        if joins and used + TABLE_GAP + height <= BODY_BOTTOM:
            pages[-1].append(table)
            besides[-1].append(False)
            used += TABLE_GAP + height
        else:
            pages.append([table])
            besides.append([False])
            heads.append(table.spec.unit if table.unit_place == "page_head" else "")
            charts.append(table.chart)
            used = BODY_TOP + height + (CHART_H if table.chart else 0)
            used += PAGE_HEAD_H if heads[-1] else 0
        closed = table.part == 1
    contents = [
        (f"Table {t.spec.table_no}.- {t.statement}", 2 + i)
        for i, page in enumerate(pages)
        for t in page
        if not t.continued
    ]
    jobs = []
    for page_no in range(1, len(pages) + 2):
        rng = np.random.default_rng([seed, stable_key("page", bulletin.volume, page_no)])
        quality = draw_quality(dpi_choices, rng)
        jobs.append(
            PageJob(
                file_name=bulletin.file_name,
                volume=bulletin.volume,
                page_no=page_no,
                kind="contents" if page_no == 1 else "tables",
                issue_title=bulletin.issue_title,
                quality=quality,
                noise_seed=[seed, stable_key("noise", bulletin.volume, page_no)],
                contents=contents if page_no == 1 else [],
                tables=pages[page_no - 2] if page_no > 1 else [],
                page_head=heads[page_no - 2] if page_no > 1 else "",
                chart=charts[page_no - 2] if page_no > 1 else False,
                beside=besides[page_no - 2] if page_no > 1 else [],
            )
        )
    return jobs


def render_page(job: PageJob) -> tuple[bytes, list[tuple[int, int, int, int]]]:
    """Draw and degrade one page; return it as a one-page PDF and the 300 dpi table boxes.

    The page leaves the worker as a finished PDF (image already deflated) so that the
    costly compression runs in the workers and assembling a volume only copies objects.
    """
    boxes: list[tuple[int, int, int, int]] = []
    if job.kind == "contents":
        img = draw_contents(job.issue_title, job.contents)
    else:
        img, draw = blank_page()
        draw_running_head(draw, job.issue_title, job.page_no)
        top = BODY_TOP
        if job.page_head:
            top += draw_page_head(draw, top, job.page_head)
        if job.chart:
            top += draw_chart(draw, top, np.random.default_rng([*job.noise_seed, 1]))
        beside = job.beside or [False] * len(job.tables)
        i = 0
        while i < len(job.tables):
            # a row of the page: one table, or two side by side (the second one beside)
            n = 2 if i + 1 < len(job.tables) and beside[i + 1] else 1
            blocks = [TableBlock.fit(t) for t in job.tables[i : i + n]]
            lines = max(len(b.title_lines) for b in blocks)
            for k, block in enumerate(blocks):
                left = MARGIN + k * (HALF_W + GUTTER)
                # a title over fewer lines starts lower: the heads and rows line up
                drop = (lines - len(block.title_lines)) * block.title_h
                boxes.append(block.draw(draw, top + drop, left))
            top += max(b.height + (lines - len(b.title_lines)) * b.title_h for b in blocks)
            top += TABLE_GAP
            i += n
    scan = degrade(img, job.quality, np.random.default_rng(job.noise_seed))
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_W_PT, height=PAGE_H_PT)
    page.insert_image(page.rect, stream=png_bytes(scan))
    data = doc.tobytes(garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return data, boxes


def _render_all(
    jobs: list[PageJob], workers: int
) -> Iterator[tuple[bytes, list[tuple[int, int, int, int]]]]:
    """Render pages in order, in worker processes when asked (same bytes either way)."""
    if workers <= 1:
        yield from map(render_page, jobs)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(render_page, jobs, chunksize=4)


def _write_pdf(path: Path, pages: list[tuple[PageJob, bytes]]) -> Path:
    """Assemble one-page PDFs into an image-only volume, atomically, with fixed metadata."""
    doc = pymupdf.open()
    for _job, page_pdf in pages:
        with pymupdf.open("pdf", page_pdf) as single:
            doc.insert_pdf(single)
    doc.set_metadata(
        {
            "title": f"Treasury Bulletin {pages[0][0].issue_title} (synthetic)",
            "author": "LedgerForge synth",
            "creator": "pipeline.synth.scans",
            "producer": "pipeline.synth.scans",
            "creationDate": PDF_DATE,
            "modDate": PDF_DATE,
        }
    )
    tmp = path.with_name(f".{path.name}.tmp")
    doc.save(tmp, garbage=4, deflate=True, no_new_id=True)
    doc.close()
    os.replace(tmp, path)
    return path


def _truth_rows(
    job: PageJob, boxes: list[tuple[int, int, int, int]], rows: dict[str, list[dict]]
) -> None:
    """Append one page's truth: the page, its tables, cells and identities."""
    q = job.quality
    rows["truth_pages"].append(
        {
            "file_name": job.file_name,
            "volume": job.volume,
            "page_no": job.page_no,
            "kind": job.kind,
            "dpi": q.dpi,
            "blur_sigma": q.blur_sigma,
            "noise_sd": q.noise_sd,
            "skew_deg": q.skew_deg,
            "n_tables": len(job.tables),
        }
    )
    to_pt = 72 / HI_DPI
    for table_no, (table, box) in enumerate(zip(job.tables, boxes, strict=True)):
        where = {"file_name": job.file_name, "page_no": job.page_no, "table_no": table_no}
        rows["truth_tables"].append(
            {
                **where,
                "volume": job.volume,
                "series_id": table.spec.series_id,
                "title": table.title,
                "statement": table.statement,
                "continued": table.continued,
                "unit": table.unit_printed,
                "unit_words": table.unit_words,
                "unit_multiplier": table.unit_multiplier,
                "unit_source": table.unit_source,
                "page_head": job.page_head,
                "layout": table.tags(),
                "stub_head": table.stub_head,
                "n_rows": len(table.cells),
                "n_cols": len(table.col_paths),
                "row_labels": table.row_labels,
                "col_labels": table.col_labels,
                "has_misprint": table.has_misprint,
                "x0": box[0] * to_pt,
                "y0": box[1] * to_pt,
                "x1": box[2] * to_pt,
                "y1": box[3] * to_pt,
            }
        )
        d = table.spec.decimals
        for row in table.cells:
            for cell in row:
                p = cell.period
                rows["truth_cells"].append(
                    {
                        **where,
                        "volume": job.volume,
                        "row_idx": cell.row_idx,
                        "col_idx": cell.col_idx,
                        "row_label": cell.row_label,
                        "col_label": cell.col_label,
                        "printed_text": cell.text,
                        "printed_value_str": decimal_text(cell.printed, d),
                        "true_value_str": decimal_text(cell.true, d),
                        "is_total": cell.is_total,
                        "misprint": cell.misprint,
                        "revised": cell.revised,
                        "footnote": cell.footnote,
                        "row_label_printed": table.printed_label(cell.row_idx),
                        "row_parent": table.row_parents[cell.row_idx],
                        "period_kind": p.kind if p else None,
                        "period_start": p.start if p else None,
                        "period_end": p.end if p else None,
                        "period_text": p.text if p else None,
                        "dimension": cell.dimension or None,
                    }
                )
        for ident in table.identities:
            rows["truth_identities"].append(
                {
                    **where,
                    "kind": ident.kind,
                    "total_row_idx": ident.total[0],
                    "total_col_idx": ident.total[1],
                    "member_rows": [r for r, _ in ident.members],
                    "member_cols": [c for _, c in ident.members],
                    "holds_as_printed": table.holds_as_printed(ident),
                }
            )


def _write_parquet(df: pl.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    df.write_parquet(tmp, compression="zstd", statistics=False)
    os.replace(tmp, path)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
