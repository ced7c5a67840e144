"""What a workbook judge sees for one case: the files read, the structured diffs
input -> reference (``diff_ref``) and input -> output (``diff_model``), the compact
snapshot of every changed sheet in the ``(Address, Value, Type, Formula)`` encoding,
optional sheet screenshots, and the prompt (modify / generate / QA) under one rubric:
completeness, numeric and logical correctness, no unnecessary edits, readable
formatting.

Workbooks are read by :class:`BookReader`, which skips styles the reader cannot
handle (with a note, :mod:`pipeline.judge.read`) and keeps the last few workbooks it
read, since a batch judges several outputs against the same input and reference.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.detect.diffs import WorkbookDiff, diff_workbooks
from pipeline.ingest.workbooks import Workbook
from pipeline.judge.read import read_for_judging
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
    role: str = "output"  # output | answer | input | near_miss (self-checks of a dataset)
    expected: bool | None = None  # the verdict a self-check expects (None: unknown)


@dataclass
class Evidence:
    """Everything a judge backend sees for one case."""

    diff_ref: WorkbookDiff | None = None
    diff_model: WorkbookDiff | None = None
    changed_sheets: list[str] = field(default_factory=list)
    snapshots: dict[str, str] = field(default_factory=dict)  # input / reference / output -> text
    screenshots: dict[str, list[Path]] = field(default_factory=dict)  # "<role>:<sheet>" -> PNGs
    prompt: str = ""
    notes: list[str] = field(default_factory=list)  # what could not be read (styles skipped)


class BookReader:
    """Reads workbooks for judging and keeps the last ``size`` (by path, size, mtime)."""

    def __init__(
        self, convert_dir: Path | None = None, recalculate: bool = True, size: int = 8
    ) -> None:
        self.convert_dir = convert_dir
        self.recalculate = recalculate
        self.size = size
        self._books: OrderedDict[tuple, tuple[Workbook, list[str]]] = OrderedDict()

    @staticmethod
    def key(path: Path) -> tuple:
        path = Path(path)
        try:
            st = path.stat()
        except OSError:
            return (str(path), None, None)
        return (str(path.resolve()), st.st_size, st.st_mtime_ns)

    def read(self, path: Path) -> tuple[Workbook, list[str]]:
        key = self.key(path)
        if key in self._books:
            self._books.move_to_end(key)
            return self._books[key]
        book = read_for_judging(path, self.convert_dir, self.recalculate)
        self._books[key] = book
        while len(self._books) > self.size:
            self._books.popitem(last=False)
        return book


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


def render_prompt(case: JudgeCase, evidence: Evidence, verdict_format: str = VERDICT_FORMAT) -> str:
    """The judge prompt for the case's task kind (modify / generate / qa);
    ``verdict_format`` is the answer format asked for (the LLM judge asks for its own)."""
    template = PROMPTS[case.task_kind]
    return template.format(
        instruction=case.instruction,
        rubric=RUBRIC,
        verdict_format=verdict_format,
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
    *,
    reader: BookReader | None = None,
    diff_ref: WorkbookDiff | None = None,
) -> tuple[dict[str, Workbook], Evidence]:
    """Read the case's workbooks and build diffs, snapshots, screenshots and the prompt.

    ``recalculate`` lets LibreOffice compute formulas saved without a value (agents
    often write workbooks with openpyxl), so they are graded on what they compute.
    ``reader`` reuses workbooks already read; ``diff_ref`` one already computed.
    """
    reader = reader or BookReader(convert_dir, recalculate)
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
            workbooks[role], notes = reader.read(path)
            evidence.notes += [n for n in notes if n not in evidence.notes]
    if "reference" not in workbooks or "output" not in workbooks:
        raise ValueError(f"case {case.case_id}: needs a reference and an output workbook")
    base = workbooks.get("input") or _empty_workbook("(no input)")
    evidence.diff_ref = diff_ref or diff_workbooks(base, workbooks["reference"])
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
