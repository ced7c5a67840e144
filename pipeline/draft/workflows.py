"""The template drafter of workflow tasks (offline, deterministic).

A workflow task hands an agent the earlier workbook of a candidate (the input) and an
instruction; the later workbook (the reference) is what a correct answer looks like.
From each candidate (:mod:`pipeline.draft.workflow_candidates`) this module writes:

- the **instruction**, in a colleague's voice: the goal sentences of the thread (when
  there are any) and a concrete list of what to do, read from ``diff_ref``: which sheet,
  which cells, rows or columns, which values to enter, what to compute (the formula,
  copied down), what to insert, delete, rename, format. People become roles and every
  personal datum is scrubbed (:mod:`pipeline.draft.scrub`).
- the **checker** (:mod:`pipeline.draft.workflow_checker`), an oracle program
  (ARCHITECTURE.md, "Oracles") run in :mod:`oracles.sandbox` that holds the
  requirements of ``pipeline.judge.checker.build_checker`` as literals, reads the
  workbook under test and prints one JSON verdict ``{"passed", "failures"}``. Those
  requirements are first settled with the instruction
  (:mod:`pipeline.draft.workflow_requirements`): volatile and linked cells by formula
  only, every kept fill, font colour and number format stated in a line, a formula the
  instruction asks for required as a formula, a "paste values" step checked.
- the **trivial reason** of steps that are no work (only formatting noise, only a date
  stamp) and the drafter-side **problems** (no reference, undecidable diff, a checker
  too large for the sandbox, personal data in a workbook: detected data, known names,
  and person names or phone extensions found in its cells by
  :func:`pipeline.draft.scrub.workbook_personal_data`) for validation to reject.

Multi-step candidates (k >= 2 consecutive versions) are drafted the same way from the
diff of the first input to the last version: graded on the final state.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import polars as pl

from oracles._static import MAX_SOURCE_CHARS
from pipeline.detect.diffs import (
    CellEdit,
    SheetDiff,
    WorkbookDiff,
    diff_workbooks,
    formula_signature,
)
from pipeline.detect.steps import trivial_reason
from pipeline.draft.schemas import WORKFLOW_DRAFTS_SCHEMA
from pipeline.draft.scrub import (
    ROLE_ASKER,
    People,
    people_from_headers,
    personal_data,
    scrub_text,
    workbook_personal_data,
)
from pipeline.draft.workflow_checker import checker_source
from pipeline.draft.workflow_requirements import (
    Requirements,
    cell_runs,
    settle_requirements,
    span_text,
    style_lines,
)
from pipeline.ingest.workbooks import OLE_MAGIC, Cell, Workbook, read_workbook
from pipeline.judge.checker import ABS_TOL, REL_TOL, WorkbookChecker, build_checker
from pipeline.judge.compare import same_content
from pipeline.store import BlobStore

__all__ = [
    "DRAFTER_ID",
    "WORKFLOW_DRAFTS_SCHEMA",
    "blob_workbook_loader",
    "checker_source",
    "describe_diff",
    "draft_workflows",
    "trivial_reason",
]

DRAFTER_ID = "workflow-template-v1"
MAX_LISTED_VALUES = 40  # constants listed per run of cells in an instruction line
MAX_LINES = 30  # instruction lines describing edits; more and the task is underspecified
MAX_SINGLE_CHANGES = 5  # value changes said one by one ("change 95 to 97"); more are grouped


def _quote(text: object) -> str:
    text = str(text)
    return f"'{text}'" if not re.fullmatch(r"-?[\d,]+(\.\d+)?%?", text) else text


def _value(cell: Cell) -> str:
    """A cell's value as the instruction states it: a date as people write one
    ("12 Jan 2001", never quoted like text), a timestamp likewise ("25 May 2001 09:20"),
    blank text by its spaces."""
    text = cell.text or ""
    if cell.type == "D" and text.endswith("T00:00:00"):
        text = text[: -len("T00:00:00")]
    if cell.type == "D" and "T" not in text:
        try:  # a date, said as people write one and not quoted like text (the checker
            # wants a date: '2001-01-12' typed as quoted text would fail it)
            return dt.date.fromisoformat(text).strftime("%-d %b %Y")
        except ValueError:
            pass
    elif cell.type == "D":
        try:
            when = dt.datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            return when.strftime("%-d %b %Y %H:%M" + (":%S" if when.second else ""))
    if cell.type == "T" and text and not text.strip():
        return "a single space" if text == " " else f"{len(text)} spaces"
    return _quote(text)


def _shown(cell: Cell | None) -> str:
    if cell is None:
        return "empty"
    if cell.formula:
        return cell.formula
    return _value(cell)


class _Writer:
    """Collects instruction lines and what they leave unstated."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.unlisted = 0
        self.formulas: set[tuple[str, int, int]] = set()  # cells told "put the formula"
        self.skip: set[tuple[str, str]] = set()  # (sheet, address) no line may state

    def cells(self, sheet: str, cells: list[Cell], verb: str = "enter") -> None:
        """Describe setting ``cells``: formulas by runs copied down, constants listed."""
        cells = [c for c in cells if (sheet, c.address) not in self.skip]
        formulas = [c for c in cells if c.formula]
        constants = [c for c in cells if not c.formula]
        for run in cell_runs(formulas):
            groups: list[list[Cell]] = []
            for c in run:
                sig = formula_signature(c.formula, c.row, c.col)
                if (
                    groups
                    and formula_signature(
                        groups[-1][0].formula, groups[-1][0].row, groups[-1][0].col
                    )
                    == sig
                ):
                    groups[-1].append(c)
                else:
                    groups.append([c])
            for g in groups:
                self.formulas.update((sheet, c.row, c.col) for c in g)
                copied = ""
                if len(g) > 1:
                    copied = (
                        " (and copy it down)" if g[0].col == g[-1].col else " (and copy it across)"
                    )
                self.lines.append(
                    f"in '{sheet}'!{span_text(g)}, put the formula {g[0].formula}{copied}"
                )
        for run in cell_runs(constants):
            values = [_value(c) for c in run]
            if len(values) > MAX_LISTED_VALUES:
                self.unlisted += len(values) - MAX_LISTED_VALUES
                shown = ", ".join(values[:MAX_LISTED_VALUES]) + ", ..."
            else:
                shown = ", ".join(values)
            if verb == "set":  # "set 'Sheet1'!A4 to 'Revised'", not "change the values to"
                self.lines.append(f"set '{sheet}'!{span_text(run)} to {shown}")
            else:
                self.lines.append(f"{verb} {shown} in '{sheet}'!{span_text(run)}")


def _edits_by_kind(sd: SheetDiff) -> dict[str, list[CellEdit]]:
    out: dict[str, list[CellEdit]] = {}
    for e in sd.cell_edits:
        out.setdefault(e.kind, []).append(e)
    return out


def _describe_sheet(sd: SheetDiff, reference: Workbook, w: _Writer, styles: bool = True) -> None:
    sheet = sd.sheet
    ref_sheet = reference.sheets.get(sheet)
    if sd.status == "renamed":
        w.lines.append(f"rename the sheet '{sd.before_name}' to '{sheet}'")
    for ax in sd.axis_edits:
        where = "rows" if ax.axis == "row" else "columns"
        if ax.kind == "deleted":
            w.lines.append(f"delete {where} {ax.span} of '{sd.before_name or sheet}'")
            continue
        noun = where[:-1] if ax.count == 1 else where
        w.lines.append(f"insert {ax.count} new {noun} at {ax.span} in '{sheet}'")
        if ref_sheet is not None:
            inside = [
                c
                for (r, col), c in ref_sheet.cells.items()
                if (ax.start <= (r if ax.axis == "row" else col) < ax.start + ax.count)
            ]
            w.cells(sheet, inside, "fill in")
    kinds = _edits_by_kind(sd)
    pasted = {
        (e.after.row, e.after.col): e
        for e in kinds.get("formula_to_value", [])
        if e.after is not None and e.before is not None
    }
    for run in cell_runs([e.after for e in pasted.values()]):
        noun = "formula" if len(run) == 1 else "formulas"
        kept = all(
            same_content(replace(pasted[(c.row, c.col)].before, formula=None), c) for c in run
        )
        if kept:
            what = "its value" if len(run) == 1 else "their values"
        else:
            values = ", ".join(_value(c) for c in run)
            what = f"the value {values}" if len(run) == 1 else f"the values {values}"
        w.lines.append(f"replace the {noun} in '{sheet}'!{span_text(run)} with {what}")
    changes = kinds.get("value_changed", [])
    if len(changes) <= MAX_SINGLE_CHANGES:
        for e in changes:
            to = _value(e.after) if e.after else "empty"
            w.lines.append(f"in '{sheet}'!{e.after_address}, change {_shown(e.before)} to {to}")
    else:
        w.cells(sheet, [e.after for e in changes if e.after is not None], "set")
    written = [
        e.after
        for k in ("cell_added", "value_to_formula", "formula_changed")
        for e in kinds.get(k, [])
        if e.after
    ]
    if written:
        w.cells(sheet, written)
    cleared = [
        replace(e.before, row=e.after_row, col=e.after_col)
        for e in kinds.get("cell_removed", [])
        if e.before is not None and e.after_row is not None and e.after_col is not None
    ]
    for run in cell_runs(cleared):
        w.lines.append(f"clear '{sheet}'!{span_text(run)}")
    if styles:
        _describe_styles(sd, kinds, w)
    for label in sd.charts_added:
        kind, _, anchor = label.partition("@")
        w.lines.append(
            f"add a {kind.replace('Chart', '').lower()} chart to '{sheet}' (at {anchor})"
        )
    for m in sd.merges_added:
        w.lines.append(f"merge '{sheet}'!{m}")
    for cf in sd.conditional_formats_added:
        w.lines.append(f"add conditional formatting to '{sheet}'!{cf.split(' ')[0]}")


def _describe_styles(sd: SheetDiff, kinds: dict[str, list[CellEdit]], w: _Writer) -> None:
    """Format and style lines read from the diff's format/style edits alone (without a
    checker; :func:`style_lines` states every style the checker requires)."""
    sheet = sd.sheet
    formats: dict[str, list[Cell]] = {}
    for e in kinds.get("format_changed", []):
        if e.after is not None:
            formats.setdefault(e.after.number_format, []).append(e.after)
    for fmt, cells in formats.items():
        for run in cell_runs(cells):
            w.lines.append(f"format '{sheet}'!{span_text(run)} as '{fmt}'")
    styled = [e.after for e in kinds.get("style_changed", []) if e.after is not None]
    for run in cell_runs(styled):
        fill, font = run[0].fill, run[0].font_color
        what = ", ".join(
            x for x in (f"fill {fill}" if fill else "", f"font colour {font}" if font else "") if x
        )
        w.lines.append(
            f"highlight '{sheet}'!{span_text(run)} ({what})"
            if what
            else f"remove the highlight from '{sheet}'!{span_text(run)}"
        )


def describe_diff(
    diff: WorkbookDiff, reference: Workbook, input_wb: Workbook | None = None
) -> tuple[list[str], int]:
    """What the reference changes, as instruction lines, and how many constant values
    the lines leave unstated. Given the input, the lines are the drafter's own (every
    style the checker requires stated, see :func:`instruction_lines`)."""
    if input_wb is not None:
        checker = build_checker(
            input_wb, reference, diff_ref=diff, abs_tol=ABS_TOL, rel_tol=REL_TOL
        )
        lines, unlisted, _ = instruction_lines(checker, diff)
        return lines, unlisted
    w = _describe(diff, reference, styles=True)
    return w.lines, w.unlisted


def instruction_lines(
    checker: WorkbookChecker, diff: WorkbookDiff
) -> tuple[list[str], int, Requirements]:
    """The instruction lines of a task, how many values they leave unstated, and the
    checker's requirements settled with them (:func:`settle_requirements`)."""
    # the cells no instruction can state (new external links) first, then the rest
    dropped = settle_requirements(checker, diff, set()).ignored
    writer = _describe(diff, checker.reference, styles=False, skip=dropped)
    settled = settle_requirements(checker, diff, writer.formulas)
    lines = writer.lines + style_lines(settled.required, checker.input, diff)
    return lines, writer.unlisted, settled


def _describe(
    diff: WorkbookDiff,
    reference: Workbook,
    styles: bool,
    skip: list[tuple[str, str]] | None = None,
) -> _Writer:
    w = _Writer()
    w.skip = set(skip or [])
    for sd in diff.sheets:
        if sd.status == "added":
            w.lines.append(f"add a new sheet named '{sd.sheet}'")
            ref_sheet = reference.sheets.get(sd.sheet)
            if ref_sheet is not None:
                w.cells(sd.sheet, list(ref_sheet.cells.values()), "enter")
        elif sd.status == "removed":
            w.lines.append(f"delete the sheet '{sd.sheet}'")
        elif sd.changed:
            _describe_sheet(sd, reference, w, styles)
    return w


def _goal_text(goals: list[str], people: People) -> list[str]:
    out = []
    for g in goals[:3]:
        text = scrub_text(g, people)
        text = re.sub(r"^(?:hi|hello|hey)\b[^,.!?]*[,.!]\s*", "", text, flags=re.I)
        text = re.sub(r"^(?:[Yy]our manager|[Tt]he analyst|[Aa] colleague)\s*[,:-]\s*", "", text)
        if text:
            out.append(text[0].upper() + text[1:])
    return out


def write_instruction(goals: list[str], lines: list[str], steps: int, people: People) -> str:
    """The instruction in a colleague's voice, scrubbed."""
    parts = ["Hi, could you update the attached workbook for me?"]
    said = _goal_text(goals, people)
    if said:
        parts.append(f"Here is what {ROLE_ASKER} asked: " + " ".join(f'"{g}"' for g in said))
    if steps > 1:
        parts.append(
            f"This went through {steps} rounds of edits; I need the final version with all of them."
        )
    shown = lines[:MAX_LINES]
    todo = "\n".join(f"- {line[0].upper()}{line[1:]}." for line in shown)
    if len(lines) > MAX_LINES:
        todo += f"\n- ... and {len(lines) - MAX_LINES} more changes of the same kind."
    deletes = any(line.startswith(("delete rows", "delete columns")) for line in shown)
    if deletes:
        # deletions are stated in the addresses of the workbook as received, the rest
        # in those of the finished one: say so before the list, where it is read first
        parts.append(
            "Do the row and column deletions first: their numbers are those of the "
            "workbook as you receive it. Every other cell address is that of the "
            "finished workbook."
        )
    elif any(line.startswith("insert ") for line in shown):
        parts.append("Cell addresses are those of the finished workbook.")
    parts.append("Specifically:\n" + todo)
    parts.append("Leave everything else as it is and send me back the updated workbook.")
    return scrub_text("\n\n".join(parts), people)


# --------------------------------------------------------------------------- drafting


def blob_workbook_loader(
    blobs: BlobStore,
    converted: Mapping[str, str] | None = None,
    convert_dir: str | Path | None = None,
) -> Callable[[str], Workbook]:
    """A loader of workbooks by workbook_id from the blob store (an .xls through its
    converted .xlsx blob when ``converted`` knows it), cached per id."""
    cache: dict[str, Workbook] = {}
    converted = dict(converted or {})
    links = tempfile.TemporaryDirectory(prefix="lf-wf-books-")  # lives as long as `load`

    def load(workbook_id: str) -> Workbook:
        if workbook_id not in cache:
            readable = converted.get(workbook_id) or workbook_id
            blob = Path(blobs.local_path(readable))
            with open(blob, "rb") as fh:
                head = fh.read(8)
            # openpyxl goes by the file name's suffix: name a link to the blob by its bytes
            link = Path(links.name) / f"{readable}{'.xls' if head == OLE_MAGIC else '.xlsx'}"
            if not link.exists():
                link.symlink_to(blob)
            wb = read_workbook(link, convert_dir=convert_dir)
            cache[workbook_id] = replace(wb, workbook_id=workbook_id, path=blob)
        return cache[workbook_id]

    load.links = links  # type: ignore[attr-defined]

    return load


def _task_id(candidate_id: str, before: str, after: str | None) -> str:
    return "wt-" + hashlib.sha256(f"{candidate_id}|{before}|{after}".encode()).hexdigest()[:16]


def _workbook_texts(wb: Workbook) -> list[str]:
    return [str(c.value) for s in wb.sheets.values() for c in s.cells.values() if c.type == "T"]


def _workbook_text(wb: Workbook) -> str:
    return "\n".join(_workbook_texts(wb))


def _people(
    candidate: Mapping, messages: pl.DataFrame | None, threads: pl.DataFrame | None
) -> People:
    if messages is None or not candidate.get("thread_id") or threads is None:
        return People()
    keys = threads.filter(pl.col("thread_id") == candidate["thread_id"])["message_key"].to_list()
    rows = messages.filter(pl.col("message_key").is_in(keys)).to_dicts()
    return people_from_headers(rows, askers=candidate.get("message_keys") or [])


def draft_workflows(
    candidates: pl.DataFrame,
    load_workbook: Callable[[str], Workbook],
    *,
    messages: pl.DataFrame | None = None,
    threads: pl.DataFrame | None = None,
    converted: Mapping[str, str] | None = None,
    version_steps: pl.DataFrame | None = None,
    trivial: Callable[[WorkbookDiff], str | None] = trivial_reason,
) -> pl.DataFrame:
    """One draft per candidate (``WORKFLOW_DRAFTS_SCHEMA``).

    ``load_workbook(workbook_id)`` reads a workbook (see :func:`blob_workbook_loader`);
    ``messages``/``threads`` give the people of a thread candidate (names -> roles);
    ``converted`` maps an .xls workbook_id to its converted .xlsx blob (what the checker
    reads); ``version_steps`` (VERSION_STEPS_SCHEMA) gives each step's summary and, for a
    one-step candidate, its trivial reason; ``trivial`` decides the others from the diff
    of the whole candidate (``pipeline.detect.steps.trivial_reason`` fits as well).
    Never raises on one candidate: an unreadable workbook becomes a problem.
    """
    converted = dict(converted or {})
    summaries: dict[str, str] = {}
    step_trivial: dict[str, str] = {}
    if version_steps is not None and version_steps.height:
        for chain_id, step, summary, reason in version_steps.select(
            "chain_id", "step", "summary", "trivial_reason"
        ).iter_rows():
            summaries[f"{chain_id}:{step}"] = summary or ""
            if reason:
                step_trivial[f"{chain_id}:{step}"] = reason
    rows = []
    for cand in candidates.iter_rows(named=True):
        before, after = cand["before_id"], cand["after_id"]
        task_id = _task_id(cand["candidate_id"], before, after)
        people = _people(cand, messages, threads)
        row = {k: None for k in WORKFLOW_DRAFTS_SCHEMA}
        row.update(
            task_id=task_id,
            candidate_id=cand["candidate_id"],
            origin=cand["origin"],
            grounding=cand["grounding"],
            input_sha256=before,
            reference_sha256=after,
            input_xlsx_sha256=converted.get(before, before),
            reference_xlsx_sha256=converted.get(after, after) if after else None,
            steps=cand["steps"],
            step_ids=list(cand["step_ids"] or []),
            task_types=list(cand["task_types"] or []),
            business_type=cand["business_type"],
            n_required=0,
            problems=[],
            drafter=DRAFTER_ID,
        )
        rows.append(row)
        if not after:
            row["problems"] = ["no_reference: no later version of the input is known"]
            continue
        try:
            input_wb, reference_wb = load_workbook(before), load_workbook(after)
        except Exception as err:  # noqa: BLE001 - one unreadable workbook, one problem
            row["problems"] = [f"unreadable_workbook: {type(err).__name__}: {err}"[:300]]
            continue
        diff = diff_workbooks(input_wb, reference_wb)
        steps_of = row["step_ids"]
        known = step_trivial.get(steps_of[0]) if len(steps_of) == 1 else None
        row["trivial_reason"] = known or trivial(diff)
        checker = build_checker(
            input_wb, reference_wb, diff_ref=diff, abs_tol=ABS_TOL, rel_tol=REL_TOL
        )
        problems: list[str] = []
        if checker.undecidable or not (
            checker.required or checker.removed_sheets or checker.features
        ):
            problems.append(
                f"undecidable: {checker.undecidable or 'nothing the checker can compare'}"
            )
        lines, unlisted, settled = instruction_lines(checker, diff)
        checker = replace(checker, required=settled.required, notes=checker.notes + settled.notes)
        if unlisted:
            problems.append(f"underspecified: {unlisted} values the instruction cannot list")
        if len(lines) > MAX_LINES:
            problems.append(f"underspecified: {len(lines)} edits, more than {MAX_LINES} to list")
        source = checker_source(
            task_id, checker, before, after, row["input_xlsx_sha256"], settled.ignored
        )
        if len(source) > MAX_SOURCE_CHARS:
            problems.append(f"checker_too_large: {len(source)} characters > {MAX_SOURCE_CHARS}")
        for label, wb in (("input", input_wb), ("reference", reference_wb)):
            found = personal_data(_workbook_text(wb), people)
            found += workbook_personal_data(_workbook_texts(wb))
            kinds = sorted({d.kind for d in found})
            if kinds:
                problems.append(f"personal_data_in_workbook: the {label} holds {', '.join(kinds)}")
        step_text = " ".join(summaries[s] for s in row["step_ids"] if summaries.get(s))
        row.update(
            instruction=write_instruction(
                list(cand["goal_sentences"] or []), lines, cand["steps"] or 1, people
            ),
            checker=source,
            n_required=len(checker.required),
            summary=scrub_text(step_text or "; ".join(lines[:5]), people),
            problems=problems,
        )
    return pl.DataFrame(rows, schema=WORKFLOW_DRAFTS_SCHEMA)
