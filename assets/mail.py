"""Mail and spreadsheets (the Finch side): mailbox -> messages -> threads; attachments and
spreadsheet corpora -> workbooks -> version chains -> diffs -> workflow candidates.

Every asset here only wires a ``pipeline`` function into Dagster and reports counts.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl

from assets.resources import LedgerForge, markdown_rows, rejection_rules
from pipeline.detect.steps import (
    VERSION_DIFFS_SCHEMA,
    VERSION_STEPS_SCHEMA,
    build_version_diffs,
    trivial_reason,
)
from pipeline.detect.threads import THREADS_SCHEMA, build_threads
from pipeline.detect.versions import VERSION_CHAINS_SCHEMA, build_version_chains
from pipeline.detect.workbook_anchors import WORKBOOK_ANCHORS_SCHEMA, find_workbook_anchors
from pipeline.draft.schemas import WORKFLOW_CANDIDATES_SCHEMA, WORKFLOW_DRAFTS_SCHEMA
from pipeline.draft.workflow_candidates import build_workflow_candidates
from pipeline.draft.workflow_llm import draft_workflows_llm
from pipeline.draft.workflows import blob_workbook_loader, draft_workflows
from pipeline.ingest.mail import ingest_mail
from pipeline.ingest.mail.schemas import ATTACHMENTS_SCHEMA, MESSAGES_SCHEMA
from pipeline.ingest.workbook_sources import (
    WORKBOOK_SOURCES_SCHEMA,
    ingest_workbook_sources,
    sources_from_attachments,
    sources_from_folder,
)
from pipeline.ingest.workbooks import CELLS_SCHEMA, SHEETS_SCHEMA, WORKBOOKS_SCHEMA
from pipeline.llm.costs import log_progress
from pipeline.synth.mailbox import default_mail_corpus
from pipeline.validate.workflows import WORKFLOW_TASKS_SCHEMA, validate_workflow_drafts

GROUP = "mail"


def _converted(workbooks: pl.DataFrame) -> dict[str, str]:
    """workbook_id -> the .xlsx blob LibreOffice made of it (for .xls workbooks)."""
    pairs = workbooks.select("workbook_id", "converted_sha256").iter_rows()
    return {w: c for w, c in pairs if c is not None}


def _mail_sources(lf: LedgerForge) -> list[tuple[str, Path]]:
    if lf.own_corpora:
        return [(name, Path(path)) for name, path in lf.mail_source_pairs()]
    return [("synth-mail", lf.paths.corpus / "mail" / "maildir")]


def _spreadsheet_sources(lf: LedgerForge) -> list[tuple[str, Path]]:
    if lf.own_corpora:
        return [(name, Path(path)) for name, path in lf.spreadsheet_source_pairs()]
    return [("synth-spreadsheets", lf.paths.corpus / "mail" / "spreadsheets")]


@dg.asset(
    group_name=GROUP,
    description="The embedded default mailbox and spreadsheet corpus (seeded, with ground truth).",
)
def mail_corpus(lf: LedgerForge) -> dg.MaterializeResult:
    if lf.own_corpora:
        return dg.MaterializeResult(metadata={"skipped": "corpora configured"})
    corpus = default_mail_corpus(lf.paths.corpus / "mail")
    return dg.MaterializeResult(metadata={"folder": str(corpus.root), "seed": corpus.seed})


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            "messages",
            group_name=GROUP,
            deps=[mail_corpus],
            description="One row per unique message (duplicates merged, every source kept).",
        ),
        dg.AssetSpec(
            "attachments",
            group_name=GROUP,
            deps=[mail_corpus],
            description="MIME attachments, bytes in the blob store by sha256.",
        ),
    ]
)
def mail(context, lf: LedgerForge):
    wh = lf.warehouse
    result = ingest_mail(_mail_sources(lf), lf.blobs, progress=context.log.info)
    wh.replace("messages", result.messages, MESSAGES_SCHEMA)
    wh.replace("attachments", result.attachments, ATTACHMENTS_SCHEMA)
    wh.write("quarantine", result.intake.quarantine_frame(), part="mail")
    wh.write("intake", result.intake.intake_frame(), part="mail")
    reasons = result.intake.quarantine_frame()
    yield dg.MaterializeResult(
        asset_key="messages",
        metadata={
            "files_discovered": result.intake.discovered,
            "files_ingested": len(result.intake.ingested),
            "files_quarantined": len(result.intake.quarantined),
            "messages": len(result.messages),
            "duplicates_merged": int(
                (result.messages["source_paths"].list.len() - 1).clip(lower_bound=0).sum() or 0
            ),
            "quarantine": dg.MetadataValue.md(markdown_rows(reasons, ["path", "reason"])),
        },
    )
    yield dg.MaterializeResult(
        asset_key="attachments",
        metadata={
            "attachments": len(result.attachments),
            "spreadsheets": int(result.attachments["is_spreadsheet"].sum() or 0),
        },
    )


@dg.asset(group_name=GROUP, deps=["messages"], description="Messages grouped into threads.")
def threads(lf: LedgerForge) -> dg.MaterializeResult:
    frame = build_threads(lf.warehouse.read("messages", MESSAGES_SCHEMA))
    lf.warehouse.replace("threads", frame, THREADS_SCHEMA)
    sizes = frame.group_by("thread_id").len()
    return dg.MaterializeResult(
        metadata={
            "threads": len(sizes),
            "threads_with_replies": int((sizes["len"] > 1).sum()),
            "linked_by": dg.MetadataValue.md(
                markdown_rows(
                    frame.group_by("linked_by").len().sort("linked_by"), ["linked_by", "len"]
                )
            ),
        }
    )


@dg.multi_asset(
    specs=[
        dg.AssetSpec(name, group_name=GROUP, deps=["attachments", mail_corpus], description=text)
        for name, text in (
            ("workbooks", "Every spreadsheet attachment and corpus file, read (or quarantined)."),
            ("sheets", "Sheets with their charts, pivots, merges and formats."),
            ("cells", "One row per non-empty cell: value, type, formula, number format."),
            ("workbook_sources", "Every place a workbook came from (mails, corpus files)."),
        )
    ]
)
def workbook_corpus(context, lf: LedgerForge):
    wh = lf.warehouse
    items = sources_from_attachments(
        wh.read("attachments", ATTACHMENTS_SCHEMA), wh.read("messages", MESSAGES_SCHEMA)
    )
    for _name, folder in _spreadsheet_sources(lf):
        items += sources_from_folder(folder)
    result = ingest_workbook_sources(items, lf.blobs, progress=context.log.info)
    wh.replace("workbooks", result.workbooks, WORKBOOKS_SCHEMA)
    wh.replace("sheets", result.sheets, SHEETS_SCHEMA)
    wh.replace("cells", result.cells, CELLS_SCHEMA)
    wh.replace("workbook_sources", result.sources, WORKBOOK_SOURCES_SCHEMA)
    wh.write("quarantine", result.intake.quarantine_frame(), part="workbooks")
    wh.write("intake", result.intake.intake_frame(), part="workbooks")
    reasons = result.intake.quarantine_frame()
    yield dg.MaterializeResult(
        asset_key="workbooks",
        metadata={
            "discovered": result.intake.discovered,
            "ingested": len(result.intake.ingested),
            "quarantined": len(result.intake.quarantined),
            "workbooks": len(result.workbooks),
            "quarantine": dg.MetadataValue.md(markdown_rows(reasons, ["path", "reason"])),
        },
    )
    yield dg.MaterializeResult(asset_key="sheets", metadata={"sheets": len(result.sheets)})
    yield dg.MaterializeResult(asset_key="cells", metadata={"cells": len(result.cells)})
    yield dg.MaterializeResult(
        asset_key="workbook_sources", metadata={"sources": len(result.sources)}
    )


@dg.asset(
    group_name=GROUP,
    deps=["workbooks", "sheets", "cells", "workbook_sources", "messages"],
    description="Families of the same workbook across versions, with the evidence of each link.",
)
def version_chains(lf: LedgerForge) -> dg.MaterializeResult:
    wh = lf.warehouse
    frame = build_version_chains(
        wh.read("workbooks", WORKBOOKS_SCHEMA),
        wh.read("sheets", SHEETS_SCHEMA),
        wh.read("cells", CELLS_SCHEMA),
        wh.read("workbook_sources", WORKBOOK_SOURCES_SCHEMA),
        wh.read("messages", MESSAGES_SCHEMA),
    )
    wh.replace("version_chains", frame, VERSION_CHAINS_SCHEMA)
    lengths = frame.group_by("chain_id").len()
    return dg.MaterializeResult(
        metadata={
            "chains": len(lengths),
            "links": int((lengths["len"] - 1).sum() or 0),
            "longest": int(lengths["len"].max() or 0),
        }
    )


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            "version_diffs",
            group_name=GROUP,
            deps=["version_chains", "workbooks"],
            description="Aligned diffs between consecutive versions.",
        ),
        dg.AssetSpec(
            "version_steps",
            group_name=GROUP,
            deps=["version_chains", "workbooks"],
            description="Each step classified into Finch task types, with a summary.",
        ),
    ]
)
def version_diffs(lf: LedgerForge):
    wh = lf.warehouse
    read = blob_workbook_loader(lf.blobs, _converted(wh.read("workbooks", WORKBOOKS_SCHEMA)))
    diffs, steps = build_version_diffs(wh.read("version_chains", VERSION_CHAINS_SCHEMA), read)
    wh.replace("version_diffs", diffs, VERSION_DIFFS_SCHEMA)
    wh.replace("version_steps", steps, VERSION_STEPS_SCHEMA)
    yield dg.MaterializeResult(asset_key="version_diffs", metadata={"edits": len(diffs)})
    trivial = steps.filter(pl.col("trivial_reason").is_not_null())
    yield dg.MaterializeResult(
        asset_key="version_steps",
        metadata={"steps": len(steps), "trivial": len(trivial)},
    )


@dg.asset(
    group_name=GROUP,
    deps=["threads", "messages", "attachments", "workbook_sources", "version_steps"],
    description="Threads that state a goal over spreadsheets, and version-chain steps.",
)
def workflow_candidates(lf: LedgerForge) -> dg.MaterializeResult:
    wh = lf.warehouse
    frame = build_workflow_candidates(
        wh.read("threads", THREADS_SCHEMA),
        wh.read("messages", MESSAGES_SCHEMA),
        wh.read("attachments", ATTACHMENTS_SCHEMA),
        wh.read("workbook_sources", WORKBOOK_SOURCES_SCHEMA),
        wh.read("version_chains", VERSION_CHAINS_SCHEMA),
        wh.read("version_steps", VERSION_STEPS_SCHEMA),
    )
    wh.replace("workflow_candidates", frame, WORKFLOW_CANDIDATES_SCHEMA)
    return dg.MaterializeResult(
        metadata={
            "candidates": len(frame),
            "multi_step": int((frame["steps"] >= 2).sum() or 0),
            "by_grounding": dg.MetadataValue.md(
                markdown_rows(
                    frame.group_by("grounding").len().sort("grounding"), ["grounding", "len"]
                )
            ),
        }
    )


@dg.asset(
    group_name=GROUP,
    deps=["workflow_candidates", "version_steps", "workbooks", "messages", "threads"],
    description="One workflow draft per candidate: instruction, input, reference, checker.",
)
def workflow_drafts(context, lf: LedgerForge) -> dg.MaterializeResult:
    lf.check_llm_keys("drafter")  # a missing API key fails before any work
    wh = lf.warehouse
    converted = _converted(wh.read("workbooks", WORKBOOKS_SCHEMA))
    load = blob_workbook_loader(lf.blobs, converted)
    candidates = wh.read("workflow_candidates", WORKFLOW_CANDIDATES_SCHEMA)
    messages = wh.read("messages", MESSAGES_SCHEMA)
    threads = wh.read("threads", THREADS_SCHEMA)
    frame = draft_workflows(
        candidates,
        load,
        messages=messages,
        threads=threads,
        converted=converted,
        version_steps=wh.read("version_steps", VERSION_STEPS_SCHEMA),
        trivial=trivial_reason,
    )
    metadata: dict = {}
    llm = lf.llm("drafter")
    if llm is not None:  # the model writes the instruction; the checker stays the template's
        frame, rewrites = draft_workflows_llm(
            frame,
            llm,
            load,
            candidates=candidates,
            messages=messages,
            threads=threads,
            repairs=lf.llm_repair_rounds,
            progress=log_progress(context.log.info),
        )
        outcomes = rewrites.group_by("status").len().sort("status")
        metadata.update({f"instructions_{s}": n for s, n in outcomes.iter_rows()})
        metadata.update(llm.metadata())
    wh.replace("workflow_drafts", frame, WORKFLOW_DRAFTS_SCHEMA)
    return dg.MaterializeResult(
        metadata={
            "drafts": len(frame),
            "with_checker": int(frame["checker"].is_not_null().sum()),
            "drafter": lf.role("drafter"),
            **metadata,
        }
    )


@dg.asset(
    group_name=GROUP,
    deps=["workflow_drafts"],
    description="Workflow drafts after validation: the reference passes its checker, the "
    "input fails it, nothing trivial, no personal data.",
)
def workflow_tasks(context, lf: LedgerForge) -> dg.MaterializeResult:
    wh = lf.warehouse
    frame = validate_workflow_drafts(
        wh.read("workflow_drafts", WORKFLOW_DRAFTS_SCHEMA), lf.blobs, workers=lf.workers
    )
    wh.replace("workflow_tasks", frame, WORKFLOW_TASKS_SCHEMA)
    accepted = frame.filter(pl.col("status") == "accepted")
    context.log.info(f"workflow tasks: {len(accepted)} accepted of {len(frame)}")
    return dg.MaterializeResult(
        metadata={
            "accepted": len(accepted),
            "accepted_multi_step": int((accepted["steps"] >= 2).sum() or 0),
            "rejected": len(frame) - len(accepted),
            "rejection_rules": dg.MetadataValue.md(rejection_rules(frame)),
        }
    )


@dg.asset(
    group_name=GROUP,
    deps=["cells"],
    description="Workbook cells computed by =SUM over one row or column, checked against "
    "the recomputed sum of their members (confirmed or stale).",
)
def workbook_anchors(lf: LedgerForge) -> dg.MaterializeResult:
    frame = find_workbook_anchors(lf.warehouse.read("cells", CELLS_SCHEMA))
    lf.warehouse.replace("workbook_anchors", frame, WORKBOOK_ANCHORS_SCHEMA)
    status = frame.group_by("status").len()
    return dg.MaterializeResult(
        metadata={
            "anchors": len(frame),
            "workbooks": frame["workbook_id"].n_unique(),
            **dict(status.iter_rows()),
        }
    )
