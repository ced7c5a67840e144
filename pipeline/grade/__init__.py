"""Grading: read one number per response, grade runs against a release, metrics, report."""

from pipeline.grade.answers import (
    GRADER_CAUSES,
    RULES,
    Extraction,
    Verdict,
    extract_answer,
    score_answer,
    score_text,
)
from pipeline.grade.metrics import (
    Summary,
    bootstrap_interval,
    holm,
    majority_vote,
    paired_bootstrap,
    pass_at_k,
    pass_hat_k,
    summarize,
)
from pipeline.grade.report import write_report
from pipeline.grade.runs import (
    CAUSES,
    VERDICT_SCHEMA,
    GradeRun,
    failure_cause,
    grade_responses,
    load_release_tasks,
)

__all__ = [
    "CAUSES",
    "GRADER_CAUSES",
    "RULES",
    "VERDICT_SCHEMA",
    "Extraction",
    "GradeRun",
    "Summary",
    "Verdict",
    "bootstrap_interval",
    "extract_answer",
    "failure_cause",
    "grade_responses",
    "holm",
    "load_release_tasks",
    "majority_vote",
    "paired_bootstrap",
    "pass_at_k",
    "pass_hat_k",
    "score_answer",
    "score_text",
    "summarize",
    "write_report",
]
