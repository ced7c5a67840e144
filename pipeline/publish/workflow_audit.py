"""Auditing the ``workflows`` config: every checker rerun on the release's own files.

For each workflow task the checker program (``oracles/workflows/<task_id>.py``) runs in
the sandbox twice: on the published reference workbook, which must pass, and on the
published input, which must fail (the work is still to be done). The checker's sha256
must be the one the private file records. A tampered reference fails its checker (or
the manifest); a swapped input fails ``oracles.api.workbook_blob``'s digest check.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import polars as pl

from oracles.sandbox import OracleResult
from pipeline.publish.workflows import WORKFLOWS_PRIVATE, WORKFLOWS_PUBLIC


def _frame(release_dir: Path, rel: str, report, read_regular) -> pl.DataFrame | None:
    try:
        return pl.read_parquet(io.BytesIO(read_regular(release_dir / rel)))
    except Exception as err:  # noqa: BLE001 - any unreadable file is reported
        report.errors.append(f"{rel}: cannot be read: {type(err).__name__}: {err}")
        return None


def _passed(result: OracleResult | None) -> bool | None:
    if result is None or result.status != "ok":
        return None
    return bool((result.output or {}).get("passed"))


def audit_workflows(release_dir: Path, scan, report, run, read_regular, key_change) -> None:
    """Rerun every workflow checker of ``release_dir``; add what is wrong to ``report``.

    ``run(sources, workbooks=...)`` runs checkers in the sandbox (the QA audit's runner),
    ``read_regular`` reads a release file without following links and ``key_change``
    builds a report entry; passed in so this module does not import the QA audit.
    """
    if WORKFLOWS_PUBLIC not in scan.files:
        return
    public = _frame(release_dir, WORKFLOWS_PUBLIC, report, read_regular)
    private = (
        _frame(release_dir, WORKFLOWS_PRIVATE, report, read_regular)
        if WORKFLOWS_PRIVATE in scan.files
        else None
    )
    if private is None:
        report.errors.append(f"{WORKFLOWS_PRIVATE}: missing, workflow checkers cannot be audited")
        return
    if public is None:
        return
    refs = {r["task_id"]: r for r in private.iter_rows(named=True)}
    sources: dict[str, str] = {}
    files: dict[str, dict[str, str]] = {}
    for row in public.iter_rows(named=True):
        task_id, ref = row["task_id"], refs.get(row["task_id"])
        if ref is None:
            report.key_changes.append(key_change(task_id, f"missing from {WORKFLOWS_PRIVATE}"))
            continue
        needed = (row["checker"], row["input_file"], ref["reference_file"])
        absent = [rel for rel in needed if rel not in scan.files]
        if absent:
            report.key_changes.append(key_change(task_id, "file missing", detail=", ".join(absent)))
            continue
        data = read_regular(release_dir / row["checker"])
        if hashlib.sha256(data).hexdigest() != ref["checker_sha256"]:
            report.key_changes.append(key_change(task_id, "checker altered", detail=row["checker"]))
        source = data.decode("utf-8", "replace")
        inputs = {row["input_sha256"]: str(release_dir / row["input_file"])}
        for side, rel in (("reference", ref["reference_file"]), ("input", row["input_file"])):
            run_id = f"{task_id}#{side}"
            sources[run_id] = source
            files[run_id] = {"under_test": str(release_dir / rel), **inputs}
    results = run(sources, workbooks=files)
    report.n_checkers += len(public)
    for row in public.iter_rows(named=True):
        task_id = row["task_id"]
        if f"{task_id}#reference" not in sources or not results:
            continue
        on_ref = results.get(f"{task_id}#reference")
        on_input = results.get(f"{task_id}#input")
        ref_ok, input_ok = _passed(on_ref), _passed(on_input)
        if ref_ok is None:
            why = on_ref.rule or on_ref.error if on_ref is not None else "no result"
            report.key_changes.append(key_change(task_id, "checker failed", detail=str(why)))
        elif not ref_ok:
            failures = (on_ref.output or {}).get("failures") or []
            report.key_changes.append(
                key_change(
                    task_id,
                    "reference fails its checker",
                    detail="; ".join(str(f) for f in failures[:3]),
                )
            )
        elif input_ok is not False:
            report.key_changes.append(
                key_change(
                    task_id,
                    "input passes its checker" if input_ok else "checker failed on the input",
                )
            )
        else:
            report.n_checkers_ok += 1
