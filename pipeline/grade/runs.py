"""Grading runs: every attempt of every agent in a responses file, graded against a release.

Input is JSONL, one attempt per line::

    {"task_id": "qa-0001", "agent": "opus", "attempt": 1, "response": "... ANSWER: 2,602",
     "seconds": 312.5, "tokens": 48211, "cost": 1.56}

``seconds``, ``tokens``, ``cost`` and ``timed_out`` (true when the agent's time limit
ended the attempt) are optional. Output is ``verdicts.parquet`` (one row
per graded attempt, :data:`VERDICT_SCHEMA`) and ``problems.parquet`` (every line that was
not graded and why: malformed JSON, missing field, unknown task id, duplicate attempt).
Nothing is dropped without a row in one of the two.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.grade.answers import (
    CAUSE_HEDGE,
    CAUSE_UNIT,
    CAUSE_UNREADABLE,
    parse_decimal,
    score_answer,
    task_interval,
)
from pipeline.publish.schemas import QA_ANSWER_SCHEMA, QA_PUBLIC_SCHEMA
from pipeline.store import check_schema

# Failure causes, most specific first; a passed attempt has no cause (null).
CAUSE_KNOWN_WRONG = "known_wrong"
CAUSE_SIGN = "sign_flipped"
CAUSE_BASE = "base"
CAUSE_MISREAD = "misread_digit"
CAUSE_ABSTAINED = "abstained"
CAUSE_NO_NUMBER = "no_number"
CAUSE_TIMEOUT = "timeout"
CAUSE_OTHER = "other_wrong_number"
CAUSES = (
    CAUSE_HEDGE,
    CAUSE_UNREADABLE,
    CAUSE_UNIT,
    CAUSE_KNOWN_WRONG,
    CAUSE_SIGN,
    CAUSE_BASE,
    CAUSE_MISREAD,
    CAUSE_ABSTAINED,
    CAUSE_NO_NUMBER,
    CAUSE_TIMEOUT,
    CAUSE_OTHER,
)

VERDICT_SCHEMA = {
    "task_id": pl.String,
    "agent": pl.String,
    "attempt": pl.Int32,
    "line": pl.Int64,  # line of the responses file, for tracing a verdict back
    "number": pl.String,  # exact decimal text of the number read, null when none
    "rule": pl.String,  # the grader rule that fired (pipeline.grade.answers.RULES)
    "passed": pl.Boolean,
    "abstained": pl.Boolean,
    "cause": pl.String,  # one of CAUSES, null when passed
    "cause_detail": pl.String,  # the known-wrong reason, or what the number is off by
    "known_wrong_family": pl.String,
    "seconds": pl.Float64,
    "tokens": pl.Int64,
    "cost": pl.Float64,
    "kind": pl.String,
    "quality": pl.String,
    "multi_document": pl.Boolean,
    "timed_out": pl.Boolean,  # from the responses file; null when not given
}

PROBLEM_SCHEMA = {
    "line": pl.Int64,
    "task_id": pl.String,
    "agent": pl.String,
    "attempt": pl.Int32,
    "problem": pl.String,
}

TASK_SCHEMA = {**QA_PUBLIC_SCHEMA, **{k: v for k, v in QA_ANSWER_SCHEMA.items() if k != "task_id"}}


@dataclass
class GradeRun:
    """A graded responses file: verdicts, problems, the release tasks and written paths."""

    release_dir: Path
    responses: Path
    tasks: pl.DataFrame
    verdicts: pl.DataFrame
    problems: pl.DataFrame
    paths: dict[str, Path] = field(default_factory=dict)


def _read_checked(path: Path, schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """A release Parquet file checked against its declared schema."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: release file missing")
    # glob=False: the release's path may hold [ ] * ?, which polars would expand
    return check_schema(pl.read_parquet(path, glob=False), schema, str(path))


def load_release_tasks(release_dir: Path, split: str = "test") -> pl.DataFrame:
    """The tasks of a release with their answer keys, one row per task (:data:`TASK_SCHEMA`).

    ``split="test"`` joins ``data/qa/test.parquet`` with ``private/qa_answers.parquet``;
    ``split="dev"`` reads the worked examples ``data/qa_examples/dev.parquet``, which carry
    both. Raises ``ValueError`` naming the file for duplicate task ids, tasks without a key
    or keys without a task, and unreadable intervals or known-wrong values.
    """
    release_dir = Path(release_dir)
    if split == "dev":
        path = release_dir / "data" / "qa_examples" / "dev.parquet"
        tasks = _read_checked(path, TASK_SCHEMA)
        where = str(path)
    elif split == "test":
        public_path = release_dir / "data" / "qa" / "test.parquet"
        keys_path = release_dir / "private" / "qa_answers.parquet"
        public = _read_checked(public_path, QA_PUBLIC_SCHEMA)
        keys = _read_checked(keys_path, QA_ANSWER_SCHEMA)
        for frame, path in ((public, public_path), (keys, keys_path)):
            _check_unique(frame, str(path))
        without_key = public.join(keys, on="task_id", how="anti")["task_id"].to_list()
        without_task = keys.join(public, on="task_id", how="anti")["task_id"].to_list()
        if without_key:
            raise ValueError(
                f"{keys_path}: no answer key for {len(without_key)} tasks of "
                f"{public_path}, e.g. {without_key[:5]}"
            )
        if without_task:
            raise ValueError(
                f"{keys_path}: {len(without_task)} keys for tasks absent from "
                f"{public_path}, e.g. {without_task[:5]}"
            )
        tasks = public.join(keys, on="task_id", how="inner").select(list(TASK_SCHEMA))
        where = str(keys_path)
    else:
        raise ValueError(f"{release_dir}: unknown split {split!r} (expected 'test' or 'dev')")
    _check_unique(tasks, where)
    for row in tasks.iter_rows(named=True):
        _check_key(row, where)
    return tasks.sort("task_id")


def _check_unique(frame: pl.DataFrame, where: str) -> None:
    duplicated = frame.filter(pl.col("task_id").is_duplicated())["task_id"].unique().to_list()
    if duplicated:
        raise ValueError(f"{where}: duplicate task ids {sorted(duplicated)[:5]}")


def _check_key(row: Mapping[str, Any], where: str) -> None:
    """Every number of a key must parse, so that grading never fails half-way."""
    task_id = row["task_id"]
    try:
        task_interval(row)
        parse_decimal(row["answer"], f"task {task_id}: answer")
        for wrong in row["known_wrong"] or []:
            parse_decimal(wrong["value"], f"task {task_id}: known_wrong value")
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from error


def read_responses(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Attempts and problem rows from a responses JSONL file.

    An attempt needs ``task_id`` and ``agent`` (strings), ``attempt`` (integer) and
    ``response`` (string or null: a null response reads as no number). Optional
    ``seconds``, ``tokens`` and ``cost`` must be numbers, ``timed_out`` a boolean. Lines
    that break these rules and repeated (task_id, agent, attempt) triples become problem
    rows.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: responses file missing")
    attempts: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    first_line: dict[tuple[str, str, int], int] = {}
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            record, problem = _parse_attempt(text)
            if problem is not None:
                problems.append(_problem(number, record, problem))
                continue
            triple = (record["task_id"], record["agent"], record["attempt"])
            if triple in first_line:
                problems.append(
                    _problem(
                        number, record, f"duplicate attempt (first at line {first_line[triple]})"
                    )
                )
                continue
            first_line[triple] = number
            attempts.append({**record, "line": number})
    return attempts, problems


def _parse_attempt(text: str) -> tuple[dict[str, Any], str | None]:
    """One JSONL line as an attempt record, or the reason it is not one."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        return {}, f"malformed JSON: {error.msg} at column {error.colno}"
    if not isinstance(record, dict):
        return {}, f"a JSON {type(record).__name__}, not an object"
    for name in ("task_id", "agent"):
        if not isinstance(record.get(name), str) or not record[name]:
            return record, f"field {name!r} missing or not a string"
    attempt = record.get("attempt")
    if isinstance(attempt, bool) or not isinstance(attempt, int):
        return record, "field 'attempt' missing or not an integer"
    if "response" not in record:
        return record, "field 'response' missing"
    if record["response"] is not None and not isinstance(record["response"], str):
        return record, "field 'response' is not a string"
    for name in ("seconds", "tokens", "cost"):
        value = record.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            return record, f"field {name!r} is not a number"
    if record.get("timed_out") is not None and not isinstance(record["timed_out"], bool):
        return record, "field 'timed_out' is not a boolean"
    return record, None


def _problem(line: int, record: Mapping[str, Any], problem: str) -> dict[str, Any]:
    attempt = record.get("attempt")
    return {
        "line": line,
        "task_id": record.get("task_id") if isinstance(record.get("task_id"), str) else None,
        "agent": record.get("agent") if isinstance(record.get("agent"), str) else None,
        "attempt": attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else None,
        "problem": problem,
    }


def failure_cause(
    number: Decimal | None, abstained: bool, task: Mapping[str, Any], timed_out: bool = False
) -> tuple[str, str | None, str | None]:
    """Why a failed attempt failed: ``(cause, detail, known_wrong_family)``.

    In order: abstained; no number (``timeout`` when the time limit ended the attempt
    before it gave one); matches a known-wrong answer (within the half-width
    of the acceptance interval, with that answer's reason); the sign flipped; off by a
    power of 1000 (another base: thousands vs millions); one digit off (a misread digit,
    compared at the finer of the two precisions); any other wrong number.
    """
    if abstained:
        return CAUSE_ABSTAINED, None, None
    if number is None:
        return (CAUSE_TIMEOUT if timed_out else CAUSE_NO_NUMBER), None, None
    lo, hi = task_interval(task)
    half_width = (hi - lo) / 2
    for wrong in task.get("known_wrong") or []:
        value = parse_decimal(wrong["value"], "known_wrong value")
        if abs(number - value) <= half_width:
            return CAUSE_KNOWN_WRONG, wrong.get("reason"), wrong.get("family")
    if number != 0 and lo <= -number <= hi:
        return CAUSE_SIGN, "sign flipped", None
    for power in (1, 2, 3):
        scale = Decimal(1000) ** power
        if lo <= number * scale <= hi:
            return CAUSE_BASE, f"{scale:,} times too small", None
        if lo <= number / scale <= hi:
            return CAUSE_BASE, f"{scale:,} times too large", None
    key = parse_decimal(task["answer"], "answer")
    position = _one_digit_off(number, key)
    if position is not None:
        return CAUSE_MISREAD, position, None
    return CAUSE_OTHER, None, None


def _one_digit_off(number: Decimal, key: Decimal) -> str | None:
    """``"read 6 for 8"`` when the two numbers differ in exactly one digit, else None."""
    if (number < 0) != (key < 0):
        return None
    places = max(0, -number.as_tuple().exponent, -key.as_tuple().exponent)  # type: ignore[operator]
    if places > 12:
        return None
    quantum = Decimal(1).scaleb(-places)
    read = f"{abs(number).quantize(quantum):f}"
    expected = f"{abs(key).quantize(quantum):f}"
    if len(read) != len(expected):
        return None
    differing = [(r, e) for r, e in zip(read, expected, strict=True) if r != e]
    if len(differing) != 1:
        return None
    got, want = differing[0]
    return f"read {got} for {want}"


def grade_responses(
    release_dir: Path, responses_jsonl: Path, out_dir: Path, split: str = "test"
) -> GradeRun:
    """Grade every attempt of a responses file against a release and write the verdicts.

    Writes ``out_dir/verdicts.parquet`` (:data:`VERDICT_SCHEMA`) and
    ``out_dir/problems.parquet`` (:data:`PROBLEM_SCHEMA`: malformed lines, unknown task ids,
    duplicate attempts; each ungraded line appears there).
    """
    tasks = load_release_tasks(release_dir, split)
    by_id = {row["task_id"]: row for row in tasks.iter_rows(named=True)}
    attempts, problems = read_responses(responses_jsonl)
    rows = []
    for attempt in attempts:
        task = by_id.get(attempt["task_id"])
        if task is None:
            problems.append(_problem(attempt["line"], attempt, "unknown task id"))
            continue
        verdict = score_answer(task, attempt["response"])
        cause, detail, family = (
            (None, None, None)
            if verdict.passed
            # the grader's own cause (a hedge, an unreadable format, a stated unit that
            # contradicts the task's) is the reason; a unit slip is not a "base" error
            else (verdict.cause, verdict.detail, None)
            if verdict.cause
            else failure_cause(
                verdict.number, verdict.abstained, task, bool(attempt.get("timed_out"))
            )
        )
        rows.append(
            {
                "task_id": attempt["task_id"],
                "agent": attempt["agent"],
                "attempt": attempt["attempt"],
                "line": attempt["line"],
                "number": None if verdict.number is None else str(verdict.number),
                "rule": verdict.rule,
                "passed": verdict.passed,
                "abstained": verdict.abstained,
                "cause": cause,
                "cause_detail": detail,
                "known_wrong_family": family,
                "seconds": attempt.get("seconds"),
                "tokens": attempt.get("tokens"),
                "cost": attempt.get("cost"),
                "kind": task["kind"],
                "quality": task["quality"],
                "multi_document": task["multi_document"],
                "timed_out": attempt.get("timed_out"),
            }
        )
    # strict=False: JSON numbers such as tokens 1500.0 cast to the declared integer type
    verdicts = pl.DataFrame(rows, schema=VERDICT_SCHEMA, strict=False)
    problem_frame = pl.DataFrame(problems, schema=PROBLEM_SCHEMA).sort("line")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"verdicts": out_dir / "verdicts.parquet", "problems": out_dir / "problems.parquet"}
    verdicts.write_parquet(paths["verdicts"])
    problem_frame.write_parquet(paths["problems"])
    return GradeRun(
        release_dir=Path(release_dir),
        responses=Path(responses_jsonl),
        tasks=tasks,
        verdicts=verdicts,
        problems=problem_frame,
        paths=paths,
    )


def load_grade_run(grading_dir: Path, release_dir: Path, split: str = "test") -> GradeRun:
    """A grading folder written by :func:`grade_responses`, read back to re-render its report."""
    grading_dir = Path(grading_dir)
    verdicts = _read_checked(grading_dir / "verdicts.parquet", VERDICT_SCHEMA)
    problems_path = grading_dir / "problems.parquet"
    problems = (
        _read_checked(problems_path, PROBLEM_SCHEMA)
        if problems_path.is_file()
        else pl.DataFrame(schema=PROBLEM_SCHEMA)
    )
    return GradeRun(
        release_dir=Path(release_dir),
        responses=grading_dir / "verdicts.parquet",
        tasks=load_release_tasks(release_dir, split),
        verdicts=verdicts,
        problems=problems,
    )
