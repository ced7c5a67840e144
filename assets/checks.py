"""Asset checks: the invariants a release must never break."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg
import polars as pl

from assets.resources import LedgerForge, markdown_rows
from assets.scans import scanned_corpora
from pipeline.ingest.scans import discover_pdfs
from pipeline.publish.audit import audit_release
from pipeline.publish.versions import latest_release
from pipeline.store import storable_path


@dg.asset_check(asset="documents", description="discovered = ingested + quarantined, per file.")
def every_pdf_accounted_for(lf: LedgerForge) -> dg.AssetCheckResult:
    on_disk = {storable_path(p) for _, folder in scanned_corpora(lf) for p in discover_pdfs(folder)}
    wh = lf.warehouse
    intake = wh.read("intake").filter(pl.col("stage") == "documents")
    ingested = set(wh.read("documents")["source_path"].to_list())
    quarantined = set(
        wh.read("quarantine").filter(pl.col("stage") == "documents")["path"].to_list()
    )
    unaccounted = sorted(on_disk - ingested - quarantined)
    both = sorted(ingested & quarantined)
    return dg.AssetCheckResult(
        passed=not unaccounted and not both and len(on_disk) == len(ingested) + len(quarantined),
        metadata={
            "discovered": len(on_disk),
            "ingested": len(ingested),
            "quarantined": len(quarantined),
            "intake_rows": len(intake),
            "unaccounted": ", ".join(unaccounted[:20]) or "none",
        },
    )


@dg.asset_check(asset="tables", description="Every rebuilt table has at least one numeric cell.")
def tables_have_numbers(lf: LedgerForge) -> dg.AssetCheckResult:
    wh = lf.warehouse
    numeric = wh.read("table_cells").group_by("table_id").agg(pl.col("is_number").sum().alias("n"))
    empty = (
        wh.read("tables")
        .join(numeric, on="table_id", how="left")
        .filter(pl.col("n").fill_null(0) == 0)
    )
    return dg.AssetCheckResult(
        passed=empty.is_empty(), metadata={"tables_without_numbers": len(empty)}
    )


@dg.asset_check(
    asset="tasks", description="No accepted task without a passing sandboxed oracle run."
)
def accepted_tasks_have_passing_oracles(lf: LedgerForge) -> dg.AssetCheckResult:
    tasks = lf.warehouse.read("tasks")
    bad = tasks.filter(
        (pl.col("status") == "accepted")
        & (
            (pl.col("oracle_status") != "ok")
            | pl.col("answer").is_null()
            | (pl.col("reasons").list.len() > 0)
        )
    )
    return dg.AssetCheckResult(
        passed=bad.is_empty(),
        metadata={
            "violations": dg.MetadataValue.md(markdown_rows(bad, ["task_id", "oracle_status"]))
        },
    )


@dg.asset_check(
    asset="release",
    description="`ledgerforge audit`: manifest intact, every oracle reproduces its key.",
)
def release_audits_clean(lf: LedgerForge) -> dg.AssetCheckResult:
    latest = latest_release(lf.paths.releases)
    if latest is None:
        return dg.AssetCheckResult(passed=False, metadata={"error": "no release published"})
    report = audit_release(latest, lf.paths.warehouse, workers=lf.workers)
    return dg.AssetCheckResult(
        passed=report.ok,
        metadata={
            "release": str(latest),
            "oracles_rerun": report.n_oracles,
            "keys_reproduced": report.n_reproduced,
            "report": dg.MetadataValue.md(f"```\n{report.render()}\n```"),
        },
    )


def _stage_accounting(lf: LedgerForge, stage: str) -> dg.AssetCheckResult:
    """discovered = ingested + quarantined for one stage, from its ``intake`` rows."""
    wh = lf.warehouse
    intake = wh.read("intake").filter(pl.col("stage") == stage)
    ingested = set(intake.filter(pl.col("status") == "ingested")["path"].to_list())
    quarantined = set(intake.filter(pl.col("status") == "quarantined")["path"].to_list())
    recorded = set(wh.read("quarantine").filter(pl.col("stage") == stage)["path"].to_list())
    both = sorted(ingested & quarantined)
    unrecorded = sorted(quarantined - recorded)
    return dg.AssetCheckResult(
        passed=not both and not unrecorded and intake.height == len(ingested) + len(quarantined),
        metadata={
            "discovered": intake.height,
            "ingested": len(ingested),
            "quarantined": len(quarantined),
            "both": ", ".join(both[:20]) or "none",
            "quarantined_without_reason": ", ".join(unrecorded[:20]) or "none",
        },
    )


@dg.asset_check(
    asset="messages",
    description="Every file under the mailboxes is ingested or quarantined with a reason.",
)
def every_mail_file_accounted_for(lf: LedgerForge) -> dg.AssetCheckResult:
    result = _stage_accounting(lf, "mail")
    intake = lf.warehouse.read("intake").filter(pl.col("stage") == "mail")
    listed = {p.split("#", 1)[0] for p in intake["path"].to_list()}
    roots = [Path(p) for _, p in lf.mail_source_pairs()] or (
        [] if lf.own_corpora else [lf.paths.corpus / "mail" / "maildir"]
    )
    on_disk = {
        storable_path(Path(d, name))
        for root in roots
        for d, _dirs, names in os.walk(root)
        for name in names
    }
    missing = sorted(on_disk - listed)
    return dg.AssetCheckResult(
        passed=result.passed and not missing,
        metadata={
            **result.metadata,
            "files_on_disk": len(on_disk),
            "never_recorded": ", ".join(missing[:20]) or "none",
        },
    )


@dg.asset_check(
    asset="workbooks",
    description="Every spreadsheet attachment and corpus file is read or quarantined.",
)
def every_workbook_accounted_for(lf: LedgerForge) -> dg.AssetCheckResult:
    return _stage_accounting(lf, "workbooks")
