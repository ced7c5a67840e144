"""The ``workflows`` config of a release: Finch-style workflow tasks with their files.

Layout inside a release folder::

    data/workflows/test.parquet         public tasks (WORKFLOW_PUBLIC_SCHEMA)
    files/<sha256>.xlsx                 each task's input workbook (what the agent edits)
    private/workflow_references.parquet the reference of each task (WORKFLOW_PRIVATE_SCHEMA)
    private/files/<sha256>.xlsx         the reference workbooks
    oracles/workflows/<task_id>.py      each task's checker program

A workbook is stored once however many tasks use it, named by the sha256 of its bytes
(the .xlsx the checker reads; an .xls input is published as the .xlsx LibreOffice made
of it, which is what the pipeline read). The checker names the input by that digest and
``oracles.api.workbook_blob`` refuses bytes that do not hash to it, so a release whose
files were swapped fails its audit (:mod:`pipeline.publish.workflow_audit`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl

from pipeline.publish.manifest import sha256_file
from pipeline.store import BlobStore, check_schema

WORKFLOWS_PUBLIC = "data/workflows/test.parquet"
WORKFLOWS_PRIVATE = "private/workflow_references.parquet"
CHECKER_DIR = "oracles/workflows"

WORKFLOW_PUBLIC_SCHEMA = {
    "task_id": pl.String,
    "origin": pl.String,  # thread (a mail thread stated the goal) | chain (workbook versions)
    "grounding": pl.String,  # strong (input and revision both attached in a thread) | partial
    "instruction": pl.String,  # in a colleague's voice, personal data scrubbed
    "task_types": pl.List(pl.String),  # Finch task types
    "business_type": pl.String,
    "steps": pl.Int32,  # consecutive version steps the task spans (>= 2: multi-step)
    "input_file": pl.String,  # release-relative path of the input workbook
    "input_sha256": pl.String,
    "checker": pl.String,  # release-relative path of the checker program
}

WORKFLOW_PRIVATE_SCHEMA = {
    "task_id": pl.String,
    "reference_file": pl.String,  # release-relative path of the reference workbook
    "reference_sha256": pl.String,
    "checker_sha256": pl.String,
    "summary": pl.String,  # what the reference changes (scrubbed)
}


def _readable(row: dict, side: str) -> str:
    """The blob the checker reads for ``side`` (input / reference): the .xlsx."""
    return row.get(f"{side}_xlsx_sha256") or row[f"{side}_sha256"]


def write_workflows(
    staging: Path, accepted: pl.DataFrame, blobs: BlobStore
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Write the accepted workflow tasks, their files and checkers under ``staging``;
    return the public and private frames written."""
    public, private = [], []
    for row in accepted.sort("task_id").iter_rows(named=True):
        task_id = row["task_id"]
        input_sha, reference_sha = _readable(row, "input"), _readable(row, "reference")
        input_rel, reference_rel = f"files/{input_sha}.xlsx", f"private/files/{reference_sha}.xlsx"
        for sha, rel in ((input_sha, input_rel), (reference_sha, reference_rel)):
            target = staging / rel
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(blobs.local_path(sha), target)
                if sha256_file(target) != sha:
                    raise ValueError(f"blob {sha}: its bytes no longer hash to its name")
        checker_rel = f"{CHECKER_DIR}/{task_id}.py"
        checker_path = staging / checker_rel
        checker_path.parent.mkdir(parents=True, exist_ok=True)
        checker_path.write_text(row["checker"])
        public.append(
            {
                "task_id": task_id,
                "origin": row.get("origin"),
                "grounding": row.get("grounding"),
                "instruction": row["instruction"],
                "task_types": row.get("task_types") or [],
                "business_type": row.get("business_type"),
                "steps": row.get("steps"),
                "input_file": input_rel,
                "input_sha256": input_sha,
                "checker": checker_rel,
            }
        )
        private.append(
            {
                "task_id": task_id,
                "reference_file": reference_rel,
                "reference_sha256": reference_sha,
                "checker_sha256": sha256_file(checker_path),
                "summary": row.get("summary"),
            }
        )
    frames = (
        check_schema(
            pl.DataFrame(public, schema=WORKFLOW_PUBLIC_SCHEMA),
            WORKFLOW_PUBLIC_SCHEMA,
            WORKFLOWS_PUBLIC,
        ),
        check_schema(
            pl.DataFrame(private, schema=WORKFLOW_PRIVATE_SCHEMA),
            WORKFLOW_PRIVATE_SCHEMA,
            WORKFLOWS_PRIVATE,
        ),
    )
    for rel, frame in zip((WORKFLOWS_PUBLIC, WORKFLOWS_PRIVATE), frames, strict=True):
        (staging / rel).parent.mkdir(parents=True, exist_ok=True)
        frame.write_parquet(staging / rel, compression="zstd")
    return frames
