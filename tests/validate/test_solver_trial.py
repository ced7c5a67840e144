"""Solver trial over the accepted tasks of the sample archive, the solver's structured answers
coming through the real SDKs from a mocked transport: solved, a known-wrong slip hit, a new
wrong answer joining the known-wrong list with reason "solver", a key contradicted by
printed figures flagged for review (and left unchanged), abstentions, the budget stop."""

from __future__ import annotations

from decimal import Decimal

import polars as pl
import pytest

from pipeline.config import data_paths
from pipeline.grade.answers import task_interval
from pipeline.llm.client import make_llm
from pipeline.llm.transport import use_transport
from pipeline.validate.schemas import TASKS_SCHEMA
from pipeline.validate.solver_trial import (
    SOLVER_TRIAL_SCHEMA,
    apply_solver_trial,
    judge_answer,
    printed_numbers,
    solver_trial,
    trial_summary,
)
from tests.grade.llm_fixtures import (
    ANTHROPIC_KEY,
    OPENAI_KEY,
    PRICES,
    MockAPI,
    SampleRelease,
    build_sample_release,
    task_of,
)


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> SampleRelease:
    return build_sample_release(tmp_path_factory.mktemp("trial_sample"))


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    for name in ("LEDGERFORGE_LLM_CACHE", "LEDGERFORGE_LLM_BUDGET_USD", "LEDGERFORGE_LLM_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def _outside(task: dict, value: Decimal) -> bool:
    lo, hi = task_interval(task)
    half = (hi - lo) / 2
    wrongs = [Decimal(w["value"]) for w in task["known_wrong"]]
    return not lo <= value <= hi and all(abs(value - w) > half for w in wrongs)


def _printed_figure(task: dict, prompt: str) -> Decimal | None:
    """A number printed on the task's pages that is neither its key nor a known-wrong."""
    pages = prompt.split("Source pages:", 1)[1]
    for value in sorted(printed_numbers(pages), reverse=True):
        if value > 100 and _outside(task, value):
            return value
    return None


def _scripted(sample: SampleRelease):
    """By position in sorted order: right, a known-wrong slip, an unprinted wrong number, a
    reading from printed figures, 'unknown'."""
    accepted = sample.tasks.filter(pl.col("status") == "accepted").sort("task_id")
    questions = dict(zip(accepted["question"], accepted["task_id"], strict=True))
    order = {t: i for i, t in enumerate(accepted["task_id"])}
    plan: dict[str, str] = {}

    def answer(call):
        assert call.tool == "answer"
        task_id = task_of(call.prompt, questions)
        task = sample.keys[task_id]
        turn = order[task_id] % 5
        if turn == 3:
            figure = _printed_figure(task, call.prompt)
            if figure is not None:
                plan[task_id] = "contradicts_key"
                return {
                    "answer": str(figure),
                    "figures": [{"label": "the row I read", "value": f"{figure:,}"}],
                    "reasoning": "Read directly from the table.",
                }
            turn = 2
        if turn == 0:
            plan[task_id] = "solved"
            value = task["answer"]
        elif turn == 1:
            plan[task_id] = "known_wrong"
            value = task["known_wrong"][0]["value"]
        elif turn == 2:
            plan[task_id] = "new_wrong"
            value = str(Decimal(task["answer"]) * 3 + Decimal("7.4"))
        else:
            plan[task_id] = "no_answer"
            return {"answer": "unknown", "figures": [], "reasoning": "Not on these pages."}
        return {
            "answer": value,
            "figures": [{"label": "a figure", "value": "987654321"}],  # printed nowhere
            "reasoning": "Added the rows.",
        }

    return MockAPI(answer), plan


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_solver_trial_outcomes_and_known_wrong_update(sample, keys, tmp_path, provider):
    api, plan = _scripted(sample)
    model = {"openai": "openai:gpt-test", "anthropic": "anthropic:claude-test"}[provider]
    llm = make_llm(model, data_paths(tmp_path), prices=PRICES, max_retries=0)
    with use_transport(api.transport):
        trial = solver_trial(sample.tasks, llm, sample.paths)
    accepted = sample.tasks.filter(pl.col("status") == "accepted")
    assert trial.schema == pl.Schema(SOLVER_TRIAL_SCHEMA)
    assert trial.height == accepted.height == len(api.calls)
    assert (trial["context_chars"] > 0).all()  # every task got its pages' text
    got = dict(zip(trial["task_id"], trial["outcome"], strict=True))
    assert got == plan
    summary = trial_summary(trial)
    assert all(summary[o] > 0 for o in ("solved", "known_wrong", "new_wrong", "contradicts_key"))
    assert summary["no_answer"] > 0 and summary["review"] == summary["contradicts_key"]

    hits = trial.filter(pl.col("outcome") == "known_wrong")
    assert hits["hit_known_wrong"].all() and hits["known_wrong_reason"].is_not_null().all()
    flagged = trial.filter(pl.col("review"))
    assert (flagged["outcome"] == "contradicts_key").all()
    assert flagged["review_reason"].str.contains("contradicts key").all()
    assert (flagged["figures_printed"] == 1).all() and flagged["new_known_wrong"].is_null().all()

    updated = apply_solver_trial(sample.tasks, trial)
    assert updated.schema == pl.Schema(TASKS_SCHEMA)
    before = {r["task_id"]: r for r in sample.tasks.iter_rows(named=True)}
    after = {r["task_id"]: r for r in updated.iter_rows(named=True)}
    for row in trial.iter_rows(named=True):
        old, new = before[row["task_id"]], after[row["task_id"]]
        assert new["answer"] == old["answer"]  # a key is never changed by the trial
        if row["outcome"] == "new_wrong":
            added = new["known_wrong"][len(old["known_wrong"]) :]
            assert added == [
                {"value": row["new_known_wrong"], "reason": "solver", "family": "solver"}
            ]
            lo, hi = task_interval(new)
            value = Decimal(row["new_known_wrong"])
            assert not lo <= value <= hi
            assert -value.as_tuple().exponent <= max(0, new["precision"])
        else:
            assert new["known_wrong"] == old["known_wrong"]


def test_budget_stop_keeps_answers_and_marks_the_rest_not_asked(sample, keys, tmp_path):
    api, _ = _scripted(sample)
    per_call = (1000 * 0.40 + 50 * 1.60) / 1e6
    llm = make_llm(
        "openai:gpt-test",
        data_paths(tmp_path),
        prices=PRICES,
        max_retries=0,
        concurrency=1,
        budget_usd=per_call * 2.5,
    )
    with use_transport(api.transport):
        trial = solver_trial(sample.tasks, llm, sample.paths, batch=4)
    assert len(api.calls) == 3
    asked = trial.filter(pl.col("outcome") != "not_asked")
    assert asked.height == 3 and asked["tokens"].is_not_null().all()
    rest = trial.filter(pl.col("outcome") == "not_asked")
    assert rest.height == trial.height - 3 and rest["error"].str.contains("budget").all()
    assert apply_solver_trial(sample.tasks, rest).equals(sample.tasks)


def test_judge_answer_rules():
    task = {
        "task_id": "t",
        "answer": "4862",
        "lo": "4861.5",
        "hi": "4862.5",
        "precision": 0,
        "unit": "millions of dollars",
        "known_wrong": [{"value": "4662", "reason": "misread 8 as 6", "family": "misread"}],
    }
    page = "Table 1.- Budget receipts\nCustoms 4,862 1,210\nExcise taxes (5,115) 977"
    solved = judge_answer(task, {"answer": "4,862", "figures": [], "reasoning": ""}, page)
    assert solved["outcome"] == "solved" and solved["passed"]
    slip = judge_answer(task, {"answer": "4662", "figures": [], "reasoning": ""}, page)
    assert slip["outcome"] == "known_wrong" and slip["known_wrong_reason"] == "misread 8 as 6"
    figures = [{"label": "Excise", "value": "(5,115)"}]
    read = judge_answer(task, {"answer": "-5115", "figures": figures, "reasoning": ""}, page)
    assert read["outcome"] == "contradicts_key" and read["review"] and read["figures_printed"] == 1
    guess = judge_answer(task, {"answer": "5000.4", "figures": [], "reasoning": ""}, page)
    assert guess["outcome"] == "new_wrong" and guess["new_known_wrong"] == "5000"
    near = judge_answer(task, {"answer": "4662.3", "figures": [], "reasoning": ""}, page)
    assert near["outcome"] == "known_wrong"
    none = judge_answer(task, {"answer": "unknown", "figures": [], "reasoning": ""}, page)
    assert none["outcome"] == "no_answer" and none["number"] is None
