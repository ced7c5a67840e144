"""Parquet contracts of the validation assets: ``contamination_index`` and ``tasks``."""

from __future__ import annotations

import polars as pl

from pipeline.draft.schemas import DRAFTS_SCHEMA

CONTAMINATION_INDEX_SCHEMA = {
    "source": pl.String,  # table_cell | word
    "doc_id": pl.String,
    "page_no": pl.Int32,
    "x0": pl.Float64,
    "y0": pl.Float64,
    "x1": pl.Float64,
    "y1": pl.Float64,
    "text": pl.String,  # as printed
    "number": pl.Decimal(38, 6),  # absolute value
}

TASKS_SCHEMA = {
    **DRAFTS_SCHEMA,
    "status": pl.String,  # accepted | rejected
    "reasons": pl.List(pl.String),  # every rejection reason, "<rule>: <detail>"
    "answer": pl.String,  # the oracle's key; null when the oracle did not emit
    "lo": pl.String,  # the oracle's acceptance interval, inclusive
    "hi": pl.String,
    "oracle_status": pl.String,  # ok | rejected | error | timeout | memory | killed | missing
    "oracle_reads": pl.String,  # JSON list of the reads the oracle made
    "oracle_checks": pl.String,  # JSON list of the identity checks it made
}

# The rules, by the name that starts each reason.
RULES = (
    "no_oracle",
    "oracle_failed",
    "no_known_wrong",
    "known_wrong_inside_interval",
    "key_outside_interval",
    "interval_too_wide",
    "drafter_key_mismatch",
    "duplicate",
    "near_duplicate",
    "ambiguous_question",
    "contaminated",
    "unconfirmed_input",
    "unreadable_label",
    "question_mismatch",
)
