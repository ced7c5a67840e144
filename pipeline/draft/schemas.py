"""Parquet contract of the ``drafts`` asset: one drafted task per candidate and kind.

A draft is untrusted until validated: its ``oracle_source`` is run in the sandbox and
its ``expected_answer`` (what the drafter computed, when it could) is only a cross-check.
"""

from __future__ import annotations

import polars as pl

from pipeline.publish.schemas import KNOWN_WRONG

# One table cell an oracle reads, by position (labels kept for people and prompts).
SOURCE_REF = pl.Struct(
    {
        "doc_id": pl.String,
        "page_no": pl.Int32,
        "table_no": pl.Int32,
        "row_idx": pl.Int32,
        "col_idx": pl.Int32,
        "row_label": pl.String,
        "col_label": pl.String,
        "period": pl.String,  # the cell's period as the question states it
    }
)

DRAFTS_SCHEMA = {
    "task_id": pl.String,  # stable hash of kind + sorted sources
    "kind": pl.String,  # one of pipeline.draft.kinds.TASK_KINDS
    "question": pl.String,
    "oracle_source": pl.String,  # the oracle program (Python text); null = no oracle
    "known_wrong": pl.List(KNOWN_WRONG),  # values rounded to `precision`
    "unit": pl.String,  # e.g. "millions of dollars", "percent"
    "precision": pl.Int32,  # decimal places asked for
    "sources": pl.List(SOURCE_REF),  # every cell the oracle reads
    "source_docs": pl.List(pl.String),  # file names of the volumes read
    "multi_document": pl.Boolean,
    "quality": pl.String,  # worst scan-quality tag among the pages read
    "expected_answer": pl.String,  # the drafter's own key (cross-check); null if unknown
    "problems": pl.List(pl.String),  # why the question cannot be stated exactly (rule: detail)
    "drafter": pl.String,  # e.g. "template-v2"
    "tokens": pl.Int64,
    "cost": pl.Float64,  # US dollars
}
