"""Duplicate drafts: same kind and source cells, or a near-identical question with the same
key; and ambiguous ones: the same question with different keys."""

from __future__ import annotations

import duckdb
import polars as pl
from rapidfuzz import fuzz, utils

from pipeline.store import run_sql

NEAR_IDENTICAL = 95.0  # rapidfuzz ratio (0-100) after lower-casing and stripping punctuation


def duplicate_sources(candidates: pl.DataFrame) -> dict[str, str]:
    """task_id -> the kept task_id it duplicates (same kind, same set of source cells).

    ``candidates``: task_id, kind, sources, priority (0 = no other rejection), ord.
    """
    con = duckdb.connect()
    con.register("dedupe_candidates", candidates)
    found = run_sql(con, "dedupe_sources")
    return dict(zip(found["task_id"], found["duplicate_of"], strict=True))


def near_duplicate_questions(tasks: pl.DataFrame) -> dict[str, str]:
    """task_id -> an earlier task_id with the same key and a near-identical question.

    ``tasks``: task_id, question, answer, unit, in the order of precedence. Only tasks
    with the same key and unit are compared, so the work stays small on big drafts.
    """
    found: dict[str, str] = {}
    keyed = tasks.filter(pl.col("answer").is_not_null())
    for _, group in keyed.group_by(["answer", "unit"], maintain_order=True):
        ids, questions = group["task_id"].to_list(), group["question"].to_list()
        for j in range(1, len(ids)):
            for i in range(j):
                if ids[i] in found:
                    continue
                score = fuzz.ratio(questions[i], questions[j], processor=utils.default_process)
                if score >= NEAR_IDENTICAL:
                    found[ids[j]] = ids[i]
                    break
    return found


def ambiguous_questions(tasks: pl.DataFrame) -> dict[str, str]:
    """task_id -> another task_id whose question reads the same (after lower-casing and
    stripping punctuation) but whose key differs: the question cannot be answered
    exactly, so neither is a task.

    ``tasks``: task_id, question, answer.
    """
    found: dict[str, str] = {}
    keyed = tasks.filter(pl.col("answer").is_not_null()).with_columns(
        norm=pl.col("question").map_elements(utils.default_process, return_dtype=pl.String)
    )
    for _, group in keyed.group_by("norm", maintain_order=True):
        if group["answer"].n_unique() < 2:
            continue
        ids, answers = group["task_id"].to_list(), group["answer"].to_list()
        for i, task_id in enumerate(ids):
            other = next(j for j in range(len(ids)) if answers[j] != answers[i])
            found[task_id] = ids[other]
    return found
