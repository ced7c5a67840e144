"""The workbook judge: grades an agent's output workbook for a workflow task.

For a *modify* task it computes the structured diffs input -> reference
(``diff_ref``) and input -> output (``diff_model``), the compact snapshot of every
changed sheet of the three workbooks in the ``(Address, Value, Type, Formula)``
encoding, optional sheet screenshots, and the judge prompt. A :class:`Judge` turns
that into a binary verdict with a rationale under one rubric (completeness, numeric
and logical correctness, no unnecessary edits, readable formatting). The backend
today is :class:`CheckerJudge`, the deterministic checker built from diff_ref; an
LLM judge plugs in later by implementing the same protocol and reading the prompt.

Also here: batch judging over a JSON(L) file of pairs or a SpreadsheetBench folder
(Parquet + Markdown out), and agreement with human labels.
"""

from __future__ import annotations

import csv
import json
import re
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import polars as pl

from pipeline.detect.diffs import WorkbookDiff, diff_workbooks
from pipeline.ingest.workbooks import Workbook, read_workbook
from pipeline.judge.checker import CheckResult, build_checker
from pipeline.judge.render import (
    edit_positions,
    encode_sheet,
    render_sheets,
    snapshot_sheet,
)

TASK_KINDS = ("modify", "generate", "qa")

RUBRIC = """Judge the agent's work on four criteria:
1. Completeness: every part of the instruction is carried out.
2. Numeric and logical correctness: values and formulas are right (equivalent formulas
   and alternative layouts are fine; exact textual match with the reference is not required).
3. No unnecessary edits: nothing in the workbook is changed beyond what the instruction asks.
4. Readable formatting and structure.
Give a binary verdict: PASS only if the instruction is faithfully satisfied with no
critical error, omission or unwanted change; otherwise FAIL."""

VERDICT_FORMAT = """Answer with a JSON object:
{"verdict": "PASS" | "FAIL", "rationale": "<two or three sentences>",
 "completeness": true|false, "correctness": true|false,
 "no_unnecessary_edits": true|false, "formatting": true|false}"""

MODIFY_PROMPT = """You are grading a spreadsheet modification task.

## Instruction
{instruction}

## Rubric
{rubric}

## Reference changes (diff_ref: input -> reference)
{diff_ref}

## Agent's changes (diff_model: input -> agent output)
{diff_model}

## Snapshots of the changed sheets
Cells are (Address, Value, Type, Formula);
types: T text, I integer, F float, D date, B boolean, E error.

### Input
{snapshot_input}

### Reference
{snapshot_reference}

### Agent output
{snapshot_output}

{verdict_format}"""

GENERATE_PROMPT = """You are grading a spreadsheet generation task (a new workbook).

## Instruction
{instruction}

## Rubric
{rubric}

## Reference workbook (all cells)
{snapshot_reference}

## Agent's workbook (all cells)
{snapshot_output}

{verdict_format}"""

QA_PROMPT = """You are grading an answer to a question about one or more files.

## Question
{instruction}

## Rubric
{rubric}

## Reference answer
{reference_answer}

## Agent's answer
{model_answer}

{verdict_format}"""

PROMPTS = {"modify": MODIFY_PROMPT, "generate": GENERATE_PROMPT, "qa": QA_PROMPT}
RUBRIC_CRITERIA = ("completeness", "correctness", "no_unnecessary_edits", "formatting")

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
}


@dataclass
class JudgeCase:
    """One thing to grade: an instruction, the files, and what kind of task it is."""

    case_id: str
    instruction: str
    output_path: Path | None
    reference_path: Path | None
    input_path: Path | None = None
    task_kind: str = "modify"
    answer_position: str | None = None  # cells the reference defines (scopes the checker)
    reference_answer: str | None = None  # qa tasks
    model_answer: str | None = None  # qa tasks


@dataclass
class Evidence:
    """Everything a judge backend sees for one case."""

    diff_ref: WorkbookDiff | None = None
    diff_model: WorkbookDiff | None = None
    changed_sheets: list[str] = field(default_factory=list)
    snapshots: dict[str, str] = field(default_factory=dict)  # input / reference / output -> text
    screenshots: dict[str, list[Path]] = field(default_factory=dict)  # "<role>:<sheet>" -> PNGs
    prompt: str = ""


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
        }


@runtime_checkable
class Judge(Protocol):
    """A judge backend: the deterministic checker now, an LLM later."""

    name: str

    def judge(self, case: JudgeCase) -> Judgement: ...


def _empty_workbook(label: str) -> Workbook:
    return Workbook(path=Path(label), workbook_id="", source_format="none", sheets={})


def _snapshots(
    workbooks: Mapping[str, Workbook], diff_ref: WorkbookDiff, diff_model: WorkbookDiff
) -> tuple[list[str], dict[str, str]]:
    """Snapshot of every changed sheet in each workbook, edits of both diffs kept."""
    changed = list(
        dict.fromkeys(
            [s.sheet for s in diff_ref.changed_sheets]
            + [s.sheet for s in diff_model.changed_sheets]
        )
    )
    renamed = {
        s.after_name: s.before_name
        for d in (diff_ref, diff_model)
        for s in d.sheets
        if s.status == "renamed"
    }
    where = {
        "input": edit_positions(diff_ref, "before").merge(edit_positions(diff_model, "before")),
        "reference": edit_positions(diff_ref, "after").merge(edit_positions(diff_model, "after")),
        "output": edit_positions(diff_model, "after").merge(edit_positions(diff_ref, "after")),
    }
    out: dict[str, str] = {}
    for role, wb in workbooks.items():
        parts = []
        for name in changed:
            sheet_name = renamed.get(name, name) if role == "input" else name
            sheet = wb.sheets.get(sheet_name)
            if sheet is None:
                parts.append(f"## Sheet: {sheet_name} (absent)")
                continue
            pos = where[role]
            parts.append(
                snapshot_sheet(
                    sheet, pos.rows.get(sheet_name, set()), pos.cols.get(sheet_name, set())
                )
            )
        out[role] = "\n\n".join(parts) if parts else "(no changed sheets)"
    return changed, out


def _encode_all(wb: Workbook) -> str:
    return "\n\n".join(encode_sheet(s) for s in wb.sheets.values()) or "(empty workbook)"


def render_prompt(case: JudgeCase, evidence: Evidence) -> str:
    """The judge prompt for the case's task kind (modify / generate / qa)."""
    template = PROMPTS[case.task_kind]
    return template.format(
        instruction=case.instruction,
        rubric=RUBRIC,
        verdict_format=VERDICT_FORMAT,
        diff_ref=evidence.diff_ref.markdown() if evidence.diff_ref else "(none)",
        diff_model=evidence.diff_model.markdown() if evidence.diff_model else "(none)",
        snapshot_input=evidence.snapshots.get("input", "(none)"),
        snapshot_reference=evidence.snapshots.get("reference", "(none)"),
        snapshot_output=evidence.snapshots.get("output", "(none)"),
        reference_answer=case.reference_answer or "(none)",
        model_answer=case.model_answer or "(none)",
    )


def gather_evidence(
    case: JudgeCase,
    screenshots_dir: Path | None = None,
    convert_dir: Path | None = None,
    recalculate: bool = True,
) -> tuple[dict[str, Workbook], Evidence]:
    """Read the case's workbooks and build diffs, snapshots, screenshots and the prompt.

    ``recalculate`` lets LibreOffice compute formulas saved without a value (agents
    often write workbooks with openpyxl), so they are graded on what they compute.
    """
    if case.task_kind not in TASK_KINDS:
        raise ValueError(f"case {case.case_id}: unknown task kind {case.task_kind!r}")
    evidence = Evidence()
    workbooks: dict[str, Workbook] = {}
    if case.task_kind == "qa":
        evidence.prompt = render_prompt(case, evidence)
        return workbooks, evidence
    for role, path in (
        ("input", case.input_path),
        ("reference", case.reference_path),
        ("output", case.output_path),
    ):
        if path is not None:
            workbooks[role] = read_workbook(path, convert_dir=convert_dir, recalculate=recalculate)
    if "reference" not in workbooks or "output" not in workbooks:
        raise ValueError(f"case {case.case_id}: needs a reference and an output workbook")
    base = workbooks.get("input") or _empty_workbook("(no input)")
    evidence.diff_ref = diff_workbooks(base, workbooks["reference"])
    evidence.diff_model = diff_workbooks(base, workbooks["output"])
    if case.task_kind == "generate":
        evidence.changed_sheets = workbooks["reference"].sheet_names
        evidence.snapshots = {r: _encode_all(workbooks[r]) for r in ("reference", "output")}
    else:
        evidence.changed_sheets, evidence.snapshots = _snapshots(
            {r: wb for r, wb in workbooks.items()}, evidence.diff_ref, evidence.diff_model
        )
    if screenshots_dir is not None:
        folder = Path(screenshots_dir) / re.sub(r"[^A-Za-z0-9_.-]", "_", case.case_id)
        for role, wb in workbooks.items():
            sheets = [s for s in evidence.changed_sheets if s in wb.sheets]
            if sheets and wb.source_format != "xls":
                shots = render_sheets(wb.path, folder / role, sheets)
                evidence.screenshots.update({f"{role}:{k}": v for k, v in shots.items()})
    evidence.prompt = render_prompt(case, evidence)
    return workbooks, evidence


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


class CheckerJudge:
    """The deterministic backend: the diff_ref checker's verdict under the rubric.

    Rubric marks: completeness (no required cell, sheet, chart or conditional format
    missing), correctness (no required value wrong), no unnecessary edits (no
    destructive unexpected edit), formatting (the fills and font colours the reference
    set are there; None when it set none).
    """

    name = "checker-v1"

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
        self.convert_dir = convert_dir
        self.abs_tol = abs_tol
        self.require_formulas = require_formulas

    def judge(self, case: JudgeCase) -> Judgement:
        try:
            workbooks, evidence = gather_evidence(
                case, self.screenshots_dir, self.convert_dir, self.recalculate
            )
        except Exception as exc:  # the verdict records the failure; the batch goes on
            return Judgement(
                case.case_id,
                self.name,
                case.task_kind,
                None,
                f"could not prepare the case: {exc}",
                error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}",
            )
        if case.task_kind == "qa":
            ok = _qa_match(case.reference_answer or "", case.model_answer or "", self.abs_tol)
            why = "answer matches the reference" if ok else "answer differs from the reference"
            rubric = {"completeness": ok, "correctness": ok}
            return Judgement(case.case_id, self.name, "qa", ok, why, rubric, evidence)
        base = workbooks.get("input") or _empty_workbook("(no input)")
        try:
            checker = build_checker(
                base,
                workbooks["reference"],
                case.answer_position,
                diff_ref=evidence.diff_ref,
                abs_tol=self.abs_tol,
                require_formulas=self.require_formulas,
            )
            check = checker.check(workbooks["output"], evidence.diff_model)
        except Exception as exc:
            return Judgement(
                case.case_id,
                self.name,
                case.task_kind,
                None,
                f"checker failed: {exc}",
                evidence=evidence,
                error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}",
            )
        value_rules = {"mismatch", "unexpected_value", "not_computed", "static_value"}
        missing_rules = {"missing", "missing_sheet"}
        styled = [c for c, r in zip(check.checks, checker.required, strict=True) if r.style]
        rubric = {
            "completeness": not any(c.rule in missing_rules for c in check.checks)
            and not check.missing_sheets
            and not check.missing_features,
            "correctness": not any(c.rule in value_rules for c in check.checks),
            "no_unnecessary_edits": not any(u.destructive for u in check.unexpected)
            and not check.extra_sheets_kept,
            "formatting": all(c.ok for c in styled) if styled else None,
        }
        if check.verdict is None:
            rubric = {k: None for k in rubric}
        return Judgement(
            case.case_id,
            self.name,
            case.task_kind,
            check.verdict,
            check.rationale(),
            rubric,
            evidence,
            check,
        )


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


def spreadsheetbench_cases(
    root: str | Path, outputs_dir: str | Path | None = None, output_role: str = "output"
) -> list[JudgeCase]:
    """Cases from a SpreadsheetBench folder (``*.json`` + ``spreadsheet/<id>/``).

    With ``outputs_dir`` the output of test case n of task id is
    ``<outputs_dir>/<n>_<id>_output.xlsx``; without it, ``output_role`` "answer" or
    "input" grades the dataset's own answer or input files (the checker's self-test).
    """
    root = Path(root)
    specs = sorted(root.glob("*.json"))
    if not specs:
        raise FileNotFoundError(f"{root}: no SpreadsheetBench *.json task list")
    cases: list[JudgeCase] = []
    for spec in specs:
        for task in json.loads(spec.read_text()):
            tid = str(task["id"])
            folder = root / task.get("spreadsheet_path", f"spreadsheet/{tid}")
            for inp in sorted(folder.glob(f"*_{tid}_input.xlsx")):
                n = inp.name.split("_", 1)[0]
                ref = folder / f"{n}_{tid}_answer.xlsx"
                if outputs_dir is not None:
                    out = Path(outputs_dir) / f"{n}_{tid}_output.xlsx"
                elif output_role in ("answer", "input"):
                    out = ref if output_role == "answer" else inp
                else:
                    raise ValueError(f"output_role must be answer or input, not {output_role!r}")
                cases.append(
                    JudgeCase(
                        case_id=f"{tid}/{n}",
                        instruction=task["instruction"],
                        output_path=out,
                        reference_path=ref,
                        input_path=inp,
                        answer_position=task.get("answer_position") or None,
                    )
                )
    return cases


def _path(base: Path, value: object) -> Path | None:
    if value in (None, ""):
        return None
    p = Path(str(value))
    return p if p.is_absolute() else base / p


def load_cases(path: str | Path) -> list[JudgeCase]:
    """Cases from a JSON list or JSONL file of pairs, or a SpreadsheetBench folder.

    Each JSON object: ``case_id`` (or ``id``), ``instruction``, ``input``, ``output``,
    ``reference`` (paths, relative to the file's folder), optional ``answer_position``,
    ``task_kind``, ``reference_answer``, ``model_answer``.
    """
    path = Path(path)
    if path.is_dir():
        return spreadsheetbench_cases(path)
    text = path.read_text()
    if path.suffix == ".jsonl":
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        items = json.loads(text)
    cases = []
    for k, item in enumerate(items):
        case_id = str(item.get("case_id", item.get("id", k)))
        if "instruction" not in item:
            raise ValueError(f"{path}: case {case_id} has no instruction")
        cases.append(
            JudgeCase(
                case_id=case_id,
                instruction=item["instruction"],
                output_path=_path(path.parent, item.get("output")),
                reference_path=_path(path.parent, item.get("reference")),
                input_path=_path(path.parent, item.get("input")),
                task_kind=item.get("task_kind", "modify"),
                answer_position=item.get("answer_position"),
                reference_answer=item.get("reference_answer"),
                model_answer=item.get("model_answer"),
            )
        )
    return cases


def _safe(case_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", case_id)


def judge_batch(
    cases: Iterable[JudgeCase] | str | Path,
    out_dir: str | Path,
    *,
    judge: Judge | None = None,
    screenshots: bool = False,
) -> pl.DataFrame:
    """Judge many cases; write ``judgements.parquet``, ``judgements.md`` and one
    ``cases/<case_id>.md`` (the prompt: diffs and snapshots) per case.

    ``cases`` may be a list of :class:`JudgeCase` or a path for :func:`load_cases`.
    A case that cannot be read gets verdict null and its error; the batch goes on.
    """
    out_dir = Path(out_dir)
    (out_dir / "cases").mkdir(parents=True, exist_ok=True)
    if isinstance(cases, str | Path):
        cases = load_cases(cases)
    backend = judge or CheckerJudge(out_dir / "screenshots" if screenshots else None)
    rows = []
    for case in cases:
        j = backend.judge(case)
        rows.append(j.row())
        body = j.evidence.prompt if j.evidence else ""
        (out_dir / "cases" / f"{_safe(case.case_id)}.md").write_text(
            f"# {case.case_id}\n\nVerdict: {j.verdict}\n\n{j.rationale}\n\n{body}\n"
            + (f"\n## Error\n```\n{j.error}\n```\n" if j.error else "")
        )
    frame = pl.DataFrame(rows, schema=JUDGEMENTS_SCHEMA)
    frame.write_parquet(out_dir / "judgements.parquet")
    (out_dir / "judgements.md").write_text(judgements_markdown(frame))
    return frame


def judgements_markdown(frame: pl.DataFrame) -> str:
    """A Markdown report: counts, then one line per case."""
    n = frame.height
    passed = frame.filter(pl.col("verdict") == True).height  # noqa: E712
    failed = frame.filter(pl.col("verdict") == False).height  # noqa: E712
    lines = [
        "# Workbook judgements",
        "",
        f"{n} cases: {passed} pass, {failed} fail, {n - passed - failed} undecided.",
        "",
        "| case | verdict | required matched | unexpected (destructive) | rationale |",
        "|---|---|---|---|---|",
    ]
    for r in frame.iter_rows(named=True):
        verdict = {True: "PASS", False: "FAIL", None: "-"}[r["verdict"]]
        matched = f"{r['n_matched']}/{r['n_required']}" if r["n_required"] is not None else "-"
        unexpected = (
            f"{r['n_unexpected']} ({r['n_destructive']})" if r["n_unexpected"] is not None else "-"
        )
        why = (r["rationale"] or "").replace("|", "\\|").replace("\n", " ")[:300]
        lines.append(f"| {r['case_id']} | {verdict} | {matched} | {unexpected} | {why} |")
    return "\n".join(lines) + "\n"


_LABEL_WORDS = {
    "pass": True, "passed": True, "true": True, "1": True, "yes": True, "correct": True,
    "fail": False, "failed": False, "false": False, "0": False, "no": False, "incorrect": False,
}  # fmt: skip


def _label(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    key = str(value).strip().casefold()
    if key not in _LABEL_WORDS:
        raise ValueError(f"{where}: label {value!r} is not pass/fail")
    return _LABEL_WORDS[key]


def load_human_labels(path: str | Path) -> dict[str, bool]:
    """Human pass/fail labels from CSV (columns ``case_id,label``) or JSONL.

    Labels may be pass/fail, true/false, 1/0, yes/no, correct/incorrect. A
    malformed row raises naming the file and line.
    """
    path = Path(path)
    labels: dict[str, bool] = {}
    if path.suffix in (".jsonl", ".json"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            item = json.loads(line)
            where = f"{path}:{n}"
            if "case_id" not in item or "label" not in item:
                raise ValueError(f"{where}: needs case_id and label")
            labels[str(item["case_id"])] = _label(item["label"], where)
        return labels
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"case_id", "label"} <= set(reader.fieldnames):
            raise ValueError(f"{path}: CSV needs columns case_id and label")
        for n, row in enumerate(reader, 2):
            labels[str(row["case_id"])] = _label(row["label"], f"{path}:{n}")
    return labels


@dataclass(frozen=True)
class Agreement:
    """Judge vs human labels, PASS as the positive class."""

    n: int
    tp: int
    fp: int
    fn: int
    tn: int
    undecided: int  # labelled cases the judge gave no verdict
    unlabelled: int  # judged cases without a human label
    missing: int  # labelled cases the judge never saw

    @property
    def accuracy(self) -> float | None:
        return (self.tp + self.tn) / self.n if self.n else None

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def agreement(
    verdicts: Mapping[str, bool | None] | pl.DataFrame, labels: Mapping[str, bool]
) -> Agreement:
    """Accuracy, precision and recall of the judge's verdicts against human labels."""
    if isinstance(verdicts, pl.DataFrame):
        verdicts = dict(zip(verdicts["case_id"], verdicts["verdict"], strict=True))
    tp = fp = fn = tn = undecided = missing = 0
    for case_id, human in labels.items():
        if case_id not in verdicts:
            missing += 1
            continue
        judged = verdicts[case_id]
        if judged is None:
            undecided += 1
        elif judged and human:
            tp += 1
        elif judged:
            fp += 1
        elif human:
            fn += 1
        else:
            tn += 1
    unlabelled = sum(1 for c in verdicts if c not in labels)
    return Agreement(tp + fp + fn + tn, tp, fp, fn, tn, undecided, unlabelled, missing)
