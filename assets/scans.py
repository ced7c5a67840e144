"""Scanned statements: default corpus -> documents -> pages -> words -> tables."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from assets.resources import LedgerForge, markdown_rows
from pipeline.ingest.ocr import build_words
from pipeline.ingest.scans import build_pages, ingest_documents
from pipeline.synth.scans import default_corpus as generate_default_corpus
from pipeline.tables.layout import build_tables
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA

GROUP = "scans"


def scanned_corpora(lf: LedgerForge) -> list[tuple[str, Path]]:
    """The configured scanned corpora; the generated one only when no corpus of any kind
    is configured (a build of one's own mailbox publishes no synthetic statements)."""
    if lf.own_corpora:
        return [(name, Path(path)) for name, path in lf.scan_source_pairs()]
    return [("synth-scans", lf.paths.corpus / "scans")]


@dg.asset(
    group_name=GROUP, description="The embedded default corpus of scanned statements (seeded)."
)
def default_corpus(lf: LedgerForge) -> dg.MaterializeResult:
    if lf.own_corpora:
        return dg.MaterializeResult(metadata={"skipped": "corpora configured"})
    corpus = generate_default_corpus(lf.paths.corpus / "scans", progress=False)
    return dg.MaterializeResult(
        metadata={"folder": str(corpus.root), "volumes": len(corpus.pdfs), "seed": corpus.seed}
    )


@dg.asset(
    group_name=GROUP,
    deps=[default_corpus],
    description="Every discovered PDF, ingested or quarantined.",
)
def documents(lf: LedgerForge) -> dg.MaterializeResult:
    sources = scanned_corpora(lf)
    result = ingest_documents(
        [(name, Path(path)) for name, path in sources],
        lf.warehouse,
        lf.blobs,
        text_layer_policy=lf.policy,
    )
    reasons = result.intake.quarantine_frame()
    return dg.MaterializeResult(
        metadata={
            "discovered": result.discovered,
            "ingested": result.ingested,
            "quarantined": result.quarantined,
            "quarantine": dg.MetadataValue.md(markdown_rows(reasons, ["path", "reason"])),
        }
    )


@dg.asset(
    group_name=GROUP,
    deps=[documents],
    description="Rendered page images with DPI, blur score and quality tag.",
)
def pages(context, lf: LedgerForge) -> dg.MaterializeResult:
    table = build_pages(
        lf.warehouse,
        lf.blobs,
        render_dpi=lf.render_dpi,
        workers=lf.workers,
        log=context.log.info,
    )
    counts = table.group_by("quality").len().sort("quality")
    return dg.MaterializeResult(
        metadata={
            "pages": len(table),
            **{f"quality_{q}": n for q, n in counts.iter_rows()},
        }
    )


@dg.asset(
    group_name=GROUP,
    deps=[pages],
    description="OCR word boxes (cached by page-image hash) or trusted text-layer words.",
)
def words(context, lf: LedgerForge) -> dg.MaterializeResult:
    result = build_words(
        lf.warehouse, lf.blobs, workers=lf.workers, progress=False, log=context.log.info
    )
    return dg.MaterializeResult(
        metadata={
            "pages": result.pages,
            "ocr_cached": result.cached,
            "ocr_run": result.ocrd,
            "text_layer_pages": result.text_layer,
            "failed": result.failed,
            "words": result.words,
        }
    )


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            "tables", group_name=GROUP, deps=[words], description="Tables rebuilt from word boxes."
        ),
        dg.AssetSpec(
            "table_cells",
            group_name=GROUP,
            deps=[words],
            description="One row per body cell, numbers parsed.",
        ),
    ],
)
def tables_and_cells(lf: LedgerForge):
    wh = lf.warehouse
    tables, cells = build_tables(wh.read("words"), wh.read("pages"))
    wh.replace("tables", tables, TABLES_SCHEMA)
    wh.replace("table_cells", cells, TABLE_CELLS_SCHEMA)
    yield dg.MaterializeResult(asset_key="tables", metadata={"tables": len(tables)})
    yield dg.MaterializeResult(
        asset_key="table_cells",
        metadata={"cells": len(cells), "numeric_cells": int(cells["is_number"].sum() or 0)},
    )
