"""The LLM judge backend: a model grades a case from the same evidence the checker
builds (instruction, ``diff_ref``, ``diff_model``, snapshots in the
``(Address, Value, Type, Formula)`` encoding), under the Finch-style modify / generate /
QA prompts of :mod:`pipeline.judge.evidence`.

The model answers with a structured verdict (:data:`VERDICT_SCHEMA`)::

    {"verdict": "pass" | "fail", "rationale": "...",
     "rubric": {"completeness": bool, "numeric_correctness": bool,
                "no_unnecessary_edits": bool, "readable_formatting": bool}}

An answer that is not valid JSON for that schema gets one repair round (the error is fed
back, configurable); a second failure, or any client error (missing key, budget, HTTP),
is an *error* verdict: ``verdict`` null with the reason in ``error``. A malformed
answer is never read as a pass. Rubric marks land in the same Judgement columns as the
checker's (``numeric_correctness`` -> ``correctness``, ``readable_formatting`` ->
``formatting``), so the two backends are compared column by column and both against
human labels (:mod:`pipeline.judge.agreement`).
"""

from __future__ import annotations

import json
import tempfile
import traceback
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.judge.backend import Judgement, judgement_for
from pipeline.judge.evidence import (
    RUBRIC_CRITERIA,
    BookReader,
    Evidence,
    JudgeCase,
    gather_evidence,
    render_prompt,
)

if TYPE_CHECKING:
    from pipeline.llm.client import LLM, ChatResponse

__all__ = [
    "JUDGE_ID",
    "LLM_VERDICT_FORMAT",
    "RUBRIC_KEYS",
    "SYSTEM_PROMPT",
    "VERDICT_SCHEMA",
    "LLMJudge",
    "LLMVerdict",
    "VerdictError",
    "make_judge",
    "parse_verdict",
]

JUDGE_ID = "llm-judge-v1"
RUBRIC_KEYS = ("completeness", "numeric_correctness", "no_unnecessary_edits", "readable_formatting")
# the model's rubric keys -> the Judgement / JUDGEMENTS_SCHEMA columns
RUBRIC_COLUMNS = dict(zip(RUBRIC_KEYS, RUBRIC_CRITERIA, strict=True))
DEFAULT_MAX_PROMPT_CHARS = 60_000  # ~15k tokens: snapshots past it are clipped, with a note

VERDICT_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["pass", "fail"]},
        "rationale": {"type": "string"},
        "rubric": {
            "type": "object",
            "properties": {k: {"type": "boolean"} for k in RUBRIC_KEYS},
            "required": list(RUBRIC_KEYS),
            "additionalProperties": False,
        },
    },
    "required": ["verdict", "rationale", "rubric"],
    "additionalProperties": False,
}

SYSTEM_PROMPT = (
    "You are a meticulous reviewer grading an agent's spreadsheet work against a "
    "reference solution. You judge substance, not surface: equivalent formulas and "
    "alternative layouts are fine, but a wrong number, a missing part of the instruction "
    "or an unrequested change to existing data is a failure. You answer only with the "
    "JSON object asked for."
)

LLM_VERDICT_FORMAT = """Answer with one JSON object and nothing else:
{"verdict": "pass" | "fail",
 "rationale": "<two or three sentences naming the cells or parts that decide it>",
 "rubric": {"completeness": true|false, "numeric_correctness": true|false,
            "no_unnecessary_edits": true|false, "readable_formatting": true|false}}
"pass" only if every rubric mark is true or irrelevant to the task."""

REPAIR_PROMPT = """Your previous reply is not a valid verdict: {error}
Reply again with only the JSON object described above: "verdict" is "pass" or "fail",
"rationale" a non-empty string, "rubric" an object with exactly the four boolean marks
completeness, numeric_correctness, no_unnecessary_edits, readable_formatting."""


class VerdictError(ValueError):
    """The model's answer is not a valid verdict (carries the raw text)."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


class _Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    completeness: bool
    numeric_correctness: bool
    no_unnecessary_edits: bool
    readable_formatting: bool


class LLMVerdict(BaseModel):
    """A validated verdict of the model."""

    model_config = ConfigDict(extra="forbid", strict=True)
    verdict: Literal["pass", "fail"]
    rationale: str = Field(min_length=1)
    rubric: _Rubric

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def rubric_marks(self) -> dict[str, bool | None]:
        marks = self.rubric.model_dump()
        return {RUBRIC_COLUMNS[k]: marks[k] for k in RUBRIC_KEYS}


def _json_object(text: str) -> dict:
    """The JSON object of a reply (a ```json fence around it is tolerated)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    data = json.loads(body)
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    return data


def parse_verdict(data: dict | None, text: str = "") -> LLMVerdict:
    """Validate a reply against :data:`VERDICT_SCHEMA`; raise :class:`VerdictError`."""
    try:
        obj = data if data is not None else _json_object(text)
    except ValueError as exc:
        raise VerdictError(f"not a JSON object: {exc}", text) from exc
    try:
        return LLMVerdict.model_validate(obj)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()
        )
        raise VerdictError(f"schema violation: {problems}", text) from exc


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... (clipped: {len(text) - limit} more characters)"


def _usage_note(responses: list[ChatResponse]) -> str:
    tin = sum(r.input_tokens for r in responses)
    tout = sum(r.output_tokens for r in responses)
    cost = sum(r.cost_usd for r in responses)
    cached = sum(bool(r.cached) for r in responses)
    return (
        f"llm: {len(responses)} call(s), {cached} cached, {tin} input / {tout} output "
        f"tokens, ${cost:.4f}"
    )


class LLMJudge:
    """A judge backend (:class:`pipeline.judge.backend.Judge`) asking a model.

    ``llm`` is a :class:`pipeline.llm.client.LLM` (cache, budget and cost accounting
    are its business). ``repairs`` is how many times a malformed answer is sent back
    with its error before the case becomes an error verdict. ``progress`` receives the
    client's progress snapshots (``pipeline.llm.costs.ProgressPrinter`` prints them).
    """

    def __init__(
        self,
        llm: LLM,
        *,
        screenshots_dir: Path | None = None,
        convert_dir: Path | None = None,
        recalculate: bool = True,
        repairs: int = 1,
        max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        progress: Callable | None = None,
    ) -> None:
        self.llm = llm
        self.progress = progress  # default callback of judge_many (the CLI's progress line)
        spec = getattr(llm, "spec", None)
        label = f"{spec.provider}:{spec.model}" if spec is not None else "llm"
        self.name = f"{JUDGE_ID}:{label}"
        self.screenshots_dir = screenshots_dir
        if convert_dir is None:
            self._converted = tempfile.TemporaryDirectory(prefix="lf-llm-judge-xls-")
            convert_dir = Path(self._converted.name)
        self.convert_dir = convert_dir
        self.recalculate = recalculate
        self.repairs = repairs
        self.max_prompt_chars = max_prompt_chars
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.reader = BookReader(convert_dir, recalculate)

    # ------------------------------------------------------------------ prompt

    def prompt(self, case: JudgeCase, evidence: Evidence) -> str:
        """The case's prompt, asking for :data:`VERDICT_SCHEMA`; snapshots and diffs
        are clipped (with a note in ``evidence.notes``) past ``max_prompt_chars``."""
        text = render_prompt(case, evidence, LLM_VERDICT_FORMAT)
        if len(text) <= self.max_prompt_chars:
            return text
        share = max(2_000, self.max_prompt_chars // 6)
        clipped = replace(
            evidence, snapshots={k: _clip(v, share) for k, v in evidence.snapshots.items()}
        )
        text = render_prompt(case, clipped, LLM_VERDICT_FORMAT)
        if len(text) > self.max_prompt_chars:  # the diffs themselves are long
            text = _clip(text, self.max_prompt_chars - 2_000) + "\n\n" + LLM_VERDICT_FORMAT
        evidence.notes.append(f"prompt clipped to {len(text)} characters")
        return text

    def _request(self, messages: list[dict]):  # noqa: ANN202 - ChatRequest
        from pipeline.llm.client import ChatRequest

        return ChatRequest(
            system=SYSTEM_PROMPT,
            messages=messages,
            schema=VERDICT_SCHEMA,
            schema_name="verdict",
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            purpose="judge",
        )

    # ------------------------------------------------------------------ asking

    def _judgement(self, case: JudgeCase, verdict, rationale: str, **kw) -> Judgement:  # noqa: ANN001
        return judgement_for(case, self.name, verdict, rationale, **kw)

    def _prepare(self, case: JudgeCase) -> Evidence | Judgement:
        try:
            _, evidence = gather_evidence(
                case,
                self.screenshots_dir,
                self.convert_dir,
                self.recalculate,
                reader=self.reader,
            )
            evidence.prompt = self.prompt(case, evidence)
        except Exception as exc:  # the verdict records the failure; the batch goes on
            return self._judgement(
                case, None, f"could not prepare the case: {exc}", error=_error(exc)
            )
        return evidence

    def judge(self, case: JudgeCase) -> Judgement:
        """Grade one case; every failure is an error verdict (null), never a pass."""
        return self.judge_many([case])[0]

    def judge_many(
        self, cases: Iterable[JudgeCase], progress: Callable | None = None
    ) -> list[Judgement]:
        """Grade many cases with the client's bounded concurrency (``chat_many``): all
        first answers, then one batch per repair round for the malformed ones. Every
        failure (unreadable case, malformed answer after the repairs, budget, key,
        provider) is an error verdict (null), never a pass."""
        from pipeline.llm.client import LLMError, SchemaViolation

        cases = list(cases)
        out: dict[int, Judgement] = {}
        evidence: dict[int, Evidence] = {}
        for i, case in enumerate(cases):
            prepared = self._prepare(case)
            if isinstance(prepared, Judgement):
                out[i] = prepared
            else:
                evidence[i] = prepared
        messages = {i: [{"role": "user", "content": ev.prompt}] for i, ev in evidence.items()}
        paid: dict[int, list] = {i: [] for i in evidence}
        pending = sorted(evidence)
        for round_no in range(self.repairs + 1):
            if not pending:
                break
            try:
                answers = self.llm.chat_many(
                    [self._request(messages[i]) for i in pending],
                    progress=progress or self.progress,
                )
            except LLMError as exc:  # raised before any call: a missing key, no price
                answers = [exc] * len(pending)
            still = []
            for i, answer in zip(pending, answers, strict=True):
                case, ev = cases[i], evidence[i]
                if isinstance(answer, Exception) and not isinstance(answer, SchemaViolation):
                    out[i] = self._judgement(
                        case,
                        None,
                        f"the model could not be asked: {answer}",
                        evidence=ev,
                        error=f"{type(answer).__name__}: {answer}",
                    )
                    continue
                response = (
                    getattr(answer, "response", None)
                    if isinstance(answer, SchemaViolation)
                    else answer
                )
                if response is not None:
                    paid[i].append(response)
                try:
                    if isinstance(answer, SchemaViolation):
                        raise answer
                    verdict = parse_verdict(answer.data, answer.text)
                except (SchemaViolation, VerdictError) as exc:
                    if round_no == self.repairs:
                        why = f"no valid verdict after {self.repairs} repair round(s): {exc}"
                        ev.notes.append(_usage_note(paid[i]))
                        out[i] = self._judgement(
                            case,
                            None,
                            f"the judge gave no valid verdict: {why}",
                            evidence=ev,
                            error=f"schema_violation: {why}",
                        )
                        continue
                    messages[i] = messages[i][:1] + [
                        {"role": "assistant", "content": exc.text or "(empty reply)"},
                        {"role": "user", "content": REPAIR_PROMPT.format(error=exc)},
                    ]
                    still.append(i)
                    continue
                ev.notes.append(_usage_note(paid[i]))
                out[i] = self._judgement(
                    case,
                    verdict.passed,
                    f"{verdict.verdict.upper()}: {verdict.rationale.strip()}",
                    rubric=verdict.rubric_marks(),
                    evidence=ev,
                )
            pending = still
        return [out[i] for i in range(len(cases))]


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"


def make_judge(
    choice: str,
    paths=None,  # noqa: ANN001 - pipeline.config.DataPaths (default: data_paths())
    *,
    screenshots_dir: Path | None = None,
    recalculate: bool = True,
    progress: Callable | None = None,
    **llm_overrides,
):  # noqa: ANN201 - Judge
    """The judge backend for a configured choice: ``checker`` (the deterministic
    :class:`~pipeline.judge.backend.CheckerJudge`) or ``openai:MODEL`` /
    ``anthropic:MODEL`` (an :class:`LLMJudge` whose key is checked now, before any
    work). ``llm_overrides`` go to :func:`pipeline.llm.client.make_llm` (budget_usd,
    cache_dir, ...)."""
    from pipeline.judge.backend import CheckerJudge

    if choice.strip().lower() in ("checker", "template", ""):
        return CheckerJudge(screenshots_dir, recalculate=recalculate)
    from pipeline.config import data_paths
    from pipeline.llm.client import LLMError, is_llm_choice, make_llm

    if not is_llm_choice(choice):
        raise LLMError(
            f"unknown judge backend {choice!r}: use 'checker', 'openai:MODEL' or 'anthropic:MODEL'"
        )
    llm = make_llm(choice, paths or data_paths(), **llm_overrides)
    assert llm is not None
    llm.check_key()
    llm.check_price()
    return LLMJudge(
        llm, screenshots_dir=screenshots_dir, recalculate=recalculate, progress=progress
    )
