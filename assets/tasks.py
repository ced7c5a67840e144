"""Tasks: anchored cells -> drafts -> validated tasks."""

from __future__ import annotations

import dagster as dg
import polars as pl

from assets.resources import LedgerForge, markdown_rows, rejection_rules
from pipeline.detect.anchors import find_anchors
from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA, REPAIRS_SCHEMA
from pipeline.detect.versions import VERSION_CHAINS_SCHEMA
from pipeline.detect.workbook_anchors import WORKBOOK_ANCHORS_SCHEMA
from pipeline.draft.llm import draft_with_llm
from pipeline.draft.rewrite import REWRITES_SCHEMA, rewrite_drafts
from pipeline.draft.schemas import DRAFTS_SCHEMA
from pipeline.draft.template import draft_tasks
from pipeline.draft.workbook_qa import draft_workbook_qa, previous_versions
from pipeline.ingest.workbooks import CELLS_SCHEMA, SHEETS_SCHEMA, WORKBOOKS_SCHEMA
from pipeline.llm.costs import log_progress
from pipeline.validate.contamination import build_contamination_index
from pipeline.validate.schemas import CONTAMINATION_INDEX_SCHEMA, TASKS_SCHEMA
from pipeline.validate.tasks import validate_drafts

GROUP = "tasks"


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            "identities",
            group_name=GROUP,
            deps=["tables", "table_cells"],
            description="Every total/subtotal identity of every table, checked.",
        ),
        dg.AssetSpec(
            "anchored_cells",
            group_name=GROUP,
            deps=["tables", "table_cells"],
            description="Cells confirmed (or contradicted) by their table's totals.",
        ),
        dg.AssetSpec(
            "repairs",
            group_name=GROUP,
            deps=["tables", "table_cells"],
            description="OCR digit confusions repaired by the identities.",
        ),
    ]
)
def anchors(lf: LedgerForge):
    wh = lf.warehouse
    result = find_anchors(wh.read("tables"), wh.read("table_cells"))
    wh.replace("identities", result.identities, IDENTITIES_SCHEMA)
    wh.replace("anchored_cells", result.anchored_cells, ANCHORED_CELLS_SCHEMA)
    wh.replace("repairs", result.repairs, REPAIRS_SCHEMA)
    ids = result.identities
    yield dg.MaterializeResult(
        asset_key="identities",
        metadata={"identities": len(ids), "holding": int(ids["holds"].sum() or 0)},
    )
    status = result.anchored_cells.group_by("status").len()
    yield dg.MaterializeResult(
        asset_key="anchored_cells",
        metadata={"cells": len(result.anchored_cells), **dict(status.iter_rows())},
    )
    yield dg.MaterializeResult(asset_key="repairs", metadata={"repairs": len(result.repairs)})


@dg.asset(
    group_name=GROUP,
    deps=[
        "anchored_cells",
        "tables",
        "table_cells",
        "documents",
        "workbook_anchors",
        "workbooks",
        "sheets",
        "cells",
        "version_chains",
    ],
    description="One draft per candidate and task kind, with its oracle program: table "
    "cells anchored by their totals (template or LLM drafter, optional LLM rewriter), and "
    "workbook cells computed by a SUM.",
)
def drafts(context, lf: LedgerForge) -> dg.MaterializeResult:
    drafter, rewriter = lf.role("drafter"), lf.role("rewriter")
    lf.check_llm_keys("drafter", "rewriter")  # a missing key fails before any work
    wh = lf.warehouse
    metadata: dict = {"drafter": drafter, "rewriter": rewriter}
    if drafter == "none":
        frame = pl.DataFrame(schema=DRAFTS_SCHEMA)
    elif drafter == "template":
        frame = draft_tasks(
            wh.read("anchored_cells"),
            wh.read("tables"),
            wh.read("documents"),
            seed=lf.seed,
            table_cells=wh.read("table_cells"),
        )
    else:
        llm = lf.llm("drafter")
        result = draft_with_llm(
            llm,
            wh.read("anchored_cells"),
            wh.read("tables"),
            wh.read("documents"),
            lf.paths.warehouse,
            table_cells=wh.read("table_cells"),
            seed=lf.seed,
            repair_rounds=lf.llm_repair_rounds,
            workers=lf.workers,
            progress=log_progress(context.log.info, every_s=10.0),
        )
        frame = result.drafts
        metadata.update(_llm_metadata("drafter", llm.stats))
        metadata.update({f"drafter_{k}": v for k, v in result.stats.items()})
    if drafter != "none":
        workbook_qa = draft_workbook_qa(
            wh.read("workbook_anchors", WORKBOOK_ANCHORS_SCHEMA),
            wh.read("workbooks", WORKBOOKS_SCHEMA),
            wh.read("sheets", SHEETS_SCHEMA),
            wh.read("cells", CELLS_SCHEMA),
            previous_versions(wh.read("version_chains", VERSION_CHAINS_SCHEMA)),
            seed=lf.seed,
        )
        frame = pl.concat([frame, workbook_qa])
    if rewriter not in ("none", "template"):
        spent = float(metadata.get("drafter_llm_cost_usd", 0.0))
        budget = lf.budget_usd
        llm = lf.llm("rewriter", None if budget is None else max(budget - spent, 0.0))
        frame, rewrites = rewrite_drafts(
            llm, frame, lf.paths.warehouse, progress=log_progress(context.log.info, every_s=10.0)
        )
        wh.replace("rewrites", rewrites, REWRITES_SCHEMA)
        metadata.update(_llm_metadata("rewriter", llm.stats))
        metadata["rewrites_accepted"] = int(rewrites["accepted"].sum())
        metadata["rewrites_rejected"] = len(rewrites) - metadata["rewrites_accepted"]
    elif wh.exists("rewrites"):  # no rewriter this build: no stale log of an earlier one
        wh.replace("rewrites", pl.DataFrame(schema=REWRITES_SCHEMA), REWRITES_SCHEMA)
    wh.replace("drafts", frame, DRAFTS_SCHEMA)
    by_kind = frame.group_by("kind").len().sort("kind")
    return dg.MaterializeResult(
        metadata={"drafts": len(frame), **dict(by_kind.iter_rows()), **metadata}
    )


def _llm_metadata(role: str, stats: dict) -> dict:
    """Requests, cache hits, tokens and money of a role's model calls, for the Dagster UI."""
    keys = ("requests", "cache_hits", "errors", "input_tokens", "output_tokens")
    out = {f"{role}_llm_{k}": int(stats.get(k) or 0) for k in keys}
    out[f"{role}_llm_cost_usd"] = float(stats.get("cost_usd") or 0.0)
    out[f"{role}_llm_budget_stopped"] = bool(stats.get("budget_stopped"))
    return out


@dg.asset(
    group_name=GROUP,
    deps=["table_cells", "words"],
    description="Every number printed on every page of the archive.",
)
def contamination_index(lf: LedgerForge) -> dg.MaterializeResult:
    index = build_contamination_index(lf.paths.warehouse)
    lf.warehouse.replace("contamination_index", index, CONTAMINATION_INDEX_SCHEMA)
    return dg.MaterializeResult(metadata={"numbers": len(index)})


@dg.asset(
    group_name=GROUP,
    deps=["drafts", "contamination_index", "anchored_cells", "cells"],
    description="Drafts after mechanical validation: accepted or rejected with every reason.",
)
def tasks(lf: LedgerForge) -> dg.MaterializeResult:
    wh = lf.warehouse
    frame = validate_drafts(
        wh.read("drafts", DRAFTS_SCHEMA),
        lf.paths.warehouse,
        wh.read("contamination_index", CONTAMINATION_INDEX_SCHEMA),
        workers=lf.workers,
    )
    wh.replace("tasks", frame, TASKS_SCHEMA)
    accepted = frame.filter(pl.col("status") == "accepted")
    return dg.MaterializeResult(
        metadata={
            "accepted": len(accepted),
            "rejected": len(frame) - len(accepted),
            "accepted_by_kind": dg.MetadataValue.md(
                markdown_rows(accepted.group_by("kind").len().sort("kind"), ["kind", "len"])
            ),
            "rejection_rules": dg.MetadataValue.md(rejection_rules(frame)),
        }
    )
