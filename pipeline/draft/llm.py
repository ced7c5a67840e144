"""The LLM drafter for scanned-archive QA tasks (``openai:MODEL`` / ``anthropic:MODEL``).

It drafts the candidates the template drafter proposes (same cells, kinds, units and
precisions, ``template_candidates``), so the two drafters are comparable and a task id
means the same cells whichever drafted it. For each candidate the model gets the context
of :mod:`pipeline.draft.llm_context` and answers, as a structured object, the question,
the oracle program and known-wrong answers with reasons. Every answer is then checked the
way validation will check it, before validation: the schema and numbers of the answer, the
oracle's static rules and a run in the sandbox (``oracles.sandbox.run_oracles``), the key
and interval against the known-wrong answers and the template's own key for the same
cells (``drafter_key_mismatch``), the cells the oracle read against the candidate's, and
the question read back (``question_mismatch``). A draft with problems gets ``repair_rounds``
follow-up turns (default one) that show the model its answer and every problem; whatever
the last round returns becomes the draft, and ``validate_drafts`` (unchanged) accepts or
rejects it with the usual reasons. Output that never parsed becomes a draft with no oracle
and an ``llm_output`` problem, so every candidate is accounted for.

Known-wrong answers: the model's (rounded to the precision; family as it names it) come
first; the template's deterministic slips for the same cells are added after them
(``keep_template_wrongs``), deduplicated by value. ``expected_answer`` stays the
template's key: an oracle that computes anything else is caught as a key mismatch.

Candidates whose call was not issued because the budget cap was reached, or whose call
failed after the SDK's retries, are left out of the drafts and counted in the stats
(``skipped_budget``, ``failed``): every response already received is kept. Tokens and
cost on each row add up every round of that candidate, at what the answers cost when they
were bought (a rerun from the cache writes the same rows; the money a run actually spends is
in ``llm.stats``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from oracles.sandbox import OracleResult, run_oracles
from pipeline.draft.formulas import evaluate
from pipeline.draft.kinds import TaskSpec
from pipeline.draft.llm_context import (
    SYSTEM,
    ContextBuilder,
    answer_schema,
    decimal_or_none,
    repair_prompt,
)
from pipeline.draft.schemas import DRAFTS_SCHEMA
from pipeline.draft.template import template_candidates
from pipeline.llm.client import LLM, ChatRequest, ChatResponse
from pipeline.llm.errors import BudgetExceeded, LLMError, SchemaViolation
from pipeline.validate.reading import ReadingContext, question_reasons
from pipeline.validate.tasks import interval_reasons, oracle_reasons

log = logging.getLogger(__name__)

SCHEMA_NAME = "qa_draft"
MAX_TOKENS = 2048


@dataclass
class Attempt:
    """One candidate's conversation with the model, round by round."""

    spec: TaskSpec
    template: dict  # the template's draft row for the same candidate
    messages: list[dict]
    responses: list[ChatResponse] = field(default_factory=list)
    row: dict | None = None  # the draft built from the latest answer
    problems: list[str] = field(default_factory=list)  # of the latest answer
    rounds: int = 0  # repair rounds used
    dropped: str = ""  # budget | failed: no draft at all

    @property
    def tokens(self) -> int:
        return sum(r.input_tokens + r.output_tokens for r in self.responses)

    @property
    def cost(self) -> float:
        # what the answers cost when bought: a rerun served from the cache records the same
        return sum(r.cost_usd or r.cached_cost_usd for r in self.responses)


@dataclass
class LLMDraftResult:
    """The drafts (``DRAFTS_SCHEMA``) and what drafting them took."""

    drafts: pl.DataFrame
    stats: dict


def drafter_id(llm: LLM) -> str:
    return f"{llm.spec.provider}:{llm.spec.model}"


def _request(messages: list[dict]) -> ChatRequest:
    return ChatRequest(
        system=SYSTEM,
        messages=[dict(m) for m in messages],
        schema=answer_schema(),
        schema_name=SCHEMA_NAME,
        temperature=0.0,
        max_tokens=MAX_TOKENS,
        purpose="drafter",
    )


def _known_wrong(answer: dict, places: int) -> tuple[list[dict], list[str]]:
    """The model's known-wrong answers rounded to ``places``, and what is wrong with them."""
    out, problems = [], []
    for n, wrong in enumerate(answer.get("known_wrong") or []):
        value = decimal_or_none(wrong.get("value"))
        if value is None:
            problems.append(
                f"schema: known_wrong[{n}].value {wrong.get('value')!r} is not a number"
            )
            continue
        rounded = evaluate("value", [value], places)
        out.append(
            {
                "value": str(rounded),
                "reason": str(wrong.get("reason") or "").strip() or "given by the drafter",
                "family": str(wrong.get("family") or "other"),
            }
        )
    return out, problems


def build_row(
    attempt: Attempt, answer: dict | None, drafter: str, keep_template_wrongs: bool = True
) -> tuple[dict, list[str]]:
    """The draft row from a parsed answer (or from none), and the answer's own problems."""
    template = attempt.template
    problems: list[str] = []
    question = oracle = None
    wrongs: list[dict] = []
    if answer is None:
        problems.append("llm_output: the model gave no answer that fits the schema")
    else:
        question = str(answer.get("question") or "").strip() or None
        oracle = str(answer.get("oracle") or "").strip() or None
        if question is None:
            problems.append("schema: the question is empty")
        if oracle is None:
            problems.append("schema: the oracle is empty")
        wrongs, wrong_problems = _known_wrong(answer, template["precision"])
        problems += wrong_problems
    if keep_template_wrongs:
        seen = {w["value"] for w in wrongs}
        wrongs += [w for w in template["known_wrong"] or [] if w["value"] not in seen]
    row = {
        **template,
        "question": question or template["question"],
        "oracle_source": (oracle + "\n") if oracle else None,
        "known_wrong": wrongs,
        "drafter": drafter,
        "tokens": attempt.tokens,
        "cost": attempt.cost,
    }
    return row, problems


def _read_problems(row: dict, result: OracleResult | None) -> list[str]:
    """The cells the oracle read must be the candidate's cells."""
    if result is None or result.status != "ok":
        return []
    reads = (result.output or {}).get("reads") or []
    got = sorted(
        (r.get("doc"), r.get("page"), r.get("table"), r.get("row_idx"), r.get("col_idx"))
        for r in reads
        if "doc" in r
    )
    want = sorted(
        (s["doc_id"], s["page_no"], s["table_no"], s["row_idx"], s["col_idx"])
        for s in row["sources"]
    )
    if sorted(set(got)) != sorted(set(want)):
        return [f"wrong_cells: the oracle read {sorted(set(got))}, the task reads {want}"]
    return []


_SCRATCH = re.compile(r"/[^\s'\"]*ledgerforge-oracles-[^\s'\"]*")


def _stable(problem: str) -> str:
    """A problem without the sandbox's scratch paths: the repair prompt must be the same
    on a rerun, or the response cache would miss."""
    return _SCRATCH.sub("<scratch>", problem)


def check_drafts(
    attempts: list[Attempt],
    answers: list[dict | None],
    drafter: str,
    warehouse_dir: Path,
    *,
    workers: int | None = None,
    keep_template_wrongs: bool = True,
) -> None:
    """Build each attempt's row from its answer and find every problem validation would."""
    rows, own = [], []
    for attempt, answer in zip(attempts, answers, strict=True):
        row, problems = build_row(attempt, answer, drafter, keep_template_wrongs)
        rows.append(row)
        own.append(problems)
    runnable = {str(n): r["oracle_source"] for n, r in enumerate(rows) if r["oracle_source"]}
    results = run_oracles(runnable, warehouse_dir, workers=workers) if runnable else {}
    context = ReadingContext.load(warehouse_dir, pl.DataFrame(rows, schema=DRAFTS_SCHEMA))
    for n, (attempt, row) in enumerate(zip(attempts, rows, strict=True)):
        result = results.get(str(n))
        problems = list(own[n])
        if result is not None:
            problems += oracle_reasons(result)
            if result.violations:
                problems += [f"static: {v}" for v in result.violations[:5]]
            problems += interval_reasons(row, result)
            problems += _read_problems(row, result)
        if not row["known_wrong"]:
            problems.append("no_known_wrong: the draft lists no known-wrong answer")
        if row["question"]:
            problems += question_reasons(row, context)
        attempt.row = row
        attempt.problems = list(dict.fromkeys(_stable(p) for p in problems))


def _answer(item: ChatResponse | LLMError) -> tuple[dict | None, str]:
    """(parsed answer, the text to show back in a repair round)."""
    if isinstance(item, SchemaViolation):
        return None, item.text
    if isinstance(item, LLMError):
        return None, ""
    return item.data, item.text


def draft_with_llm(
    llm: LLM,
    anchored_cells: pl.DataFrame,
    tables: pl.DataFrame,
    documents: pl.DataFrame,
    warehouse_dir: Path,
    *,
    table_cells: pl.DataFrame | None = None,
    seed: int = 0,
    repair_rounds: int = 1,
    workers: int | None = None,
    keep_template_wrongs: bool = True,
    limit: int | None = None,
    progress: Callable | None = None,
) -> LLMDraftResult:
    """Draft every template candidate with ``llm`` (see the module docstring).

    ``warehouse_dir`` holds the anchored cells the oracles read (the sandbox runs them
    while drafting); ``limit`` drafts only the first candidates (a cheap trial run).
    """
    archive, candidates = template_candidates(
        anchored_cells, tables, documents, seed=seed, table_cells=table_cells
    )
    if limit is not None:
        candidates = candidates[:limit]
    builder = ContextBuilder(archive, candidates, table_cells)
    drafter = drafter_id(llm)
    attempts = [
        Attempt(spec, row, [{"role": "user", "content": builder.prompt(spec, row)}])
        for spec, row in candidates
    ]
    stats = {"candidates": len(attempts), "repair_requests": 0, "repaired": 0}
    pending = attempts
    for round_no in range(repair_rounds + 1):
        if not pending:
            break
        replies = llm.chat_many([_request(a.messages) for a in pending], progress=progress)
        live, answers = [], []
        for attempt, reply in zip(pending, replies, strict=True):
            if isinstance(reply, BudgetExceeded) or (
                isinstance(reply, LLMError) and not isinstance(reply, SchemaViolation)
            ):
                if attempt.row is None:  # never answered: nothing to draft from
                    attempt.dropped = "budget" if isinstance(reply, BudgetExceeded) else "failed"
                    log.warning("candidate %s not drafted: %s", attempt.template["task_id"], reply)
                # else: keep the previous round's draft as it is
                continue
            answered = (
                reply if isinstance(reply, ChatResponse) else getattr(reply, "response", None)
            )
            if isinstance(answered, ChatResponse):  # a schema violation was paid for too
                attempt.responses.append(answered)
            data, text = _answer(reply)
            if round_no:
                attempt.rounds = round_no
            attempt.messages.append({"role": "assistant", "content": text or "(no answer)"})
            live.append(attempt)
            answers.append(data)
        if live:
            check_drafts(
                live,
                answers,
                drafter,
                warehouse_dir,
                workers=workers,
                keep_template_wrongs=keep_template_wrongs,
            )
        if round_no:
            stats["repaired"] += sum(1 for a in live if not a.problems)
        if round_no == repair_rounds:
            break
        pending = [a for a in live if a.problems]
        for attempt in pending:
            attempt.messages.append({"role": "user", "content": repair_prompt(attempt.problems)})
        stats["repair_requests"] += len(pending)

    rows = []
    for attempt in attempts:
        if attempt.row is None:
            continue
        row = dict(attempt.row)
        row["tokens"], row["cost"] = attempt.tokens, attempt.cost
        if row["oracle_source"] is None:
            found = [p for p in attempt.problems if p.startswith("llm_output")]
            row["problems"] = [*row["problems"], *found]
        rows.append(row)
    stats.update(
        drafted=len(rows),
        clean=sum(1 for a in attempts if a.row is not None and not a.problems),
        with_problems=sum(1 for a in attempts if a.row is not None and a.problems),
        skipped_budget=sum(1 for a in attempts if a.dropped == "budget"),
        failed=sum(1 for a in attempts if a.dropped == "failed"),
    )
    return LLMDraftResult(pl.DataFrame(rows, schema=DRAFTS_SCHEMA), stats)
