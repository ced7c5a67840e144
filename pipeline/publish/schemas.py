"""Parquet contracts of a release (``data/releases/<version>/``).

Layout of a release folder::

    README.md                      dataset card with Hugging Face YAML
    MANIFEST.json                  sha256 of every other file
    CHANGELOG.md                   answer keys changed against the previous release
    data/qa/test.parquet           public QA tasks, no answers      (QA_PUBLIC_SCHEMA)
    data/qa_examples/dev.parquet   public worked examples, with answers
                                   (QA_PUBLIC_SCHEMA + QA_ANSWER_SCHEMA)
    private/qa_answers.parquet     answer keys of data/qa/test      (QA_ANSWER_SCHEMA)
    oracles/<task_id>.py           one oracle program per task
"""

from __future__ import annotations

import polars as pl

KNOWN_WRONG = pl.Struct({"value": pl.String, "reason": pl.String, "family": pl.String})

QA_PUBLIC_SCHEMA = {
    "task_id": pl.String,
    # read_number | sum_rows | difference | change_between_periods | share_of_total |
    # percent_change | multi_year_statistic
    "kind": pl.String,
    "question": pl.String,
    "unit": pl.String,  # e.g. "millions of dollars", "percent"
    "precision": pl.Int32,  # decimal places asked for
    "quality": pl.String,  # worst scan-quality tag among the pages read
    "multi_document": pl.Boolean,  # reads more than one volume
    "source_docs": pl.List(pl.String),  # file names of the volumes the oracle reads
}

QA_ANSWER_SCHEMA = {
    "task_id": pl.String,
    "answer": pl.String,  # exact decimal text of the key
    "lo": pl.String,  # acceptance interval, inclusive
    "hi": pl.String,
    "known_wrong": pl.List(KNOWN_WRONG),
    "oracle_sha256": pl.String,
}
