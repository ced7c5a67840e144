"""Judge backends: the :class:`Judge` protocol, the deterministic :class:`CheckerJudge`
and :func:`judge_pair`.

A backend turns a :class:`~pipeline.judge.evidence.JudgeCase` into a
:class:`Judgement`: a verdict (``True`` pass, ``False`` fail, ``None`` undecidable or
error) with a rationale and rubric marks. An LLM judge plugs in later by implementing
the same protocol and reading ``evidence.prompt``.
"""

from __future__ import annotations

import re
import tempfile
import traceback
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import polars as pl

from pipeline.judge.checker import CheckResult, WorkbookChecker, build_checker
from pipeline.judge.evidence import (
    RUBRIC_CRITERIA,
    BookReader,
    Evidence,
    JudgeCase,
    _empty_workbook,
    gather_evidence,
)

JUDGEMENTS_SCHEMA = {
    "case_id": pl.String,
    "judge": pl.String,
    "task_kind": pl.String,
    "verdict": pl.Boolean,  # null: the judge could not decide (error, nothing to check)
    "rationale": pl.String,
    "completeness": pl.Boolean,
    "correctness": pl.Boolean,
    "no_unnecessary_edits": pl.Boolean,
    "formatting": pl.Boolean,
    "n_required": pl.Int64,
    "n_matched": pl.Int64,
    "n_unexpected": pl.Int64,
    "n_destructive": pl.Int64,
    "diff_ref_edits": pl.Int64,
    "diff_model_edits": pl.Int64,
    "changed_sheets": pl.List(pl.String),
    "snapshot_chars": pl.Int64,
    "screenshots": pl.List(pl.String),
    "error": pl.String,
    "status": pl.String,  # pass | fail | undecidable | error
    "role": pl.String,  # output | answer | input | near_miss
    "expected": pl.Boolean,  # the verdict a self-check expects; null otherwise
    "notes": pl.List(pl.String),  # answer-position repairs, styles skipped, fallbacks
}

VALUE_RULES = {
    "mismatch",
    "unexpected_value",
    "not_computed",
    "static_value",
    "error_value",
    "type_mismatch",
    "whitespace",
    "unchanged_formula",
}
MISSING_RULES = {"missing", "missing_sheet"}


@dataclass
class Judgement:
    """A binary verdict with its rationale, rubric marks and the evidence behind it."""

    case_id: str
    judge: str
    task_kind: str
    verdict: bool | None
    rationale: str
    rubric: dict[str, bool | None] = field(default_factory=dict)
    evidence: Evidence | None = None
    check: CheckResult | None = None
    error: str | None = None
    role: str = "output"
    expected: bool | None = None

    @property
    def status(self) -> str:
        if self.error:
            return "error"
        return {True: "pass", False: "fail", None: "undecidable"}[self.verdict]

    @property
    def notes(self) -> list[str]:
        notes = list(self.check.notes) if self.check else []
        if self.evidence:
            notes += [n for n in self.evidence.notes if n not in notes]
        return notes

    def row(self) -> dict:
        """The Parquet row (JUDGEMENTS_SCHEMA)."""
        ev, chk = self.evidence, self.check
        unexpected = chk.unexpected if chk else []
        return {
            "case_id": self.case_id,
            "judge": self.judge,
            "task_kind": self.task_kind,
            "verdict": self.verdict,
            "rationale": self.rationale,
            **{k: self.rubric.get(k) for k in RUBRIC_CRITERIA},
            "n_required": chk.n_required if chk else None,
            "n_matched": chk.n_ok if chk else None,
            "n_unexpected": len(unexpected) if chk else None,
            "n_destructive": sum(u.destructive for u in unexpected) if chk else None,
            "diff_ref_edits": ev.diff_ref.n_edits if ev and ev.diff_ref else None,
            "diff_model_edits": ev.diff_model.n_edits if ev and ev.diff_model else None,
            "changed_sheets": ev.changed_sheets if ev else [],
            "snapshot_chars": sum(len(s) for s in ev.snapshots.values()) if ev else 0,
            "screenshots": [str(p) for ps in ev.screenshots.values() for p in ps] if ev else [],
            "error": self.error,
            "status": self.status,
            "role": self.role,
            "expected": self.expected,
            "notes": self.notes,
        }


def judgement_for(case: JudgeCase, backend: str, verdict, rationale, **kw) -> Judgement:  # noqa: ANN001
    """The judgement of ``backend`` on ``case`` (its id, kind, role and expected verdict)."""
    return Judgement(
        case.case_id,
        backend,
        case.task_kind,
        verdict,
        rationale,
        role=case.role,
        expected=case.expected,
        **kw,
    )


@runtime_checkable
class Judge(Protocol):
    """A judge backend: the deterministic checker now, an LLM later."""

    name: str

    def judge(self, case: JudgeCase) -> Judgement: ...


_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?|[-+]?\.\d+")


def _qa_match(reference: str, answer: str, abs_tol: float) -> bool:
    """Deterministic QA check: same text (case/space-insensitive) or same numbers."""
    norm = lambda s: re.sub(r"\s+", " ", s).strip().casefold()  # noqa: E731
    if norm(reference) == norm(answer):
        return True
    ref_nums = [float(n.replace(",", "")) for n in _NUMBER.findall(reference)]
    ans_nums = [float(n.replace(",", "")) for n in _NUMBER.findall(answer)]
    return (
        bool(ref_nums)
        and len(ref_nums) <= len(ans_nums)
        and all(any(abs(r - a) <= abs_tol for a in ans_nums) for r in ref_nums)
    )


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"


class CheckerJudge:
    """The deterministic backend: the diff_ref checker's verdict under the rubric.

    Rubric marks: completeness (no required cell, sheet, chart, conditional format or
    merge missing), correctness (no required value wrong), no unnecessary edits (no
    destructive unexpected edit), formatting (the fills, font colours, number formats
    and layout the reference set are there; None when it set none).

    Workbooks, diff_ref and the checker of an input/reference pair are kept for the
    next cases of the same pair (a batch judges several outputs of one task).
    """

    name = "checker-v2"

    def __init__(
        self,
        screenshots_dir: Path | None = None,
        convert_dir: Path | None = None,
        abs_tol: float = 0.005,
        require_formulas: bool = False,
        recalculate: bool = True,
    ):
        self.recalculate = recalculate
        self.screenshots_dir = screenshots_dir
        if convert_dir is None:
            # keep the .xlsx of an .xls while judging: layouts and near-misses read it
            self._converted = tempfile.TemporaryDirectory(prefix="lf-judge-xls-")
            convert_dir = Path(self._converted.name)
        self.convert_dir = convert_dir
        self.abs_tol = abs_tol
        self.require_formulas = require_formulas
        self.reader = BookReader(convert_dir, recalculate)
        self._checkers: OrderedDict[tuple, WorkbookChecker] = OrderedDict()

    def _pair_key(self, case: JudgeCase) -> tuple:
        return (
            BookReader.key(case.input_path) if case.input_path else None,
            BookReader.key(case.reference_path) if case.reference_path else None,
            case.answer_position,
            case.task_kind,
        )

    def checker_for(self, case: JudgeCase) -> WorkbookChecker:
        """The checker of the case's input/reference pair (built once per pair)."""
        key = self._pair_key(case)
        if key in self._checkers:
            self._checkers.move_to_end(key)
            return self._checkers[key]
        if case.reference_path is None:
            raise ValueError(f"case {case.case_id}: needs a reference workbook")
        reference, ref_notes = self.reader.read(case.reference_path)
        if case.input_path is not None:
            base, in_notes = self.reader.read(case.input_path)
        else:
            base, in_notes = _empty_workbook("(no input)"), []
        checker = build_checker(
            base,
            reference,
            case.answer_position,
            abs_tol=self.abs_tol,
            require_formulas=self.require_formulas,
            notes=list(dict.fromkeys(in_notes + ref_notes)),
        )
        self._checkers[key] = checker
        while len(self._checkers) > 4:
            self._checkers.popitem(last=False)
        return checker

    def _judgement(self, case: JudgeCase, verdict, rationale, **kw) -> Judgement:  # noqa: ANN001
        return judgement_for(case, self.name, verdict, rationale, **kw)

    def judge(self, case: JudgeCase) -> Judgement:
        checker = None
        try:
            if case.task_kind != "qa":
                checker = self.checker_for(case)
            workbooks, evidence = gather_evidence(
                case,
                self.screenshots_dir,
                self.convert_dir,
                self.recalculate,
                reader=self.reader,
                diff_ref=checker.diff_ref if checker else None,
            )
        except Exception as exc:  # the verdict records the failure; the batch goes on
            return self._judgement(
                case, None, f"could not prepare the case: {exc}", error=_error(exc)
            )
        if case.task_kind == "qa":
            ok = _qa_match(case.reference_answer or "", case.model_answer or "", self.abs_tol)
            why = "answer matches the reference" if ok else "answer differs from the reference"
            rubric = {"completeness": ok, "correctness": ok}
            return self._judgement(case, ok, why, rubric=rubric, evidence=evidence)
        assert checker is not None
        try:
            out_notes = [n for n in evidence.notes if n not in checker.notes]
            check = checker.check(workbooks["output"], evidence.diff_model, out_notes)
        except Exception as exc:
            return self._judgement(
                case, None, f"checker failed: {exc}", evidence=evidence, error=_error(exc)
            )
        return self._judgement(
            case,
            check.verdict,
            check.rationale(),
            rubric=rubric_marks(checker, check),
            evidence=evidence,
            check=check,
        )


def rubric_marks(checker: WorkbookChecker, check: CheckResult) -> dict[str, bool | None]:
    """The four rubric marks of a check (all None when it is undecidable)."""
    if check.verdict is None:
        return dict.fromkeys(RUBRIC_CRITERIA)
    formatted = [
        c
        for c, r in zip(check.checks, checker.required, strict=True)
        if r.style or r.number_format is not None
    ] + check.layout_checks
    return {
        "completeness": not any(c.rule in MISSING_RULES for c in check.checks)
        and not check.missing_sheets
        and not check.missing_features,
        "correctness": not any(c.rule in VALUE_RULES for c in check.checks),
        "no_unnecessary_edits": not any(u.destructive for u in check.unexpected)
        and not check.extra_sheets_kept,
        "formatting": all(c.ok for c in formatted) if formatted else None,
    }


def judge_pair(
    input_path: str | Path | None,
    output_path: str | Path,
    reference_path: str | Path,
    instruction: str,
    *,
    case_id: str | None = None,
    answer_position: str | None = None,
    task_kind: str = "modify",
    judge: Judge | None = None,
    screenshots_dir: str | Path | None = None,
) -> Judgement:
    """Judge one output workbook against its input and reference.

    ``answer_position`` (e.g. ``"'Sheet1'!A1:B10"``) scopes the deterministic check to
    the cells the reference defines; ``screenshots_dir`` turns on sheet screenshots;
    ``judge`` defaults to :class:`CheckerJudge`.
    """
    backend = judge or CheckerJudge(Path(screenshots_dir) if screenshots_dir else None)
    case = JudgeCase(
        case_id=case_id or Path(output_path).stem,
        instruction=instruction,
        output_path=Path(output_path),
        reference_path=Path(reference_path),
        input_path=Path(input_path) if input_path else None,
        task_kind=task_kind,
        answer_position=answer_position,
    )
    return backend.judge(case)
