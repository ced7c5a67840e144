"""An Inspect AI task for a LedgerForge release, scored by LedgerForge's own grader.

Evaluation researchers run benchmarks with Inspect (``inspect eval``), which gives them
every provider, logs, a viewer and retries. This module makes a release one Inspect task:
each public QA task is a sample (the same prompt as ``ledgerforge solve``:
:func:`pipeline.grade.solve.user_prompt`, with the source text of its pages when a data
root is given), the key and its acceptance interval travel in the sample's metadata, and
the scorer is :func:`pipeline.grade.answers.score_answer`, so a response passes in Inspect
exactly when it passes in ``ledgerforge grade``, with the same failure causes
(:func:`pipeline.grade.runs.failure_cause`) in the score's metadata.

Run it (from the repository root, or with the project installed)::

    inspect eval pipeline/grade/inspect_task.py@ledgerforge_qa \\
        -T release_dir=data/releases/2026.11.0 --model openai/gpt-4.1-mini
    # the pages' text as context, 3 attempts per task (pass@k from the log):
    inspect eval pipeline/grade/inspect_task.py@ledgerforge_qa \\
        -T release_dir=data/releases/2026.11.0 -T data_root=data --epochs 3 \\
        --model anthropic/claude-haiku-4-5
    # smoke test with Inspect's built-in mock model (every answer "Default output…", so
    # every sample fails with cause no_number):
    inspect eval pipeline/grade/inspect_task.py@ledgerforge_qa \\
        -T release_dir=data/releases/2026.11.0 --model mockllm/model

Inspect's own model clients, keys and retries are used there (not :mod:`pipeline.llm`).
Offline, ``--model mockllm/model`` on the command line needs tiktoken's ``o200k_base``
file in its cache (``TIKTOKEN_CACHE_DIR``): mockllm estimates token usage with it when
its outputs carry none. From Python, outputs with their usage need nothing
(``tests/grade/test_inspect_task.py``)::

    from inspect_ai import eval
    from inspect_ai.model import get_model
    eval(ledgerforge_qa(release_dir="data/releases/2026.11.0"),
         model=get_model("mockllm/model", custom_outputs=outputs))

The answer keys are read from ``private/qa_answers.parquet``, which must be present:
the scorer runs where the keys are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate, system_message

from pipeline.config import data_paths
from pipeline.grade.answers import score_answer
from pipeline.grade.context import SourceTexts
from pipeline.grade.runs import failure_cause, load_release_tasks
from pipeline.grade.solve import SYSTEM_PROMPT, release_solve_tasks, user_prompt

KEY_FIELDS = ("task_id", "answer", "lo", "hi", "known_wrong", "unit", "precision")


def release_samples(
    release_dir: str | Path, split: str = "test", data_root: str | Path | None = None
) -> list[Sample]:
    """One Inspect sample per QA task of the release, its key in the metadata."""
    release_dir = Path(release_dir)
    keys = {row["task_id"]: row for row in load_release_tasks(release_dir, split).to_dicts()}
    tasks = release_solve_tasks(release_dir, split)
    texts = SourceTexts(data_paths(data_root)) if data_root else None
    if texts is not None:
        texts.load(t.sources for t in tasks)
    samples = []
    for solve_task in tasks:
        key = keys[solve_task.task_id]
        context = texts.text(solve_task.sources) if texts is not None else ""
        samples.append(
            Sample(
                id=solve_task.task_id,
                input=user_prompt(solve_task, context),
                target=key["answer"],
                metadata={
                    **{name: key[name] for name in KEY_FIELDS},
                    "kind": key["kind"],
                    "quality": key["quality"],
                    "multi_document": key["multi_document"],
                },
            )
        )
    return samples


def grade_completion(key: dict[str, Any], completion: str | None) -> Score:
    """The project grader's verdict on one completion, as an Inspect ``Score``."""
    verdict = score_answer(key, completion)
    if verdict.passed:
        cause, detail = None, None
    elif verdict.cause:
        cause, detail = verdict.cause, verdict.detail
    else:
        cause, detail, _ = failure_cause(verdict.number, verdict.abstained, key)
    explanation = f"rule {verdict.rule}" + (f"; {cause}" if cause else "")
    if detail:
        explanation += f" ({detail})"
    return Score(
        value=CORRECT if verdict.passed else INCORRECT,
        answer=None if verdict.number is None else str(verdict.number),
        explanation=explanation,
        metadata={
            "rule": verdict.rule,
            "cause": cause,
            "cause_detail": detail,
            "abstained": verdict.abstained,
            "interval": [key["lo"], key["hi"]],
        },
    )


@scorer(metrics=[accuracy(), stderr()])
def ledgerforge_grader():
    """Score with :func:`pipeline.grade.answers.score_answer` against the sample's key."""

    async def score(state: TaskState, target: Target) -> Score:
        key = {name: state.metadata.get(name) for name in KEY_FIELDS}
        return grade_completion(key, state.output.completion if state.output else None)

    return score


@task
def ledgerforge_qa(release_dir: str, split: str = "test", data_root: str | None = None) -> Task:
    """The QA tasks of a LedgerForge release, graded by LedgerForge's grader."""
    return Task(
        dataset=MemoryDataset(
            release_samples(release_dir, split, data_root),
            name=f"ledgerforge:{Path(release_dir).name}",
        ),
        solver=[system_message(SYSTEM_PROMPT), generate()],
        scorer=ledgerforge_grader(),
    )
