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

# --------------------------------------------------------------------------- workflows
# (issue 10, contract section 4: pipeline.draft.workflow_candidates, pipeline.draft.workflows)

WORKFLOW_CANDIDATES_SCHEMA = {
    "candidate_id": pl.String,  # "wf-" + hash of origin, input, reference and steps
    "origin": pl.String,  # thread | chain
    "grounding": pl.String,  # strong (input and revision both in the thread) | partial
    "thread_id": pl.String,  # null for chain candidates
    "message_keys": pl.List(pl.String),  # evidence: the messages with goal sentences / files
    "goal_sentences": pl.List(pl.String),  # as written (unscrubbed; never published as is)
    "chain_id": pl.String,
    "before_id": pl.String,  # workbook_id of the input (earlier version)
    "after_id": pl.String,  # workbook_id of the reference (later version); null: none known
    "steps": pl.Int32,  # k consecutive version steps between input and reference
    "step_ids": pl.List(pl.String),  # "chain_id:step"
    "task_types": pl.List(pl.String),  # Finch task types (union over the steps)
    "business_type": pl.String,
}

WORKFLOW_DRAFTS_SCHEMA = {
    "task_id": pl.String,  # "wt-" + hash of candidate, input and reference
    "candidate_id": pl.String,
    "origin": pl.String,
    "grounding": pl.String,
    "instruction": pl.String,  # scrubbed, in a colleague's voice
    "input_sha256": pl.String,  # workbook_id (original bytes) of the input
    "reference_sha256": pl.String,  # workbook_id of the reference
    "input_xlsx_sha256": pl.String,  # the blob the checker reads (converted .xlsx of an .xls)
    "reference_xlsx_sha256": pl.String,
    "steps": pl.Int32,
    "step_ids": pl.List(pl.String),
    "task_types": pl.List(pl.String),
    "business_type": pl.String,
    "checker": pl.String,  # the oracle program text (oracles/<task_id>.py in a release)
    "n_required": pl.Int32,  # required cells the checker compares
    "summary": pl.String,  # what the reference changes, one paragraph (scrubbed)
    # pipeline.detect.steps.trivial_reason ("formatting only", "date stamp only", …) | null
    "trivial_reason": pl.String,
    "problems": pl.List(pl.String),  # drafter-side reasons it cannot be a task ("rule: detail")
    "drafter": pl.String,
}
