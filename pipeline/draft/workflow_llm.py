"""The LLM drafter of workflow instructions: a model rewrites the template's instruction
so it reads like a colleague's e-mail, and a deterministic check decides whether the
rewrite may replace it.

Only the instruction is the model's: the checker, the input and the reference stay the
template drafter's (:mod:`pipeline.draft.workflows`), so validation and grading do not
depend on the model. The model sees

- the goal sentences of the thread, **scrubbed first** (people become roles, personal
  data placeholders: :mod:`pipeline.draft.scrub`), so nothing personal is ever sent;
- the step summary and the template's list of edits (from ``diff_ref``);
- a snapshot of the changed sheets of the input in the ``(Address, Value, Type,
  Formula)`` encoding (:mod:`pipeline.judge.render`);
- the template instruction itself.

A rewrite is **rejected** (with a reason, the template instruction kept; the check is
:mod:`pipeline.draft.instruction_check`) when it

- holds personal data (:func:`pipeline.draft.scrub.personal_data`, the validator's
  own test): the model was shown none, so any it writes is a leak or an invention and
  is not patched over;
- omits a sheet the diff changes, a cell or range an edit names (a range may be given
  by its two ends), a value to enter (numbers compared as numbers) or a formula to
  write: an instruction that drops one is underspecified for the checker.

A schema-violating or rejected answer gets ``repairs`` rounds (default one) with the
reason fed back. Drafts the validator would reject anyway (problems, trivial steps)
are not sent, which saves the money.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from pipeline.detect.diffs import WorkbookDiff, diff_workbooks
from pipeline.draft.instruction_check import (
    Requirements,
    baseline_requirements,
    check_instruction,
    missing_requirements,
    requirements_from_lines,
)
from pipeline.draft.schemas import WORKFLOW_CANDIDATES_SCHEMA, WORKFLOW_DRAFTS_SCHEMA
from pipeline.draft.scrub import ROLE_ASKED, ROLE_ASKER, People, scrub_text
from pipeline.draft.workflows import _goal_text, _people, describe_diff
from pipeline.ingest.workbooks import Workbook
from pipeline.judge.render import edit_positions, snapshot_sheet

__all__ = [
    "DRAFTER_ID",
    "INSTRUCTION_SCHEMA",
    "WORKFLOW_REWRITES_SCHEMA",
    "Requirements",
    "WorkflowContext",
    "apply_rewrites",
    "baseline_requirements",
    "check_instruction",
    "draft_workflows_llm",
    "missing_requirements",
    "requirements_from_lines",
    "rewrite_workflow_instructions",
    "workflow_contexts",
]

log = logging.getLogger(__name__)

DRAFTER_ID = "workflow-llm-v1"
MAX_SNAPSHOT_CHARS = 12_000

INSTRUCTION_SCHEMA: dict = {
    "type": "object",
    "properties": {"instruction": {"type": "string"}},
    "required": ["instruction"],
    "additionalProperties": False,
}

WORKFLOW_REWRITES_SCHEMA = {
    "task_id": pl.String,
    "status": pl.String,  # accepted | rejected | error | skipped
    "reason": pl.String,  # why rejected / error / skipped ("rule: detail"); null if accepted
    "instruction": pl.String,  # the accepted rewrite (a rejected text is never kept)
    "rounds": pl.Int32,  # model calls made (1 + repair rounds)
    "input_tokens": pl.Int64,
    "output_tokens": pl.Int64,
    "cost_usd": pl.Float64,
    "cached": pl.Boolean,  # every call answered from the cache
    "model": pl.String,  # provider:model
}

SYSTEM_PROMPT = (
    "You write the e-mail a finance colleague sends when handing over a spreadsheet "
    "task. You write plainly and concretely, in the first person, and you never invent "
    "names, e-mail addresses, phone numbers or account numbers: people are referred to "
    f"only by role ('{ROLE_ASKER}', '{ROLE_ASKED}', 'a colleague'). You answer only "
    'with a JSON object {"instruction": "..."}.'
)

PROMPT = """Rewrite the task below as a short e-mail from a colleague asking for the workbook
to be updated. The reader gets the attached workbook and your e-mail, nothing else.

## What was asked in the thread (people replaced by roles)
{goals}

## What the finished workbook changes
{summary}
{steps}
Edits (the finished workbook has all of them; cell addresses are those of the finished
workbook):
{lines}

## The attached workbook (changed sheets; cells as (Address, Value, Type, Formula))
{snapshot}

## A plain version of the instruction
{template}

## Rules
- Keep every concrete detail of the edits: each sheet name, each cell or range
  address, each value to enter (exactly as written), each formula (exactly as written,
  and say when it is copied down), each insert, delete, rename and format.
- Add nothing that is not in the edits; do not mention the reference or a checker.
- No personal names, e-mail addresses, phone numbers or account numbers.
- Write it as a colleague would: a greeting, the request with its reason when the
  thread gives one, the list of edits, and a request to send the workbook back.

Answer with {{"instruction": "<the e-mail text>"}}."""

REPAIR_PROMPT = """Your previous answer cannot be used: {reason}
Write the instruction again following every rule above, and answer only with
{{"instruction": "<the e-mail text>"}}."""


# --------------------------------------------------------------------------- context


@dataclass
class WorkflowContext:
    """What the model is shown for one draft (all of it scrubbed), and what it must keep."""

    task_id: str
    template: str
    goals: list[str] = field(default_factory=list)
    summary: str = ""
    lines: list[str] = field(default_factory=list)
    steps: int = 1
    snapshot: str = ""
    requirements: Requirements = field(default_factory=Requirements)
    people: People = field(default_factory=People)

    def prompt(self) -> str:
        goals = "\n".join(f'- "{g}"' for g in self.goals) or "(no request in the thread)"
        steps = (
            f"\nThe finished workbook is {self.steps} rounds of edits later; the request is "
            "for the final version.\n"
            if self.steps > 1
            else ""
        )
        return PROMPT.format(
            goals=goals,
            summary=self.summary or "(no summary)",
            steps=steps,
            lines="\n".join(f"- {line}" for line in self.lines) or "(none)",
            snapshot=self.snapshot or "(none)",
            template=self.template,
        )


def _snapshot(input_wb: Workbook, diff: WorkbookDiff, limit: int) -> str:
    before = edit_positions(diff, "before")
    renamed = {s.sheet: s.before_name for s in diff.sheets if s.status == "renamed"}
    parts = []
    for sd in diff.changed_sheets:
        name = renamed.get(sd.sheet) or sd.sheet
        sheet = input_wb.sheets.get(name)
        if sheet is None:
            parts.append(f"## Sheet: {sd.sheet} (new in the finished workbook)")
            continue
        parts.append(
            snapshot_sheet(sheet, before.rows.get(name, set()), before.cols.get(name, set()))
        )
    text = "\n\n".join(parts)
    if len(text) > limit:
        text = text[:limit] + f"\n... (clipped: {len(text) - limit} more characters)"
    return text


def _skip_reason(draft: dict) -> str | None:
    if not draft.get("instruction"):
        return "skipped: no template instruction"
    if draft.get("problems"):
        return "skipped: the draft has problems (" + "; ".join(draft["problems"])[:200] + ")"
    if draft.get("trivial_reason"):
        return f"skipped: trivial step ({draft['trivial_reason']})"
    return None


def workflow_contexts(
    drafts: pl.DataFrame,
    load_workbook: Callable[[str], Workbook],
    *,
    candidates: pl.DataFrame | None = None,
    messages: pl.DataFrame | None = None,
    threads: pl.DataFrame | None = None,
    max_snapshot_chars: int = MAX_SNAPSHOT_CHARS,
) -> tuple[list[WorkflowContext], dict[str, str]]:
    """The model's context of every draft worth rewriting, and the skip reason of the
    others (task_id -> ``"skipped: ..."`` / ``"error: ..."``)."""
    by_id = {}
    if candidates is not None and candidates.height:
        by_id = {c["candidate_id"]: c for c in candidates.iter_rows(named=True)}
    contexts: list[WorkflowContext] = []
    skipped: dict[str, str] = {}
    for d in drafts.iter_rows(named=True):
        reason = _skip_reason(d)
        if reason:
            skipped[d["task_id"]] = reason
            continue
        cand = by_id.get(d["candidate_id"]) or {k: None for k in WORKFLOW_CANDIDATES_SCHEMA}
        people = _people(cand, messages, threads)
        try:
            input_wb = load_workbook(d["input_sha256"])
            reference_wb = load_workbook(d["reference_sha256"])
        except Exception as err:  # noqa: BLE001 - one unreadable workbook, one skip
            skipped[d["task_id"]] = f"error: unreadable workbook: {type(err).__name__}: {err}"[:300]
            continue
        diff = diff_workbooks(input_wb, reference_wb)
        # the edit lines carry cell values: scrubbed like the template's instruction
        lines = [
            scrub_text(line, people) for line in describe_diff(diff, reference_wb, input_wb)[0]
        ]
        contexts.append(
            WorkflowContext(
                task_id=d["task_id"],
                template=d["instruction"],
                goals=_goal_text(list(cand.get("goal_sentences") or []), people),
                summary=scrub_text(d.get("summary") or "", people),
                lines=lines,
                steps=int(d.get("steps") or 1),
                snapshot=scrub_text(_snapshot(input_wb, diff, max_snapshot_chars), people),
                requirements=baseline_requirements(
                    requirements_from_lines(lines, diff), d["instruction"]
                ),
                people=people,
            )
        )
    return contexts, skipped


# --------------------------------------------------------------------------- rewriting


def _request(messages: list[dict], max_tokens: int):  # noqa: ANN202 - ChatRequest
    from pipeline.llm.client import ChatRequest

    return ChatRequest(
        system=SYSTEM_PROMPT,
        messages=messages,
        schema=INSTRUCTION_SCHEMA,
        schema_name="instruction",
        temperature=0.0,
        max_tokens=max_tokens,
        purpose="drafter",
    )


def _instruction_of(resp) -> str:  # noqa: ANN001 - ChatResponse
    data = resp.data
    if data is None:
        from pipeline.llm.client import SchemaViolation

        raise SchemaViolation("the reply is not a JSON object with an instruction", resp.text)
    text = data.get("instruction") if isinstance(data, dict) else None
    if not isinstance(text, str):
        from pipeline.llm.client import SchemaViolation

        raise SchemaViolation("'instruction' must be a string", resp.text)
    return text.strip()


def rewrite_workflow_instructions(
    contexts: list[WorkflowContext],
    llm,  # noqa: ANN001 - pipeline.llm.client.LLM
    *,
    repairs: int = 1,
    max_tokens: int = 1500,
    progress: Callable | None = None,
) -> pl.DataFrame:
    """Ask the model for each context's instruction (``chat_many``: bounded
    concurrency, cache, budget), check each answer, repair up to ``repairs`` rounds;
    one row per context (``WORKFLOW_REWRITES_SCHEMA``)."""
    from pipeline.llm.client import SchemaViolation

    spec = getattr(llm, "spec", None)
    model = f"{spec.provider}:{spec.model}" if spec is not None else None
    state = {
        c.task_id: {
            "messages": [{"role": "user", "content": c.prompt()}],
            "rounds": 0,
            "in": 0,
            "out": 0,
            "cost": 0.0,
            "cached": True,
            "result": None,
        }
        for c in contexts
    }
    pending = list(contexts)
    for round_no in range(repairs + 1):
        if not pending:
            break
        answers = llm.chat_many(
            [_request(state[c.task_id]["messages"], max_tokens) for c in pending],
            progress=progress,
        )
        still: list[WorkflowContext] = []
        for ctx, answer in zip(pending, answers, strict=True):
            st = state[ctx.task_id]
            st["rounds"] += 1
            last = round_no == repairs
            if isinstance(answer, Exception) and not isinstance(answer, SchemaViolation):
                # budget, key, provider: no repair helps; the template stays
                st["cached"] = False
                st["result"] = ("error", f"llm_error: {type(answer).__name__}: {answer}", None)
                continue
            try:
                if isinstance(answer, SchemaViolation):
                    raise answer
                st["in"] += answer.input_tokens
                st["out"] += answer.output_tokens
                st["cost"] += answer.cost_usd
                st["cached"] = st["cached"] and bool(answer.cached)
                bad_text = answer.text
                text = _instruction_of(answer)
                reason = check_instruction(text, ctx.requirements, ctx.people)
            except SchemaViolation as exc:
                # a violation from the client still cost tokens (its .response);
                # one found here was counted above
                paid = getattr(exc, "response", None) if exc is answer else None
                if paid is not None:
                    st["in"] += paid.input_tokens
                    st["out"] += paid.output_tokens
                    st["cost"] += paid.cost_usd
                    st["cached"] = st["cached"] and bool(paid.cached)
                text, bad_text = None, exc.text
                reason = f"schema_violation: {exc}"
            if reason is None:
                st["result"] = ("accepted", None, scrub_text(text, ctx.people))
                continue
            st["result"] = ("rejected", reason, None)
            if not last:
                # the rejected text goes back to the model only; it is never stored
                st["messages"] = st["messages"][:1] + [
                    {"role": "assistant", "content": bad_text or "(empty reply)"},
                    {"role": "user", "content": REPAIR_PROMPT.format(reason=reason)},
                ]
                still.append(ctx)
        pending = still
    rows = []
    for c in contexts:
        st = state[c.task_id]
        status, reason, text = st["result"] or ("error", "llm_error: no answer", None)
        if status != "accepted":
            log.info("workflow instruction %s kept from the template: %s", c.task_id, reason)
        rows.append(
            {
                "task_id": c.task_id,
                "status": status,
                "reason": reason,
                "instruction": text,
                "rounds": st["rounds"],
                "input_tokens": st["in"],
                "output_tokens": st["out"],
                "cost_usd": st["cost"],
                "cached": st["cached"] and st["rounds"] > 0,
                "model": model,
            }
        )
    return pl.DataFrame(rows, schema=WORKFLOW_REWRITES_SCHEMA)


def apply_rewrites(drafts: pl.DataFrame, rewrites: pl.DataFrame) -> pl.DataFrame:
    """``drafts`` with every accepted rewrite as its instruction and the drafter marked
    ``workflow-llm-v1:<provider:model>``; every other draft unchanged."""
    accepted = rewrites.filter(pl.col("status") == "accepted")
    if accepted.is_empty():
        return drafts
    new = dict(zip(accepted["task_id"], accepted["instruction"], strict=True))
    model = dict(zip(accepted["task_id"], accepted["model"], strict=True))
    rows = []
    for d in drafts.iter_rows(named=True):
        if d["task_id"] in new:
            d["instruction"] = new[d["task_id"]]
            d["drafter"] = (
                f"{DRAFTER_ID}:{model[d['task_id']]}" if model[d["task_id"]] else DRAFTER_ID
            )
        rows.append(d)
    return pl.DataFrame(rows, schema=WORKFLOW_DRAFTS_SCHEMA)


def draft_workflows_llm(
    drafts: pl.DataFrame,
    llm,  # noqa: ANN001 - pipeline.llm.client.LLM
    load_workbook: Callable[[str], Workbook],
    *,
    candidates: pl.DataFrame | None = None,
    messages: pl.DataFrame | None = None,
    threads: pl.DataFrame | None = None,
    repairs: int = 1,
    progress: Callable | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Rewrite the instruction column of template workflow drafts with ``llm``.

    Returns ``(drafts, rewrites)``: the drafts (``WORKFLOW_DRAFTS_SCHEMA``, accepted
    rewrites in place, everything else as the template wrote it) and one row per draft
    (``WORKFLOW_REWRITES_SCHEMA``: accepted / rejected / error / skipped, the reason,
    tokens and cost) for the asset's metadata.
    """
    contexts, skipped = workflow_contexts(
        drafts, load_workbook, candidates=candidates, messages=messages, threads=threads
    )
    rewrites = rewrite_workflow_instructions(contexts, llm, repairs=repairs, progress=progress)
    spec = getattr(llm, "spec", None)
    extra = pl.DataFrame(
        [
            {
                "task_id": task_id,
                "status": "error" if why.startswith("error") else "skipped",
                "reason": why,
                "instruction": None,
                "rounds": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cost_usd": 0.0,
                "cached": False,
                "model": f"{spec.provider}:{spec.model}" if spec is not None else None,
            }
            for task_id, why in skipped.items()
        ],
        schema=WORKFLOW_REWRITES_SCHEMA,
    )
    rewrites = pl.concat([rewrites, extra])
    return apply_rewrites(drafts, rewrites), rewrites
