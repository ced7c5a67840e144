"""The solver trial: a model answers each accepted QA task from its source pages.

Guarded by the ``solver`` role (``pipeline.roles``: resource field ``solver``, else
``LEDGERFORGE_SOLVER``, default ``none``): with ``none`` or ``template`` the asset writes
an empty table and makes no call, so an offline build is unchanged. The release applies
the trial's new known-wrong answers (reason ``"solver"``) to the tasks it publishes; the
trial's ``review`` rows are the keys a person should look at (``ledgerforge show TASK_ID``).
"""

from __future__ import annotations

import dagster as dg
import polars as pl

from assets.resources import LedgerForge
from pipeline.validate.schemas import TASKS_SCHEMA
from pipeline.validate.solver_trial import SOLVER_TRIAL_SCHEMA, trial_summary
from pipeline.validate.solver_trial import solver_trial as run_solver_trial


@dg.asset(
    name="solver_trial",
    group_name="tasks",
    deps=["tasks"],
    description="A model answers each accepted QA task from the text of its source pages: "
    "known-wrong hits, new wrong answers (join the known-wrong list with reason 'solver'), "
    "keys contradicted by printed figures (flagged for review). Empty when solver=none.",
)
def solver_trial_table(context, lf: LedgerForge) -> dg.MaterializeResult:
    from pipeline.llm.client import is_llm_choice

    choice = lf.role("solver")
    wh = lf.warehouse
    if not is_llm_choice(choice):
        wh.replace("solver_trial", pl.DataFrame(schema=SOLVER_TRIAL_SCHEMA), SOLVER_TRIAL_SCHEMA)
        return dg.MaterializeResult(metadata={"solver": choice or "none", "tasks": 0})
    lf.check_llm_keys("solver")
    llm = lf.llm("solver")
    trial = run_solver_trial(
        wh.read("tasks", TASKS_SCHEMA), llm, lf.paths, progress=context.log.info
    )
    wh.replace("solver_trial", trial, SOLVER_TRIAL_SCHEMA)
    summary = trial_summary(trial)
    metadata = {
        "solver": choice,
        **{k: v for k, v in summary.items() if v is not None},
        **llm.metadata(),  # requests, cache hits, tokens, money spent and projected
    }
    flagged = trial.filter(pl.col("review"))
    if flagged.height:
        metadata["review"] = dg.MetadataValue.md(
            "\n".join(f"- `{r['task_id']}`: {r['review_reason']}" for r in flagged.to_dicts())
        )
    return dg.MaterializeResult(metadata=metadata)
