"""The release: validated tasks published as an immutable, versioned folder."""

from __future__ import annotations

import dagster as dg

from assets.resources import LedgerForge
from pipeline.draft.schemas import DRAFTS_SCHEMA
from pipeline.publish.release import publish_release
from pipeline.publish.versions import latest_release, next_version, unchanged_since
from pipeline.validate.schemas import TASKS_SCHEMA
from pipeline.validate.solver_trial import SOLVER_TRIAL_SCHEMA, apply_solver_trial
from pipeline.validate.workflows import WORKFLOW_TASKS_SCHEMA


@dg.asset(
    group_name="release",
    deps=["tasks", "drafts", "workflow_tasks", "solver_trial"],
    description="data/releases/<version>/: Parquet configs, oracles, card, manifest, changelog.",
)
def release(lf: LedgerForge) -> dg.MaterializeResult:
    wh, releases_dir = lf.warehouse, lf.paths.releases
    tasks = wh.read("tasks", TASKS_SCHEMA)
    if wh.exists("solver_trial"):  # the solver's new wrong answers join the known-wrong lists
        tasks = apply_solver_trial(tasks, wh.read("solver_trial", SOLVER_TRIAL_SCHEMA))
    workflows = wh.read("workflow_tasks", WORKFLOW_TASKS_SCHEMA)
    latest = latest_release(releases_dir)
    if not lf.release_version and latest is not None and unchanged_since(latest, tasks, workflows):
        target, created = latest, False
    else:
        version = lf.release_version or next_version(releases_dir)
        target = publish_release(
            tasks,
            wh.read("drafts", DRAFTS_SCHEMA),
            releases_dir,
            version,
            workflow_tasks=workflows,
            blobs=lf.blobs,
        )
        created = True
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(target)),
            "version": target.name,
            "new_release": created,
            "accepted_tasks": int((tasks["status"] == "accepted").sum()),
            "accepted_workflow_tasks": int((workflows["status"] == "accepted").sum()),
        }
    )
