"""A flawless reading of a generated corpus, straight from its ground truth.

``documents``, ``tables`` and ``table_cells`` exactly as a perfect OCR and table stage
would produce them from the printed pages (printed numbers, misprints included). It
lets the stages after OCR (anchors, drafts, validation) be measured on their own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl

from pipeline.ingest.schemas import DOCUMENTS_SCHEMA
from pipeline.synth.truth import read_truth
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA
from pipeline.tables.semantics import annotate


def truth_doc_id(file_name: str) -> str:
    """A stable document id for a generated volume (its file name hashed)."""
    return hashlib.sha256(file_name.encode()).hexdigest()[:16]


def _conform(frame: pl.DataFrame, schema: dict) -> pl.DataFrame:
    return frame.select(
        [
            pl.col(c).cast(t) if c in frame.columns else pl.lit(None, t).alias(c)
            for c, t in schema.items()
        ]
    )


def perfect_reading(truth_dir: str | Path) -> dict[str, pl.DataFrame]:
    """``documents``, ``tables``, ``table_cells`` (warehouse schemas) and ``truth_cells``."""
    truth_tables = read_truth(truth_dir, "truth_tables")
    truth_cells = read_truth(truth_dir, "truth_cells")
    volumes = truth_tables.select("file_name", "volume").unique(maintain_order=True)
    documents = volumes.sort("file_name").with_columns(
        doc_id=pl.col("file_name").map_elements(truth_doc_id, return_dtype=pl.String),
        corpus=pl.lit("synth-scans"),
        source_path=pl.col("file_name"),
        n_pages=pl.lit(0),
        has_text_layer=pl.lit(False),
        text_layer_policy=pl.lit("auto"),
    )
    documents = _conform(
        documents.with_columns(file_sha256=pl.col("doc_id"), blob_sha256=pl.col("doc_id")),
        DOCUMENTS_SCHEMA,
    )
    ids = documents.select("file_name", "doc_id")
    table_id = pl.format("{}:{}:{}", "doc_id", "page_no", "table_no")
    tables = truth_tables.join(ids, on="file_name").with_columns(
        table_id=table_id, quality=pl.lit("clear")
    )
    printed = pl.col("printed_value_str")
    cells = truth_cells.join(ids, on="file_name").with_columns(
        table_id=table_id,
        text=pl.col("printed_text"),
        is_number=pl.lit(True),
        value=printed.cast(pl.Float64),
        value_str=printed,
        negative=printed.str.starts_with("-"),
        is_dash=pl.col("printed_text").str.contains(r"^\s*[-\u2014.]+\s*$"),
        conf=pl.lit(95.0),
        x0=700.0 + 300 * pl.col("col_idx"),
        y0=400.0 + 50 * pl.col("row_idx"),
        x1=900.0 + 300 * pl.col("col_idx"),
        y1=440.0 + 50 * pl.col("row_idx"),
    )
    # what a perfect table stage reads off the page: the unit line under the title (the
    # title, a column head or the page head carry the unit in the other layouts)
    unit_line = (
        pl.when(pl.col("unit_source") == "unit_line").then(pl.col("unit")).otherwise(pl.lit(""))
    )
    tables = tables.with_columns(
        unit=unit_line,
        unit_printed=unit_line,
        page_head=pl.when(pl.col("page_head") != "")
        .then(pl.concat_list(pl.col("page_head")))
        .otherwise(pl.lit([], pl.List(pl.String))),
    )
    tables, cells = annotate(tables, cells)
    return {
        "documents": documents,
        "tables": _conform(tables, TABLES_SCHEMA),
        "table_cells": _conform(cells, TABLE_CELLS_SCHEMA),
        "truth_cells": truth_cells,
    }
