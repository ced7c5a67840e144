"""Workbook judging: grade an agent's output workbook against a task's input and
reference workbooks.

Modules, in the order a case goes through them: ``read`` (workbooks, unreadable
styles skipped), ``scope`` (the answer position), ``layout`` (hidden rows and
columns, autofilters), ``compare`` (one cell against the reference), ``checker``
(the deterministic checker built from diff_ref), ``evidence`` (diffs, snapshots,
prompts), ``render`` (the cell encoding, snapshots, screenshots), ``backend`` (judge
backends and verdicts), ``batch`` (case lists, batch runs, dataset self-checks),
``nearmiss`` (near-miss outputs), ``agreement`` (against human labels), ``llm_judge``
(the LLM backend; its client is imported only when a model is asked).
"""

from pipeline.judge.agreement import Agreement, agreement, load_human_labels
from pipeline.judge.backend import (
    JUDGEMENTS_SCHEMA,
    CheckerJudge,
    Judge,
    Judgement,
    judge_pair,
)
from pipeline.judge.batch import (
    judge_batch,
    judgements_markdown,
    load_cases,
    selfcheck_counts,
    spreadsheetbench_cases,
)
from pipeline.judge.checker import (
    CheckResult,
    WorkbookChecker,
    build_checker,
    task_rejections,
)
from pipeline.judge.evidence import (
    PROMPTS,
    RUBRIC,
    TASK_KINDS,
    BookReader,
    Evidence,
    JudgeCase,
    gather_evidence,
    render_prompt,
)
from pipeline.judge.llm_judge import LLMJudge, make_judge
from pipeline.judge.nearmiss import NearMiss, write_near_miss
from pipeline.judge.scope import Scope, ScopeRange, parse_answer_position, resolve_scope

__all__ = [
    "JUDGEMENTS_SCHEMA",
    "PROMPTS",
    "RUBRIC",
    "TASK_KINDS",
    "Agreement",
    "BookReader",
    "CheckResult",
    "CheckerJudge",
    "Evidence",
    "Judge",
    "JudgeCase",
    "Judgement",
    "LLMJudge",
    "NearMiss",
    "Scope",
    "ScopeRange",
    "WorkbookChecker",
    "agreement",
    "build_checker",
    "gather_evidence",
    "judge_batch",
    "judge_pair",
    "judgements_markdown",
    "load_cases",
    "load_human_labels",
    "make_judge",
    "parse_answer_position",
    "render_prompt",
    "resolve_scope",
    "selfcheck_counts",
    "spreadsheetbench_cases",
    "task_rejections",
    "write_near_miss",
]
