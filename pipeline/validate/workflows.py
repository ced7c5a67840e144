"""Validation of workflow drafts: a task is kept only when its checker decides it.

Each draft's checker (an oracle program, :mod:`pipeline.draft.workflows`) runs twice in
:mod:`oracles.sandbox`, on the task's own files: on the **reference**, which must pass,
and on the **unmodified input**, which must fail (a checker the input passes asks for
nothing). Beyond that a draft is rejected, every reason kept as ``"<rule>: <detail>"``:

- ``trivial``: the step is no work (``formatting only``, ``date stamp only``; see
  ``pipeline.detect.steps.trivial_reason``);
- ``personal_data``: the instruction still holds a personal datum after scrubbing (the
  kinds are named, never the datum);
- the drafter's own problems: ``no_reference``, ``unreadable_workbook``,
  ``undecidable`` (the diff gives the checker nothing to compare), ``underspecified``,
  ``checker_too_large``, ``personal_data_in_workbook`` (a workbook's cells hold detected
  data, a known name, or a person's name or phone extension the mail never gave:
  ``pipeline.draft.scrub.workbook_personal_data``; the kinds are named, never the datum);
- ``checker_failed`` (the program broke a sandbox rule, raised, timed out),
  ``reference_fails_checker``, ``input_passes_checker``;
- ``missing_blob``: the input or reference is not in the blob store.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import polars as pl

from oracles.sandbox import OracleResult, run_oracles
from pipeline.draft.schemas import WORKFLOW_DRAFTS_SCHEMA
from pipeline.draft.scrub import People, personal_data
from pipeline.store import BlobStore

__all__ = ["WORKFLOW_RULES", "WORKFLOW_TASKS_SCHEMA", "checker_runs", "validate_workflow_drafts"]

WORKFLOW_TASKS_SCHEMA = {
    **WORKFLOW_DRAFTS_SCHEMA,
    "status": pl.String,  # accepted | rejected
    "reasons": pl.List(pl.String),  # every rejection reason, "<rule>: <detail>"
    "reference_passed": pl.Boolean,  # the checker's verdict on the reference (null: no run)
    "input_passed": pl.Boolean,  # ... on the unmodified input
    "reference_failures": pl.String,  # JSON list of what the checker found on the reference
    "input_failures": pl.String,  # JSON list of what it found on the input (the work to do)
    "checker_status": pl.String,  # sandbox status of the reference run
}

WORKFLOW_RULES = (
    "trivial",
    "personal_data",
    "no_reference",
    "unreadable_workbook",
    "undecidable",
    "underspecified",
    "checker_too_large",
    "personal_data_in_workbook",
    "missing_blob",
    "checker_failed",
    "reference_fails_checker",
    "input_passes_checker",
)


def _verdict(result: OracleResult | None) -> tuple[bool | None, list, str]:
    """(passed, failures, problem) of one checker run."""
    if result is None:
        return None, [], "missing"
    if result.status != "ok" or not result.output or "passed" not in result.output:
        detail = result.rule or result.error or result.stderr[-200:]
        return None, [], f"{result.status}: {detail}".strip()
    return bool(result.output["passed"]), list(result.output.get("failures") or []), ""


def checker_runs(
    drafts: Iterable[dict],
    blobs: BlobStore | None = None,
    *,
    path_of: Callable[[str], str | None] | None = None,
    warehouse: Path | None = None,
    workers: int | None = 1,
    timeout_s: float = 30,
    cpu_s: float = 20,
    progress: bool = False,
) -> dict[str, OracleResult]:
    """Run every draft's checker on its reference ("<task_id>#reference") and on its
    input ("<task_id>#input") in the sandbox; drafts without checker or files are
    skipped (the validator names why). Files come from the blob store, or from
    ``path_of(sha256)`` (a release folder: how ``ledgerforge audit`` reruns them; a
    tampered file there fails the checker or its sha256 check)."""
    if path_of is None:
        if blobs is None:
            raise ValueError("checker_runs needs a blob store or a path_of function")
        store = blobs

        def path_of(sha: str) -> str | None:
            return store.local_path(sha) if store.exists(sha) else None

    sources: dict[str, str] = {}
    files: dict[str, dict[str, str]] = {}
    for d in drafts:
        if not d.get("checker") or not d.get("reference_xlsx_sha256"):
            continue
        ins, ref = d["input_xlsx_sha256"], d["reference_xlsx_sha256"]
        in_path, ref_path = path_of(ins), path_of(ref)
        if not (in_path and ref_path):
            continue
        for side, path in (("reference", ref_path), ("input", in_path)):
            run_id = f"{d['task_id']}#{side}"
            sources[run_id] = d["checker"]
            files[run_id] = {"under_test": path, ins: in_path}
    if not sources:
        return {}
    with tempfile.TemporaryDirectory(prefix="lf-wf-warehouse-") as empty:
        # workflow checkers read no warehouse asset: an empty folder unless one is given
        return run_oracles(
            sources,
            Path(warehouse or empty),
            workers=workers,
            timeout_s=timeout_s,
            cpu_s=cpu_s,
            progress=progress,
            workbooks=files,
        )


def _failures_text(failures: list, limit: int = 3) -> str:
    shown = []
    for f in failures[:limit]:
        if isinstance(f, dict):
            where = f"{f.get('sheet')}!{f.get('address', '-')}"
            shown.append(
                f"{where} {f.get('rule')} (expected {f.get('expected')!r}, got {f.get('got')!r})"
            )
        else:
            shown.append(str(f))
    more = f" and {len(failures) - limit} more" if len(failures) > limit else ""
    return "; ".join(shown) + more


def validate_workflow_drafts(
    drafts: pl.DataFrame,
    blobs: BlobStore,
    *,
    people: dict[str, People] | None = None,
    results: dict[str, OracleResult] | None = None,
    warehouse: Path | None = None,
    workers: int | None = 1,
    timeout_s: float = 30,
    cpu_s: float = 20,
    progress: bool = False,
) -> pl.DataFrame:
    """Workflow tasks (``WORKFLOW_TASKS_SCHEMA``): every draft accepted or rejected with
    every reason. ``people`` (task_id -> known names) extends the personal-data check of
    the instruction; ``results`` reuses checker runs already made (see
    :func:`checker_runs`)."""
    rows = drafts.to_dicts()
    if results is None:
        results = checker_runs(
            rows,
            blobs,
            warehouse=warehouse,
            workers=workers,
            timeout_s=timeout_s,
            cpu_s=cpu_s,
            progress=progress,
        )
    people = people or {}
    out = []
    for d in rows:
        reasons = list(d.get("problems") or [])
        if d.get("trivial_reason"):
            reasons.append(f"trivial: {d['trivial_reason']}")
        found = personal_data(d.get("instruction") or "", people.get(d["task_id"]))
        found += personal_data(d.get("summary") or "", people.get(d["task_id"]))
        if found:
            kinds = sorted({f.kind for f in found})
            reasons.append(f"personal_data: the instruction still holds {', '.join(kinds)}")
        ref_passed = in_passed = None
        ref_failures: list = []
        in_failures: list = []
        status = None
        if d.get("checker") and d.get("reference_xlsx_sha256"):
            missing = [
                s
                for s in (d["input_xlsx_sha256"], d["reference_xlsx_sha256"])
                if not blobs.exists(s)
            ]
            if missing:
                reasons.append(f"missing_blob: {', '.join(missing)}")
            else:
                ref_result = results.get(f"{d['task_id']}#reference")
                in_result = results.get(f"{d['task_id']}#input")
                ref_passed, ref_failures, ref_problem = _verdict(ref_result)
                in_passed, in_failures, in_problem = _verdict(in_result)
                status = ref_result.status if ref_result else "missing"
                for side, problem in (("reference", ref_problem), ("input", in_problem)):
                    if problem:
                        reasons.append(f"checker_failed: on the {side}: {problem}")
                if ref_passed is False:
                    reasons.append(f"reference_fails_checker: {_failures_text(ref_failures)}")
                if in_passed is True:
                    reasons.append("input_passes_checker: the unmodified input already passes")
        elif not reasons:
            reasons.append("checker_failed: no checker was drafted")
        out.append(
            {
                **{k: d.get(k) for k in WORKFLOW_DRAFTS_SCHEMA},
                "status": "rejected" if reasons else "accepted",
                "reasons": reasons,
                "reference_passed": ref_passed,
                "input_passed": in_passed,
                "reference_failures": json.dumps(ref_failures, default=str),
                "input_failures": json.dumps(in_failures, default=str),
                "checker_status": status,
            }
        )
    return pl.DataFrame(out, schema=WORKFLOW_TASKS_SCHEMA)
