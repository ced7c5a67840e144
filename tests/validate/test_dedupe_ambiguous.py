"""The same question with two different keys cannot be answered exactly: both rejected."""

from __future__ import annotations

import polars as pl

from pipeline.validate.dedupe import ambiguous_questions


def test_same_question_different_keys_are_ambiguous():
    tasks = pl.DataFrame(
        {
            "task_id": ["a", "b", "c", "d"],
            "question": ["What is the total of B2:B5 in 'budget.xlsx'?"] * 2
            + ["What is the total of C2:C5?", "What is the total of C2:C5 ?"],
            "answer": ["10", "12", "7", "7"],
        }
    )
    found = ambiguous_questions(tasks)
    assert found == {"a": "b", "b": "a"}  # c and d share their key: near duplicates, not this
