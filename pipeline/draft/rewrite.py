"""Rewrite mode: a model turns a drafted question into natural wording, checked first.

Template questions read like templates ("How much larger was Tax and loan accounts than
Gold in fiscal year 1950 ..."). A rewriter model (``openai:MODEL`` / ``anthropic:MODEL``)
may reword them, but a rewording must ask exactly what the oracle computes. The check is
deterministic and independent of the model: both questions are read back with
validation's own reader (:func:`pipeline.validate.reading.parse_question`) and must agree
on the operation, the periods, the unit, the decimal places, the sign convention, the
revision clause, the table named and every item label; then the rewritten draft must pass
validation's ``question_mismatch`` rule against the cells its oracle reads. A rewrite that
fails any of this is not used: the original question is kept and the reasons are recorded
(the ``rewrites`` table, one row per question sent). Workbook QA questions are not sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl

from pipeline.draft.schemas import DRAFTS_SCHEMA
from pipeline.draft.workbook_qa import WORKBOOK_KINDS
from pipeline.llm.client import LLM, ChatRequest, ChatResponse
from pipeline.llm.errors import LLMError
from pipeline.validate.reading import (
    QuestionReading,
    ReadingContext,
    ReadingError,
    norm,
    parse_question,
    question_reasons,
)

SCHEMA_NAME = "rewrite"

REWRITES_SCHEMA = {
    "task_id": pl.String,
    "original": pl.String,  # the question as drafted
    "rewrite": pl.String,  # the model's wording; null when the call gave none
    "accepted": pl.Boolean,  # the rewrite replaced the question
    "reasons": pl.List(pl.String),  # why it was not used ("<rule>: <detail>")
    "rewriter": pl.String,  # "openai:MODEL" | "anthropic:MODEL"
    "tokens": pl.Int64,
    "cost": pl.Float64,
}

SYSTEM = """\
You edit benchmark questions about government finance statements so they read like a
person wrote them. Keep the meaning exactly: the same items (keep every row and column
label verbatim), the same period phrases verbatim, the same table named the same way,
the same unit, the same precision sentence and the same sign convention. Do not add the
document, page, volume or method. Answer with the JSON object the schema asks for."""


def rewrite_schema() -> dict:
    return {
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
        "additionalProperties": False,
    }


def rewrite_request(question: str) -> ChatRequest:
    body = json.dumps({"question": question}, ensure_ascii=False)
    return ChatRequest(
        system=SYSTEM,
        messages=[{"role": "user", "content": f"Rewrite this question:\n{body}"}],
        schema=rewrite_schema(),
        schema_name=SCHEMA_NAME,
        temperature=0.0,
        max_tokens=512,
        purpose="rewriter",
    )


def _items(reading: QuestionReading) -> set[tuple[str, ...]]:
    return {tuple(norm(i) for i in items) for items in reading.item_readings}


def compare_readings(before: QuestionReading, after: QuestionReading) -> list[str]:
    """What the rewrite changed in what the question asks (empty: nothing)."""
    problems = []
    if after.operation != before.operation:
        problems.append(f"rewrite_operation: {before.operation} became {after.operation}")
    if [p.key for p in after.periods] != [p.key for p in before.periods]:
        was = ", ".join(p.text for p in before.periods) or "none"
        now = ", ".join(p.text for p in after.periods) or "none"
        problems.append(f"rewrite_period: {was!r} became {now!r}")
    if norm(after.unit) != norm(before.unit):
        problems.append(f"rewrite_unit: {before.unit!r} became {after.unit!r}")
    if after.places != before.places:
        problems.append(f"rewrite_precision: {before.places} places became {after.places}")
    if after.sign != before.sign:
        problems.append(
            f"rewrite_sign: sign convention {before.sign or 'unstated'!r} "
            f"became {after.sign or 'unstated'!r}"
        )
    if after.latest != before.latest:
        problems.append("rewrite_revision: the latest-revision clause was added or dropped")
    if norm(after.statement) != norm(before.statement):
        problems.append(f"rewrite_table: {before.statement!r} became {after.statement!r}")
    if before.items and tuple(norm(i) for i in before.items) not in _items(after):
        problems.append(f"rewrite_labels: {list(before.items)} became {list(after.items)}")
    return problems


def rewrite_problems(
    draft: dict, rewritten: str, context: ReadingContext | None = None
) -> list[str]:
    """Why ``rewritten`` may not replace ``draft["question"]`` (empty: it may)."""
    rewritten = " ".join((rewritten or "").split())
    if not rewritten:
        return ["rewrite_empty: the model returned no question"]
    try:
        before = parse_question(draft["question"] or "")
    except ReadingError as error:
        return [f"rewrite_unchecked: the drafted question cannot be read: {error}"]
    try:
        after = parse_question(rewritten)
    except ReadingError as error:
        return [f"rewrite_unreadable: {error}"]
    problems = compare_readings(before, after)
    if not problems:
        problems += question_reasons({**draft, "question": rewritten}, context)
    return problems


def rewrite_drafts(
    llm: LLM,
    drafts: pl.DataFrame,
    warehouse_dir: Path,
    *,
    progress: Callable | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(drafts with every accepted rewrite applied, the ``rewrites`` table).

    A rewritten row keeps everything but its question; its drafter becomes
    ``"<drafter>+<rewriter>"`` and its tokens and cost include the rewrite's.
    """
    rewriter = f"{llm.spec.provider}:{llm.spec.model}"
    rows = drafts.to_dicts()
    chosen = [n for n, r in enumerate(rows) if r["kind"] not in WORKBOOK_KINDS and r["question"]]
    replies = llm.chat_many([rewrite_request(rows[n]["question"]) for n in chosen], progress)
    on_tables = drafts.filter(~pl.col("kind").is_in(list(WORKBOOK_KINDS)))
    context = ReadingContext.load(warehouse_dir, on_tables)
    log = []
    for n, reply in zip(chosen, replies, strict=True):
        row = rows[n]
        tokens, cost, text = 0, 0.0, None
        if isinstance(reply, ChatResponse):
            tokens = reply.input_tokens + reply.output_tokens
            cost = reply.cost_usd or reply.cached_cost_usd
            text = " ".join(str((reply.data or {}).get("question") or "").split()) or None
            reasons = rewrite_problems(row, text or "", context)
            if not reasons and text == " ".join(row["question"].split()):
                reasons = ["rewrite_unchanged: the model returned the question as it was"]
        elif isinstance(reply, LLMError):
            reasons = [f"rewrite_failed: {type(reply).__name__}: {reply}"]
        else:  # pragma: no cover - chat_many returns responses or errors
            reasons = [f"rewrite_failed: {reply!r}"]
        accepted = not reasons
        if accepted:
            rows[n] = {
                **row,
                "question": text,
                "drafter": f"{row['drafter']}+{rewriter}",
                "tokens": (row["tokens"] or 0) + tokens,
                "cost": (row["cost"] or 0.0) + cost,
            }
        log.append(
            {
                "task_id": row["task_id"],
                "original": row["question"],
                "rewrite": text,
                "accepted": accepted,
                "reasons": reasons,
                "rewriter": rewriter,
                "tokens": tokens,
                "cost": cost,
            }
        )
    return (
        pl.DataFrame(rows, schema=DRAFTS_SCHEMA),
        pl.DataFrame(log, schema=REWRITES_SCHEMA),
    )
