"""Solver trial: a model answers each accepted QA task from the text of its source pages.

The trial is a check on the benchmark, not on the model. For every accepted task the
solver reads what an agent would read (the OCR text of the pages, or the cells of the
sheet, its oracle reads: :mod:`pipeline.grade.context`), answers in a small JSON object
(the answer, the printed figures it used, a line of reasoning), and the answer is graded
by the project's grader against the task's key. One row per task
(:data:`SOLVER_TRIAL_SCHEMA`) records the outcome:

- ``solved``: inside the acceptance interval;
- ``known_wrong``: it hit one of the task's known-wrong answers (within the interval's
  half-width, as the grader's failure causes count it): the slips the drafter predicted
  are the slips a model makes;
- ``new_wrong``: another wrong number. It joins the task's known-wrong list with reason
  ``"solver"`` (:func:`apply_solver_trial`), rounded to the task's precision and only
  when it stays outside the interval, so the next release's grader names that failure;
- ``contradicts_key``: a wrong number that is *better supported* than a slip: every
  figure the solver says it used is printed on the task's source pages (at least one),
  and it is none of the known-wrong answers. The key may be wrong (a misread label, a
  wrong column), so the row is flagged for review (``review`` true with the reason) and
  the task is left unchanged: a person decides, the trial never edits a key, and the
  answer is not made a known-wrong either, since it may be the right one;
- ``no_answer``: the solver abstained or gave no number;
- ``error`` / ``not_asked``: the call failed, or the budget stopped the trial first.

The pure functions here have no Dagster import; the ``solver_trial`` asset (guarded by
the ``solver`` setting) only wires them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import polars as pl

from pipeline.config import DataPaths
from pipeline.grade.answers import parse_decimal, score_answer, task_interval
from pipeline.grade.context import SourceTexts, oracle_sources
from pipeline.grade.solve import SolveTask, agent_name, format_request
from pipeline.store import check_schema
from pipeline.validate.schemas import TASKS_SCHEMA

SOLVER_REASON = "solver"
OUTCOMES = (
    "solved",
    "known_wrong",
    "new_wrong",
    "contradicts_key",
    "no_answer",
    "error",
    "not_asked",
)
BATCH = 16

SOLVER_TRIAL_SCHEMA = {
    "task_id": pl.String,
    "solver": pl.String,  # provider:model
    "outcome": pl.String,  # one of OUTCOMES
    "answer_text": pl.String,  # the solver's answer field as given
    "number": pl.String,  # the number the grader read from it; null when none
    "passed": pl.Boolean,
    "hit_known_wrong": pl.Boolean,
    "known_wrong_reason": pl.String,  # the reason of the known-wrong answer it hit
    "figures": pl.List(pl.String),  # the printed figures the solver says it used
    "figures_printed": pl.Int32,  # how many of them are printed on the source pages
    "new_known_wrong": pl.String,  # value added to known_wrong (reason "solver"); null: none
    "review": pl.Boolean,  # the key is contradicted by a better-supported reading
    "review_reason": pl.String,
    "key": pl.String,  # the task's key at trial time
    "reasoning": pl.String,
    "context_chars": pl.Int64,  # 0: the task's sources were not found in the warehouse
    "tokens": pl.Int64,
    "cost": pl.Float64,
    "cached": pl.Boolean,
    "error": pl.String,
}

ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {
            "type": "string",
            "description": "The answer as one number in the unit asked, e.g. -1234.5; "
            "'unknown' if the sources do not give it.",
        },
        "figures": {
            "type": "array",
            "description": "Every printed figure read from the sources, as printed.",
            "items": {
                "type": "object",
                "properties": {"label": {"type": "string"}, "value": {"type": "string"}},
                "required": ["label", "value"],
                "additionalProperties": False,
            },
        },
        "reasoning": {"type": "string", "description": "One or two sentences."},
    },
    "required": ["answer", "figures", "reasoning"],
    "additionalProperties": False,
}

SYSTEM_PROMPT = (
    "You check questions of a finance benchmark by answering them from their source "
    "pages. The pages were read by OCR. Find the figures the question needs, compute "
    "exactly, round once at the end to the precision asked, and give the answer in the "
    "unit asked without rescaling. List every figure you read, as printed. Reply with "
    "the JSON object asked for."
)

_NUMBER = re.compile(r"\(?[-\u2212]?\$?\d[\d,]*(?:\.\d+)?\)?")


def printed_numbers(text: str) -> set[Decimal]:
    """Absolute values of every number printed in a text (commas, $, parentheses dropped)."""
    found = set()
    for match in _NUMBER.finditer(text or ""):
        raw = re.sub(r"[()\-\u2212$,]", "", match.group())
        try:
            found.add(abs(Decimal(raw)))
        except InvalidOperation:
            continue
    return found


def _figure_value(text: str) -> Decimal | None:
    numbers = printed_numbers(text)
    return next(iter(numbers)) if len(numbers) == 1 else None


def trial_request(task: SolveTask, context: str) -> Any:
    from pipeline.llm.client import ChatRequest

    lines = [f"Question: {task.question}"]
    fmt = format_request(task.precision, task.unit)
    if fmt:
        lines.append(fmt)
    lines += ["", "Source pages:", "", context or "(no source text found)"]
    return ChatRequest(
        system=SYSTEM_PROMPT,
        messages=[{"role": "user", "content": "\n".join(lines)}],
        schema=ANSWER_SCHEMA,
        schema_name="answer",
        temperature=0.0,
        max_tokens=1024,
        purpose="solver",
    )


def _hit(number: Decimal, task: Mapping[str, Any]) -> Mapping[str, Any] | None:
    lo, hi = task_interval(task)
    half = (hi - lo) / 2
    for wrong in task.get("known_wrong") or []:
        if abs(number - parse_decimal(wrong["value"], "known_wrong value")) <= half:
            return wrong
    return None


def _rounded(number: Decimal, precision: int | None) -> Decimal:
    if precision is None:
        return number
    return number.quantize(Decimal(1).scaleb(-precision), rounding=ROUND_HALF_UP)


def judge_answer(
    task: Mapping[str, Any], data: Mapping[str, Any] | None, context: str
) -> dict[str, Any]:
    """The trial row fields of one structured answer (outcome, known-wrong, review)."""
    data = data or {}
    answer_text = str(data.get("answer") or "")
    figures = [str(f.get("value", "")) for f in data.get("figures") or [] if isinstance(f, Mapping)]
    printed = printed_numbers(context)
    values = [_figure_value(f) for f in figures]
    n_printed = sum(1 for v in values if v is not None and v in printed)
    verdict = score_answer(task, f"ANSWER: {answer_text}")
    row: dict[str, Any] = {
        "answer_text": answer_text,
        "number": None if verdict.number is None else str(verdict.number),
        "passed": verdict.passed,
        "hit_known_wrong": False,
        "known_wrong_reason": None,
        "figures": figures,
        "figures_printed": n_printed,
        "new_known_wrong": None,
        "review": False,
        "review_reason": None,
        "key": task["answer"],
        "reasoning": str(data.get("reasoning") or ""),
    }
    if verdict.passed:
        return {**row, "outcome": "solved"}
    if verdict.number is None or verdict.abstained:
        return {**row, "outcome": "no_answer"}
    wrong = _hit(verdict.number, task)
    if wrong is not None:
        return {**row, "outcome": "known_wrong", "hit_known_wrong": True,
                "known_wrong_reason": wrong.get("reason")}  # fmt: skip
    if figures and n_printed == len(figures):
        reason = (
            f"solver answer {verdict.number} from printed figures {', '.join(figures)} "
            f"contradicts key {task['answer']} and is none of its known-wrong answers"
        )
        return {**row, "outcome": "contradicts_key", "review": True, "review_reason": reason}
    value = _rounded(verdict.number, task.get("precision"))
    lo, hi = task_interval(task)
    added = None if lo <= value <= hi or _hit(value, task) is not None else format(value, "f")
    return {**row, "outcome": "new_wrong", "new_known_wrong": added}


def solver_trial(
    tasks: pl.DataFrame,
    llm: Any,
    paths: DataPaths,
    *,
    progress: Callable[[str], None] | None = None,
    batch: int = BATCH,
) -> pl.DataFrame:
    """Answer every accepted task of ``tasks`` (``TASKS_SCHEMA``) with ``llm``; one row each.

    The source text comes from the warehouse of ``paths``. A budget stop leaves the
    remaining tasks ``not_asked`` (every answer already received is kept).
    """
    from pipeline.llm.client import BudgetExceeded

    tasks = check_schema(tasks, TASKS_SCHEMA, "tasks")
    accepted = tasks.filter(pl.col("status") == "accepted").sort("task_id")
    rows_in = list(accepted.iter_rows(named=True))
    solver = agent_name(llm)
    if not rows_in:
        return pl.DataFrame(schema=SOLVER_TRIAL_SCHEMA)
    llm.check_key()
    texts = SourceTexts(paths)
    solve_tasks = [
        SolveTask(
            task_id=r["task_id"],
            question=r["question"],
            unit=r["unit"],
            precision=r["precision"],
            kind=r["kind"] or "",
            sources=oracle_sources(r["oracle_source"]),
        )
        for r in rows_in
    ]
    texts.load(t.sources for t in solve_tasks)
    contexts = [texts.text(t.sources) for t in solve_tasks]
    out: list[dict[str, Any]] = []
    stopped = False
    for start in range(0, len(rows_in), max(1, batch)):
        chunk = range(start, min(start + batch, len(rows_in)))
        answers = (
            [BudgetExceeded("budget reached earlier in the trial")] * len(chunk)
            if stopped
            else llm.chat_many([trial_request(solve_tasks[i], contexts[i]) for i in chunk])
        )
        for i, answer in zip(chunk, answers, strict=True):
            task = rows_in[i]
            base = {
                "task_id": task["task_id"],
                "solver": solver,
                "key": task["answer"],
                "context_chars": len(contexts[i]),
            }
            if isinstance(answer, Exception):
                stopped = stopped or isinstance(answer, BudgetExceeded)
                outcome = "not_asked" if isinstance(answer, BudgetExceeded) else "error"
                out.append({**base, "outcome": outcome, "error": str(answer), "figures": []})
                continue
            judged = judge_answer(task, answer.data, contexts[i])
            out.append(
                {
                    **base,
                    **judged,
                    "tokens": int(answer.input_tokens) + int(answer.output_tokens),
                    "cost": float(answer.cost_usd),
                    "cached": bool(answer.cached),
                }
            )
        if progress is not None:
            progress(f"solver trial {solver}: {len(out)}/{len(rows_in)} tasks")
    return pl.DataFrame(out, schema=SOLVER_TRIAL_SCHEMA)


def apply_solver_trial(tasks: pl.DataFrame, trial: pl.DataFrame) -> pl.DataFrame:
    """``tasks`` with each ``new_known_wrong`` of the trial added to its task's known-wrong
    list (reason and family ``"solver"``). Nothing else changes: flagged keys stay as
    they are (the trial's ``review`` column is the flag). A trial row whose ``key`` is not
    the task's current key is stale (the task was redrafted since) and is not applied."""
    tasks = check_schema(tasks, TASKS_SCHEMA, "tasks")
    keys = dict(zip(tasks["task_id"], tasks["answer"], strict=True))
    added = {
        r["task_id"]: r["new_known_wrong"]
        for r in trial.filter(pl.col("new_known_wrong").is_not_null()).iter_rows(named=True)
        if keys.get(r["task_id"]) == r["key"]
    }
    if not added:
        return tasks
    rows = []
    for row in tasks.iter_rows(named=True):
        value = added.get(row["task_id"])
        wrongs = list(row["known_wrong"] or [])
        if value is not None and row["status"] == "accepted":
            if not any(w["value"] == value for w in wrongs):
                wrongs.append({"value": value, "reason": SOLVER_REASON, "family": SOLVER_REASON})
        rows.append({**row, "known_wrong": wrongs})
    return pl.DataFrame(rows, schema=TASKS_SCHEMA)


def trial_summary(trial: pl.DataFrame) -> dict[str, Any]:
    """Counts by outcome and the share of asked tasks solved (asset metadata, CLI)."""
    counts = {o: int((trial["outcome"] == o).sum()) for o in OUTCOMES}
    asked = trial.height - counts["not_asked"] - counts["error"]
    return {
        **counts,
        "tasks": trial.height,
        "solved_share": round(counts["solved"] / asked, 4) if asked else None,
        "review": int(trial["review"].fill_null(False).sum()),
        "new_known_wrong": int(trial["new_known_wrong"].is_not_null().sum()),
        "cost_usd": float(trial["cost"].fill_null(0.0).sum()),
    }
