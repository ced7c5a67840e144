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

A rewrite is **rejected** (with a reason, the template instruction kept) when it

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
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import polars as pl

from pipeline.detect.diffs import WorkbookDiff, diff_workbooks
from pipeline.draft.schemas import WORKFLOW_CANDIDATES_SCHEMA, WORKFLOW_DRAFTS_SCHEMA
from pipeline.draft.scrub import ROLE_ASKED, ROLE_ASKER, People, personal_data, scrub_text
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


# --------------------------------------------------------------------------- requirements


@dataclass(frozen=True)
class Requirements:
    """What an instruction must name: from the diff's sheets and the template's lines."""

    sheets: tuple[str, ...] = ()
    spans: tuple[str, ...] = ()  # "C3", "E2:E5"
    values: tuple[str, ...] = ()  # values to enter and number formats, as the template writes them
    formulas: tuple[str, ...] = ()
    axes: tuple[str, ...] = ()  # "insert rows 4:4", "delete columns Y:Z"

    def without(self, missing: Iterable[tuple[str, str]]) -> Requirements:
        """These requirements less the ``(field, item)`` pairs given."""
        drop = set(missing)
        return Requirements(
            *(
                tuple(x for x in getattr(self, f) if (f, x) not in drop)
                for f in ("sheets", "spans", "values", "formulas", "axes")
            )
        )


_SHEET = r"'(?:[^']|'')+'"
_SPAN = re.compile(rf"{_SHEET}!([A-Z]{{1,3}}\d+(?::[A-Z]{{1,3}}\d+)?)")
_QUOTED_OR_NUMBER = re.compile(r"'([^']*)'|(-?[\d,]*\d(?:\.\d+)?%?)")
_ENTER = re.compile(rf"^(?:enter|fill in|change the values to) (.*) in {_SHEET}!\S+$")
_CHANGE = re.compile(rf"^in {_SHEET}!\S+, change .* to (.+)$")
_FORMULA = re.compile(rf"^in {_SHEET}!\S+, put the formula (.+?)(?: \(and copy it down\))?$")
_FORMAT = re.compile(rf"^format {_SHEET}!\S+ as '(.*)'$")
_INSERT = re.compile(rf"^insert \d+ new (row|column)s? at (\S+) in {_SHEET}$")
_DELETE = re.compile(rf"^delete (row|column)s (\S+) of {_SHEET}$")
_CHART = re.compile(r"^add an? (?:\w+ )?chart to ")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\d])")


def _values_in(part: str) -> list[str]:
    out = []
    for quoted, number in _QUOTED_OR_NUMBER.findall(part):
        if quoted:
            out.append(quoted)
        elif number:
            out.append(number)
    return [v for v in out if v and v != "..."]


def requirements_from_lines(lines: Iterable[str], diff: WorkbookDiff | None = None) -> Requirements:
    """The sheets, cell spans, values, number formats, formulas and row/column inserts
    and deletes the instruction lines name (sheets also from ``diff``: every added,
    removed, renamed or changed sheet)."""
    sheets: list[str] = []
    if diff is not None:
        for sd in diff.sheets:
            if sd.status in ("added", "removed", "renamed") or sd.changed:
                sheets.append(sd.sheet)
                if sd.status == "renamed" and sd.before_name:
                    sheets.append(sd.before_name)
    spans: list[str] = []
    values: list[str] = []
    formulas: list[str] = []
    axes: list[str] = []
    for line in lines:
        spans += _SPAN.findall(line)
        if m := _FORMULA.match(line):
            formulas.append(m.group(1))
        elif m := _CHANGE.match(line):
            values += _values_in(m.group(1)) or [m.group(1)]
        elif m := _ENTER.match(line):
            values += _values_in(m.group(1))
        elif m := _FORMAT.match(line):
            values.append(m.group(1))
        elif m := _INSERT.match(line):
            axes.append(f"insert {m.group(1)}s {m.group(2)}")
        elif m := _DELETE.match(line):
            axes.append(f"delete {m.group(1)}s {m.group(2)}")
        elif _CHART.match(line):
            values.append("chart")
    values = [v for v in values if v != "empty"]
    return Requirements(*(tuple(dict.fromkeys(x)) for x in (sheets, spans, values, formulas, axes)))


def _as_number(text: str) -> float | None:
    try:
        return float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return None


def _has_address(text: str, address: str) -> bool:
    return (
        re.search(rf"(?<![A-Za-z0-9$]){re.escape(address)}(?!\d)", text.replace("$", ""))
        is not None
    )


def _has_word(text: str, word: str, flags: int = re.IGNORECASE) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", text, flags) is not None


def _has_axis(text: str, axis: str) -> bool:
    """An insert/delete is named: its verb, and its span ("4:4", "Y:Z") or each end
    within a few words after "row(s)"/"column(s)" ("at row 4", "columns Y and Z")."""
    verb, kind, span = axis.split(" ", 2)
    verbs = ("insert", "add") if verb == "insert" else ("delete", "remove")
    if not any(_has_word(text, v) or _has_word(text, v + "s") for v in verbs):
        return False
    if _has_word(text, span, 0):
        return True
    noun = "rows?" if kind == "rows" else "columns?"
    return all(
        re.search(
            rf"(?i:\b{noun})\b[^.\n]{{0,30}}?(?<![A-Za-z0-9]){re.escape(end)}(?![A-Za-z0-9])",
            text,
        )
        for end in span.split(":")
    )


def _missing(text: str, req: Requirements) -> list[tuple[str, str, str]]:
    """``(field, item, label)`` of each requirement ``text`` does not name."""
    out: list[tuple[str, str, str]] = []
    folded = text.casefold()
    numbers = {n for n in (_as_number(x) for x in _NUMBER.findall(text)) if n is not None}
    for sheet in req.sheets:
        if sheet.casefold() not in folded:
            out.append(("sheets", sheet, f"sheet '{sheet}'"))
    for span in req.spans:
        ends = span.split(":")
        if not (_has_address(text, span) or all(_has_address(text, e) for e in ends)):
            out.append(("spans", span, f"cell {span}"))
    for value in req.values:
        as_number = _as_number(value)
        if as_number is not None:
            if not any(abs(as_number - n) <= 1e-9 * max(1.0, abs(n)) for n in numbers):
                out.append(("values", value, f"value {value}"))
        elif not (_has_word(text, value) or value.casefold() in folded and not value.isalnum()):
            out.append(("values", value, f"value '{value}'"))
    squeezed = re.sub(r"\s+", "", text).casefold().replace("$", "")
    for formula in req.formulas:
        if re.sub(r"\s+", "", formula).casefold().replace("$", "") not in squeezed:
            out.append(("formulas", formula, f"formula {formula}"))
    for axis in req.axes:
        if not _has_axis(text, axis):
            out.append(("axes", axis, axis))
    return out


def missing_requirements(text: str, req: Requirements) -> list[str]:
    """Each requirement ``text`` does not name (``"sheet 'Sales'"``, ``"cell E2:E5"``...)."""
    return [label for _, _, label in _missing(text, req)]


def baseline_requirements(req: Requirements, template: str) -> Requirements:
    """The requirements the template instruction itself meets: a rewrite is held to
    what the accepted template says, not more (a value the template's scrubbing turned
    into a placeholder is not asked of the rewrite)."""
    return req.without((f, item) for f, item, _ in _missing(template, req))


def check_instruction(text: str, req: Requirements, people: People | None) -> str | None:
    """Why a rewritten instruction is rejected (``"rule: detail"``), or None."""
    if not text or not text.strip():
        return "empty: the instruction is empty"
    found = personal_data(text, people)
    if found:
        kinds = sorted({d.kind for d in found})
        return f"personal_data: the rewrite holds {', '.join(kinds)}"
    missing = missing_requirements(text, req)
    if missing:
        shown = ", ".join(missing[:8]) + (
            f" and {len(missing) - 8} more" if len(missing) > 8 else ""
        )
        return f"omits_required: the rewrite does not name {shown}"
    return None


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
        lines = [scrub_text(line, people) for line in describe_diff(diff, reference_wb)[0]]
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
