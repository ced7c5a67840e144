"""The deterministic workbook checker: built from ``diff_ref`` (input -> reference),
it grades any output workbook of the same task.

Required cells are the cells the reference defines: every cell of the answer
position when the task gives one (SpreadsheetBench's ``answer_position``, resolved
by :mod:`pipeline.judge.scope`, which never raises), otherwise, or when the position
cannot be resolved or holds no change, every address whose content, number format or
style the reference changed (diff_ref's edits, including the cells displaced by its
row and column insertions and deletions, and every cell of an added sheet). Cells
compare by the rules of :mod:`pipeline.judge.compare`. Beyond cells: charts,
conditional formats and merges the reference added or removed, sheets it removed,
and the layout it changed (hidden rows and columns, autofilter, sheet visibility,
:mod:`pipeline.judge.layout`).

An output passes when every requirement holds and it makes no edit that destroys
input content the reference kept; every unexpected edit is listed. A reference
identical to the input leaves nothing to check: the verdict is ``None`` with the
reason "undecidable" (and :func:`task_rejections` rejects such a task).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from openpyxl.utils import get_column_letter

from pipeline.detect.diffs import WorkbookDiff, diff_workbooks, formula_signature
from pipeline.ingest.workbooks import Cell, Workbook
from pipeline.judge.compare import (
    ABS_TOL,
    REL_TOL,
    compare_cells,
    format_changed,
    normalize_format,
    same_content,
    same_style,
    stale_formula,
    text_is_strict,
    type_is_strict,
)
from pipeline.judge.layout import (
    LayoutRequirement,
    check_layout,
    layout_requirements,
    unexpected_layout,
)
from pipeline.judge.scope import (
    MAX_SCOPE_CELLS,
    ScopeRange,
    parse_answer_position,
    resolve_scope,
)

__all__ = [
    "ABS_TOL",
    "MAX_SCOPE_CELLS",
    "REL_TOL",
    "CellCheck",
    "CheckResult",
    "LayoutRequirement",
    "RequiredCell",
    "RequiredFeature",
    "ScopeRange",
    "UnexpectedEdit",
    "WorkbookChecker",
    "build_checker",
    "compare_cells",
    "parse_answer_position",
    "resolve_scope",
    "task_rejections",
]

UNDECIDABLE_SAME = "the reference is identical to the input (nothing to do)"
UNDECIDABLE_NOTHING = "the reference changes nothing the checker can compare"


@dataclass(frozen=True)
class RequiredCell:
    """A cell the reference defines: the output must hold the same content there."""

    sheet: str
    row: int
    col: int
    expected: Cell | None  # None: the cell must be empty
    style: bool = False  # the reference changed its fill or font colour: check them too
    # the reference rewrote the input's formula without changing its value here: the
    # value cannot tell a fix from no edit, so the output's formula must not be the
    # input's unchanged one
    stale_formula: str | None = None
    strict_text: bool = False  # leading/trailing whitespace is significant
    strict_type: bool = False  # text vs number is significant
    number_format: str | None = None  # the format the task set, when it changed it
    # workflow tasks (pipeline.draft.workflows): the instruction asks for this formula,
    # so the output must hold it, not only its value (a typed constant fails)
    require_formula: bool = False
    # a volatile (NOW, RAND, OFFSET...) or externally linked cell: its cached value is
    # the moment or the link cache of the reference's save, so only the formula counts
    formula_only: bool = False
    no_formula: bool = False  # the task replaced the formula by its value

    @property
    def address(self) -> str:
        return f"{get_column_letter(self.col)}{self.row}"


@dataclass(frozen=True)
class CellCheck:
    """The outcome for one required cell and the rule that decided it."""

    sheet: str
    address: str
    expected: str | None
    got: str | None
    ok: bool
    # equal | within_tolerance | numeric_text | trimmed_equal | formula_equal | both_empty
    # | static_value | mismatch | missing | unexpected_value | not_computed | error_value
    # | type_mismatch | whitespace | missing_sheet | style_mismatch | number_format
    # | unchanged_formula; for layout checks: hidden_rows | hidden_cols | autofilter
    # | sheet_state
    rule: str


@dataclass(frozen=True)
class UnexpectedEdit:
    """An edit of the output the reference does not make."""

    sheet: str
    where: str
    kind: str
    detail: str
    destructive: bool  # it changes or removes content the input had (vs. adds beside it)


@dataclass
class CheckResult:
    """The checker's verdict on one output workbook."""

    verdict: bool | None  # None: nothing mechanical to check (see ``undecidable``)
    checks: list[CellCheck] = field(default_factory=list)
    layout_checks: list[CellCheck] = field(default_factory=list)
    unexpected: list[UnexpectedEdit] = field(default_factory=list)
    missing_sheets: list[str] = field(default_factory=list)
    extra_sheets_kept: list[str] = field(default_factory=list)  # sheets the reference removed
    missing_features: list[str] = field(default_factory=list)  # charts / conditional formats
    scope_fallback: bool = False
    notes: list[str] = field(default_factory=list)  # scope repairs, skipped styles
    undecidable: str | None = None

    @property
    def n_required(self) -> int:
        return len(self.checks)

    @property
    def n_ok(self) -> int:
        return sum(c.ok for c in self.checks)

    @property
    def mismatches(self) -> list[CellCheck]:
        return [c for c in self.checks if not c.ok]

    def rationale(self, max_items: int = 5) -> str:
        """A short explanation of the verdict."""
        if self.verdict is None:
            why = self.undecidable or UNDECIDABLE_NOTHING
            return "UNDECIDABLE: " + "; ".join([why, *self.notes])
        parts = [f"{self.n_ok}/{self.n_required} required cells match"]
        if self.scope_fallback:
            parts.append("the answer position holds no reference change; diff_ref's edits used")
        parts += self.notes
        if self.missing_sheets:
            parts.append(f"missing sheets {self.missing_sheets}")
        if self.extra_sheets_kept:
            parts.append(f"sheets the reference removed are still present {self.extra_sheets_kept}")
        if self.missing_features:
            parts.append(f"missing {self.missing_features}")
        for c in self.mismatches[:max_items]:
            parts.append(
                f"{c.sheet}!{c.address}: expected {c.expected!r}, got {c.got!r} ({c.rule})"
            )
        if len(self.mismatches) > max_items:
            parts.append(f"... {len(self.mismatches) - max_items} more mismatches")
        for c in self.layout_checks:
            if not c.ok:
                parts.append(f"{c.sheet}: {c.rule} expected {c.expected}, got {c.got}")
        destructive = [u for u in self.unexpected if u.destructive]
        if self.unexpected:
            parts.append(
                f"{len(self.unexpected)} unexpected edits ({len(destructive)} destructive)"
            )
            for u in (destructive or self.unexpected)[:max_items]:
                parts.append(f"{u.sheet}!{u.where}: {u.kind} {u.detail}")
        return ("PASS: " if self.verdict else "FAIL: ") + "; ".join(parts)


@dataclass(frozen=True)
class RequiredFeature:
    """A sheet-level object the reference added (or removed): a chart (by type), a
    conditional format (by range; its rule may be written differently), a merge."""

    sheet: str
    kind: str  # chart | conditional_format | merge
    label: str  # chart type ("BarChart"), the conditional format's or merge's range
    present: bool = True  # False: the reference removed it, the output must not have it

    def _found(self, output: Workbook) -> bool:
        sheet = output.sheets.get(self.sheet)
        if sheet is None:
            return False
        if self.kind == "chart":
            return any(c.split("@")[0] == self.label for c in sheet.charts)
        if self.kind == "merge":
            return self.label in sheet.merged_ranges
        return any(cf.split(" ")[0] == self.label for cf in sheet.conditional_formats)

    def holds(self, output: Workbook) -> bool:
        return self._found(output) == self.present

    def describe(self) -> str:
        return f"{self.kind} {self.label} on {self.sheet}" + ("" if self.present else " removed")


@dataclass
class WorkbookChecker:
    """A checker for one task: its input, its reference and the requirements."""

    input: Workbook
    reference: Workbook
    diff_ref: WorkbookDiff
    required: list[RequiredCell]
    scope: list[ScopeRange] | None = None
    removed_sheets: list[str] = field(default_factory=list)
    features: list[RequiredFeature] = field(default_factory=list)
    layout: list[LayoutRequirement] = field(default_factory=list)
    scope_fallback: bool = False  # the answer position was extended by diff_ref's edits
    notes: list[str] = field(default_factory=list)
    undecidable: str | None = None
    abs_tol: float = ABS_TOL
    rel_tol: float = REL_TOL
    require_formulas: bool = False
    fail_on_destructive: bool = True

    def in_scope(self, sheet: str, row: int, col: int) -> bool:
        if self.scope is None:
            return False
        return any((sheet, row, col) in r for r in self.scope)

    def check(
        self,
        output: Workbook,
        diff_model: WorkbookDiff | None = None,
        output_notes: list[str] | None = None,
    ) -> CheckResult:
        """Grade ``output``; ``diff_model`` (input -> output) is computed when not given."""
        result = CheckResult(
            verdict=None,
            scope_fallback=self.scope_fallback,
            notes=list(dict.fromkeys(self.notes + (output_notes or []))),
            undecidable=self.undecidable,
        )
        if self.undecidable:
            return result
        if diff_model is None:
            diff_model = diff_workbooks(self.input, output)
        sheets_needed = {r.sheet for r in self.required}
        result.missing_sheets = sorted(s for s in sheets_needed if s not in output.sheets)
        result.extra_sheets_kept = [s for s in self.removed_sheets if s in output.sheets]
        result.checks = [self._check_cell(req, output) for req in self.required]
        result.layout_checks = self._check_layout(output)
        result.missing_features = [f.describe() for f in self.features if not f.holds(output)]
        result.unexpected = self._unexpected_edits(output, diff_model)
        if not (self.required or self.removed_sheets or self.features or self.layout):
            result.undecidable = UNDECIDABLE_NOTHING
            return result
        destructive = any(u.destructive for u in result.unexpected)
        result.verdict = (
            all(c.ok for c in result.checks)
            and all(c.ok for c in result.layout_checks)
            and not result.missing_sheets
            and not result.extra_sheets_kept
            and not result.missing_features
            and not (self.fail_on_destructive and destructive)
        )
        return result

    def _check_cell(self, req: RequiredCell, output: Workbook) -> CellCheck:
        got_sheet = output.sheets.get(req.sheet)
        expected_text = req.expected.text if req.expected else None
        if got_sheet is None:
            return CellCheck(req.sheet, req.address, expected_text, None, False, "missing_sheet")
        got = got_sheet.get(req.row, req.col)
        want_sig = formula_signature(
            req.expected.formula if req.expected else None, req.row, req.col
        )
        got_sig = formula_signature(got.formula, req.row, req.col) if got is not None else None
        if req.formula_only:
            ok = want_sig == got_sig
            got_formula = got.formula if got is not None else None
            return CellCheck(
                req.sheet,
                req.address,
                req.expected.formula if req.expected else None,
                got_formula,
                ok,
                "formula_equal" if ok else "formula_mismatch",
            )
        ok, rule = compare_cells(
            req.expected,
            got,
            self.abs_tol,
            self.rel_tol,
            self.require_formulas,
            strict_text=req.strict_text,
            strict_type=req.strict_type,
        )
        if ok and req.style and not same_style(req.expected, got):
            ok, rule = False, "style_mismatch"
        if ok and req.number_format is not None:
            have = got.number_format if got is not None else None
            if normalize_format(have) != normalize_format(req.number_format):
                ok, rule = False, "number_format"
        if ok and req.require_formula and want_sig != got_sig:
            ok, rule = False, "formula_mismatch"
        if ok and req.no_formula and got is not None and got.formula:
            ok, rule = False, "formula_kept"
        if ok and req.stale_formula is not None and got is not None:
            if formula_signature(got.formula, got.row, got.col) == req.stale_formula:
                ok, rule = False, "unchanged_formula"
        got_text = got.text if got is not None else None
        if got is not None and got_text is None:
            got_text = got.formula
        if rule == "number_format" and got is not None:
            expected_text, got_text = req.number_format, got.number_format
        return CellCheck(req.sheet, req.address, expected_text, got_text, ok, rule)

    def _check_layout(self, output: Workbook) -> list[CellCheck]:
        return [
            CellCheck(sheet, "-", want, got, ok, kind)
            for sheet, kind, want, got, ok in check_layout(self.layout, output)
        ]

    def _unexpected_edits(self, output: Workbook, diff_model: WorkbookDiff) -> list[UnexpectedEdit]:
        required = {(r.sheet, r.row, r.col) for r in self.required}
        ref_axis = {
            (sd.sheet, ax.axis, ax.kind, ax.start, ax.count)
            for sd in self.diff_ref.sheets
            for ax in sd.axis_edits
        }
        out: list[UnexpectedEdit] = []
        for sd in diff_model.sheets:
            name = sd.sheet
            if sd.status == "added" and name not in self.reference.sheets:
                out.append(UnexpectedEdit(name, "-", "sheet_added", "", False))
                continue
            if sd.status == "removed":
                if name in self.reference.sheets:
                    out.append(UnexpectedEdit(name, "-", "sheet_removed", "", True))
                continue
            if sd.status == "renamed" and sd.before_name in self.reference.sheets:
                out.append(
                    UnexpectedEdit(name, "-", "sheet_renamed", f"from {sd.before_name!r}", True)
                )
            ref_sheet = self.reference.sheets.get(name)
            input_sheet = self.input.sheets.get(sd.before_name or name)
            for ax in sd.axis_edits:
                if (name, ax.axis, ax.kind, ax.start, ax.count) in ref_axis:
                    continue
                top = (
                    (input_sheet.max_row if ax.axis == "row" else input_sheet.max_col)
                    if input_sheet
                    else 0
                )
                # deleting content, or inserting inside the data (it shifts what follows)
                destructive = ax.n_cells > 0 if ax.kind == "deleted" else ax.start <= top
                if (
                    self.in_scope(name, ax.start, 1)
                    if ax.axis == "row"
                    else self.in_scope(name, 1, ax.start)
                ):
                    continue
                detail = f"{ax.count} x, {ax.n_cells} cells"
                out.append(
                    UnexpectedEdit(name, ax.span, f"{ax.axis}_{ax.kind}", detail, destructive)
                )
            for e in sd.cell_edits:
                if (
                    e.kind in ("format_changed", "style_changed")
                    or e.after_row is None
                    or e.after_col is None
                ):
                    continue
                key = (name, e.after_row, e.after_col)
                if key in required or self.in_scope(*key):
                    continue
                ref_cell = ref_sheet.get(e.after_row, e.after_col) if ref_sheet else None
                if (
                    same_content(ref_cell, e.after)
                    or compare_cells(ref_cell, e.after, self.abs_tol, self.rel_tol)[0]
                ):
                    continue  # the reference made the same edit
                before = e.before.text if e.before else None
                after = e.after.text if e.after else None
                out.append(
                    UnexpectedEdit(
                        name,
                        e.after_address or "?",
                        e.kind,
                        f"{before!r} -> {after!r}",
                        e.kind != "cell_added",
                    )
                )
            for label in sd.charts_added:
                if ref_sheet is None or label not in ref_sheet.charts:
                    out.append(UnexpectedEdit(name, "-", "chart_added", label, False))
        decided = {(r.sheet, r.kind) for r in self.layout}
        return out + [
            UnexpectedEdit(sheet, "-", kind, detail, False)
            for sheet, kind, detail in unexpected_layout(self.input, output, decided)
        ]


def _flags(ref_cell: Cell | None, in_cell: Cell | None) -> dict:
    return {
        "style": not same_style(ref_cell, in_cell),
        "stale_formula": stale_formula(ref_cell, in_cell),
        "strict_text": text_is_strict(ref_cell, in_cell),
        "strict_type": type_is_strict(ref_cell, in_cell),
        "number_format": format_changed(ref_cell, in_cell),
    }


def _features(diff_ref: WorkbookDiff) -> list[RequiredFeature]:
    out: list[RequiredFeature] = []
    for sd in diff_ref.sheets:
        out += [RequiredFeature(sd.sheet, "chart", c.split("@")[0]) for c in sd.charts_added]
        out += [
            RequiredFeature(sd.sheet, "conditional_format", r.split(" ")[0])
            for r in sd.conditional_formats_added
        ]
        out += [RequiredFeature(sd.sheet, "merge", m) for m in sd.merges_added]
        out += [RequiredFeature(sd.sheet, "merge", m, present=False) for m in sd.merges_removed]
    return out


def build_checker(
    input_wb: Workbook,
    reference_wb: Workbook,
    answer_position: str | None = None,
    *,
    diff_ref: WorkbookDiff | None = None,
    abs_tol: float = ABS_TOL,
    rel_tol: float = REL_TOL,
    require_formulas: bool = False,
    fail_on_destructive: bool = True,
    notes: list[str] | None = None,
) -> WorkbookChecker:
    """A checker from diff_ref, scoped to ``answer_position`` when the task gives one.

    Never raises on the answer position: what cannot be resolved is noted and the
    reference diff decides. ``require_formulas`` fails a constant where the reference
    has a formula (the "formula silently replaced by its value" slip); by default
    values decide, as in SpreadsheetBench. ``fail_on_destructive`` fails outputs whose
    unexpected edits change or remove input content; additions are only listed.
    ``notes`` (e.g. styles skipped when reading) are carried into every verdict.
    """
    if diff_ref is None:
        diff_ref = diff_workbooks(input_wb, reference_wb)
    notes = list(notes or [])
    layout = layout_requirements(input_wb, reference_wb, diff_ref)
    common = dict(
        input=input_wb,
        reference=reference_wb,
        diff_ref=diff_ref,
        abs_tol=abs_tol,
        rel_tol=rel_tol,
        require_formulas=require_formulas,
        fail_on_destructive=fail_on_destructive,
    )
    if diff_ref.is_empty and not layout:
        return WorkbookChecker(required=[], notes=notes, undecidable=UNDECIDABLE_SAME, **common)
    required: list[RequiredCell] = []
    scope: list[ScopeRange] | None = None
    if answer_position:
        resolved = resolve_scope(answer_position, reference_wb, input_wb)
        notes += resolved.notes
        scope = resolved.ranges or None
        for rng in resolved.ranges:
            sheet = reference_wb.sheets[rng.sheet]
            in_sheet = input_wb.sheets.get(rng.sheet)
            for row in range(rng.min_row, rng.max_row + 1):
                for col in range(rng.min_col, rng.max_col + 1):
                    ref_cell = sheet.get(row, col)
                    in_cell = in_sheet.get(row, col) if in_sheet else None
                    flags = _flags(ref_cell, in_cell)
                    required.append(RequiredCell(rng.sheet, row, col, ref_cell, **flags))
    changes = any(
        r.style
        or r.number_format is not None
        or not same_content(r.expected, _input_cell(input_wb, r))
        for r in required
    )
    scope_fallback = bool(required) and not changes
    removed: list[str] = []
    if scope_fallback or not required:
        # no (resolvable) answer position, or one where the reference changes nothing
        # (a mislabelled position): the cells diff_ref changed are the required ones
        required += _diff_ref_cells(input_wb, reference_wb, diff_ref, required, removed)
    return WorkbookChecker(
        required=required,
        scope=scope,
        removed_sheets=removed,
        features=_features(diff_ref),
        layout=layout,
        scope_fallback=scope_fallback,
        notes=notes,
        **common,
    )


def _input_cell(input_wb: Workbook, req: RequiredCell) -> Cell | None:
    sheet = input_wb.sheets.get(req.sheet)
    return sheet.get(req.row, req.col) if sheet else None


def _diff_ref_cells(
    input_wb: Workbook,
    reference_wb: Workbook,
    diff_ref: WorkbookDiff,
    already: list[RequiredCell],
    removed: list[str],
) -> list[RequiredCell]:
    """Every cell whose content, format or style the reference changed, by position
    (an aligned insertion displaces the cells below it, and the output must show them
    displaced too), and every cell of an added sheet."""
    scoped = {(r.sheet, r.row, r.col) for r in already}
    out: list[RequiredCell] = []
    for sd in diff_ref.sheets:
        if sd.status == "removed":
            removed.append(sd.sheet)
            continue
        if sd.status == "same":
            continue
        ref_sheet = reference_wb.sheets[sd.sheet]
        if sd.status == "added":
            out += [
                RequiredCell(sd.sheet, r, c, cell)
                for (r, c), cell in sorted(ref_sheet.cells.items())
                if (sd.sheet, r, c) not in scoped
            ]
            continue
        in_sheet = input_wb.sheets[sd.before_name or sd.sheet]
        for r, c in sorted(set(ref_sheet.cells) | set(in_sheet.cells)):
            if (sd.sheet, r, c) in scoped:
                continue
            ref_cell, in_cell = ref_sheet.get(r, c), in_sheet.get(r, c)
            flags = _flags(ref_cell, in_cell)
            if (
                flags["style"]
                or flags["number_format"] is not None
                or not same_content(ref_cell, in_cell)
            ):
                out.append(RequiredCell(sd.sheet, r, c, ref_cell, **flags))
    return out


def task_rejections(
    input_wb: Workbook, reference_wb: Workbook, answer_position: str | None = None
) -> list[str]:
    """Why a workflow task built from this input/reference pair must be rejected
    (empty when it can be checked): a reference identical to the input gives a task
    with nothing to do, which every output would pass or none could."""
    checker = build_checker(input_wb, reference_wb, answer_position)
    reasons = []
    if checker.undecidable == UNDECIDABLE_SAME:
        reasons.append("reference_identical_to_input")
    elif not (checker.required or checker.removed_sheets or checker.features or checker.layout):
        reasons.append("nothing_to_check")
    return reasons
