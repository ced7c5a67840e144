"""Grading runs: loading a release, grading a responses file, failure causes, problems."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from pipeline.grade.answers import CAUSE_HEDGE, CAUSE_UNIT, CAUSE_UNREADABLE
from pipeline.grade.runs import (
    CAUSE_ABSTAINED,
    CAUSE_BASE,
    CAUSE_KNOWN_WRONG,
    CAUSE_MISREAD,
    CAUSE_NO_NUMBER,
    CAUSE_OTHER,
    CAUSE_SIGN,
    CAUSE_TIMEOUT,
    CAUSES,
    PROBLEM_SCHEMA,
    TASK_SCHEMA,
    VERDICT_SCHEMA,
    failure_cause,
    grade_responses,
    load_release_tasks,
)
from pipeline.publish.schemas import QA_ANSWER_SCHEMA, QA_PUBLIC_SCHEMA

TASK = {
    "task_id": "t1",
    "answer": "4862.5",
    "lo": "4862.45",
    "hi": "4862.55",
    "known_wrong": [
        {"value": "4999.5", "reason": "adjacent row (Customs)", "family": "adjacent_row"},
        {"value": "4800", "reason": "earlier unrevised printing", "family": "unrevised"},
    ],
}


@pytest.mark.parametrize(
    ("number", "abstained", "cause", "detail"),
    [
        ("4999.5", False, CAUSE_KNOWN_WRONG, "adjacent row (Customs)"),
        ("4999.52", False, CAUSE_KNOWN_WRONG, "adjacent row (Customs)"),  # within half-width
        ("4800.00", False, CAUSE_KNOWN_WRONG, "earlier unrevised printing"),
        ("-4862.5", False, CAUSE_SIGN, "sign flipped"),
        ("4862500", False, CAUSE_BASE, "1,000 times too large"),
        ("4.8625", False, CAUSE_BASE, "1,000 times too small"),
        ("4.86250", False, CAUSE_BASE, "1,000 times too small"),
        ("4662.5", False, CAUSE_MISREAD, "read 6 for 8"),
        ("4862.6", False, CAUSE_MISREAD, "read 6 for 5"),
        ("4862.9", False, CAUSE_MISREAD, "read 9 for 5"),
        ("4826.5", False, CAUSE_OTHER, None),  # transposition: two digits differ
        ("12", False, CAUSE_OTHER, None),
        (None, True, CAUSE_ABSTAINED, None),
        (None, False, CAUSE_NO_NUMBER, None),
    ],
)
def test_failure_cause(number: str | None, abstained: bool, cause: str, detail: str | None) -> None:
    value = None if number is None else Decimal(number)
    got_cause, got_detail, family = failure_cause(value, abstained, TASK)
    assert (got_cause, got_detail) == (cause, detail)
    if cause == CAUSE_KNOWN_WRONG:
        assert family in {"adjacent_row", "unrevised"}


def test_load_release_tasks_joins_public_and_private(qa_release) -> None:
    release, expected = qa_release(n_tasks=12)
    tasks = load_release_tasks(release)
    assert tasks.columns == list(TASK_SCHEMA)
    assert tasks.height == 12
    assert set(QA_PUBLIC_SCHEMA) | set(QA_ANSWER_SCHEMA) == set(tasks.columns)
    joined = tasks.join(expected.select("task_id", "answer"), on="task_id", suffix="_x")
    assert (joined["answer"] == joined["answer_x"]).all()


def test_load_release_tasks_reads_the_dev_examples(qa_release) -> None:
    release, expected = qa_release(n_tasks=3)
    dev = release / "data" / "qa_examples"
    dev.mkdir(parents=True)
    expected.select(list(TASK_SCHEMA)).write_parquet(dev / "dev.parquet")
    assert load_release_tasks(release, split="dev").height == 3


def test_load_release_tasks_names_the_file_and_reason(qa_release) -> None:
    release, expected = qa_release(n_tasks=4)
    keys_path = release / "private" / "qa_answers.parquet"
    keys = pl.read_parquet(keys_path)
    keys.head(3).write_parquet(keys_path)
    with pytest.raises(ValueError, match=r"qa_answers.parquet: no answer key for 1 tasks"):
        load_release_tasks(release)
    keys.with_columns(lo=pl.lit("oops")).write_parquet(keys_path)
    with pytest.raises(ValueError, match=r"qa_answers.parquet: task qa-0000: lo"):
        load_release_tasks(release)
    pl.concat([keys, keys.head(1)]).write_parquet(keys_path)
    with pytest.raises(ValueError, match="duplicate task ids"):
        load_release_tasks(release)
    keys_path.unlink()
    with pytest.raises(FileNotFoundError, match="qa_answers.parquet: release file missing"):
        load_release_tasks(release)


def _write_jsonl(path: Path, lines: list[object]) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    return path


def test_grade_responses_writes_verdicts_causes_and_problems(qa_release, tmp_path) -> None:
    release, tasks = qa_release(n_tasks=5)
    key = {row["task_id"]: row for row in tasks.iter_rows(named=True)}
    answer = Decimal(key["qa-0000"]["answer"])
    wrong = key["qa-0000"]["known_wrong"][1]
    lines = [
        {
            "task_id": "qa-0000",
            "agent": "a",
            "attempt": 1,
            "response": f"ANSWER: {answer:,}",
            "seconds": 12.5,
            "tokens": 1500.0,
            "cost": 0.5,
        },
        {"task_id": "qa-0000", "agent": "a", "attempt": 2, "response": f"ANSWER: {wrong['value']}"},
        {"task_id": "qa-0000", "agent": "a", "attempt": 3, "response": f"ANSWER: {answer * 1000}"},
        {"task_id": "qa-0000", "agent": "b", "attempt": 1, "response": "ANSWER: not available"},
        {"task_id": "qa-0000", "agent": "b", "attempt": 2, "response": None},
        {"task_id": "qa-9999", "agent": "b", "attempt": 1, "response": "ANSWER: 1"},
        "{not json",
        {"task_id": "qa-0001", "agent": "b", "attempt": "x", "response": "ANSWER: 1"},
        {"task_id": "qa-0000", "agent": "a", "attempt": 1, "response": "ANSWER: 0"},
        {"task_id": "qa-0001", "agent": "b", "attempt": 1, "response": "ANSWER: 1", "cost": "1$"},
        [1, 2],
        {"task_id": "qa-0001", "agent": "b", "attempt": 7, "response": "", "timed_out": True},
        {"task_id": "qa-0001", "agent": "b", "attempt": 8, "response": "", "timed_out": "yes"},
    ]
    responses = _write_jsonl(tmp_path / "responses.jsonl", lines)
    run = grade_responses(release, responses, tmp_path / "out")

    verdicts = pl.read_parquet(run.paths["verdicts"])
    assert verdicts.schema == pl.Schema(VERDICT_SCHEMA)
    assert verdicts.height == 6
    by_key = {(r["agent"], r["attempt"]): r for r in verdicts.iter_rows(named=True)}
    assert by_key[("a", 1)]["passed"] and by_key[("a", 1)]["cause"] is None
    assert by_key[("a", 1)]["tokens"] == 1500 and by_key[("a", 1)]["cost"] == 0.5
    assert Decimal(by_key[("a", 1)]["number"]) == answer
    assert by_key[("a", 2)]["cause"] == CAUSE_KNOWN_WRONG
    assert by_key[("a", 2)]["cause_detail"] == wrong["reason"]
    assert by_key[("a", 2)]["known_wrong_family"] == wrong["family"]
    assert by_key[("a", 3)]["cause"] == CAUSE_BASE
    assert by_key[("b", 1)]["cause"] == CAUSE_ABSTAINED and by_key[("b", 1)]["abstained"]
    assert by_key[("b", 2)]["cause"] == CAUSE_NO_NUMBER
    assert by_key[("a", 1)]["kind"] == key["qa-0000"]["kind"]
    assert by_key[("b", 2)]["timed_out"] is None
    timed_out = verdicts.filter(pl.col("timed_out").fill_null(False))
    assert timed_out["cause"].to_list() == [CAUSE_TIMEOUT]

    problems = pl.read_parquet(run.paths["problems"])
    assert problems.schema == pl.Schema(PROBLEM_SCHEMA)
    reasons = dict(zip(problems["line"].to_list(), problems["problem"].to_list(), strict=True))
    assert reasons[6] == "unknown task id"
    assert reasons[7].startswith("malformed JSON")
    assert reasons[8] == "field 'attempt' missing or not an integer"
    assert reasons[9] == "duplicate attempt (first at line 1)"
    assert reasons[10] == "field 'cost' is not a number"
    assert reasons[11] == "a JSON list, not an object"
    assert reasons[13] == "field 'timed_out' is not a boolean"
    # every non-empty line is either a verdict or a problem
    assert verdicts.height + problems.height == len(lines)
    assert problems.filter(pl.col("line") == 6)["task_id"].item() == "qa-9999"


def test_grade_responses_on_simulated_agents_counts_every_attempt(
    qa_release, simulated_responses, tmp_path
) -> None:
    release, tasks = qa_release(n_tasks=20)
    responses = tmp_path / "sim.jsonl"
    simulated_responses(tasks, {"perfect": 1.0, "hopeless": 0.0}, 2, responses)
    run = grade_responses(release, responses, tmp_path / "out")
    assert run.problems.height == 0
    per_agent = dict(run.verdicts.group_by("agent").agg(pl.col("passed").mean()).iter_rows())
    # quality factor < 1 lowers even a perfect agent on blurry scans; check the clear ones
    clear = run.verdicts.filter(pl.col("quality") == "clear")
    assert clear.filter(pl.col("agent") == "perfect")["passed"].all()
    assert per_agent["hopeless"] == 0.0
    causes = set(run.verdicts.filter(pl.col("agent") == "hopeless")["cause"].to_list())
    assert {CAUSE_KNOWN_WRONG, CAUSE_SIGN, CAUSE_ABSTAINED, CAUSE_NO_NUMBER} <= causes


def test_the_graders_own_cause_is_the_verdicts_cause(qa_release, tmp_path) -> None:
    """A hedge, an unreadable format and a stated unit that contradicts the task's unit
    fail with the grader's cause, not with a cause guessed from the number read (a
    "4.8 billion" answer to a task in millions is a unit error, not a 1,000x "base")."""
    release, tasks = qa_release(n_tasks=5)
    task = next(r for r in tasks.iter_rows(named=True) if r["unit"] == "millions of dollars")
    answer = Decimal(task["answer"])
    billions = answer / 1000
    lines = [
        {"task_id": task["task_id"], "agent": "a", "attempt": 1,
         "response": f"ANSWER: between {answer - 10:,} and {answer + 10:,}"},
        {"task_id": task["task_id"], "agent": "a", "attempt": 2, "response": "ANSWER: 4.8e3"},
        {"task_id": task["task_id"], "agent": "a", "attempt": 3,
         "response": f"ANSWER: {billions} billion dollars"},
    ]  # fmt: skip
    run = grade_responses(release, _write_jsonl(tmp_path / "r.jsonl", lines), tmp_path / "out")
    verdicts = pl.read_parquet(run.paths["verdicts"]).sort("attempt")
    assert not verdicts["passed"].any()
    assert verdicts["cause"].to_list() == [CAUSE_HEDGE, CAUSE_UNREADABLE, CAUSE_UNIT]
    assert set(verdicts["cause"].to_list()) <= set(CAUSES)
