"""The deterministic workbook checker: built from ``diff_ref`` (input -> reference),
it grades any output workbook of the same task.

Required cells are the cells the reference defines: every cell of the answer
position when the task gives one (SpreadsheetBench's ``answer_position``), otherwise
every address whose content the reference changed (diff_ref's edits, including the
cells displaced by its row and column insertions and deletions, and every cell of an
added sheet). An output passes when every required cell matches the reference
(numbers within tolerance; a formula is accepted when it computes the same value, or
when it equals the reference formula after normalisation) and it makes no edit that
destroys input content the reference kept. Every unexpected edit is listed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from openpyxl.utils import get_column_letter, range_boundaries

from pipeline.detect.diffs import WorkbookDiff, cell_key, diff_workbooks, formula_signature
from pipeline.ingest.workbooks import Cell, Workbook, value_number

ABS_TOL = 0.005  # half a cent: the rounding SpreadsheetBench and finance answers use
REL_TOL = 1e-9
MAX_SCOPE_CELLS = 200_000


class ScopeError(ValueError):
    """An answer position that cannot be resolved against the reference workbook."""


@dataclass(frozen=True)
class ScopeRange:
    """One rectangle of required cells on one sheet (1-based, inclusive)."""

    sheet: str
    min_col: int
    min_row: int
    max_col: int
    max_row: int

    @property
    def ref(self) -> str:
        first = f"{get_column_letter(self.min_col)}{self.min_row}"
        last = f"{get_column_letter(self.max_col)}{self.max_row}"
        return f"'{self.sheet}'!{first}:{last}"

    def __contains__(self, key: object) -> bool:
        sheet, row, col = key  # type: ignore[misc]
        return (
            sheet == self.sheet
            and self.min_row <= row <= self.max_row
            and self.min_col <= col <= self.max_col
        )


def parse_answer_position(text: str) -> list[tuple[str | None, str]]:
    """Split an answer position into ``(sheet or None, "A1:B2")`` parts.

    Accepts the forms found in SpreadsheetBench, including its stray quotes:
    ``'Sheet1'!A1:A4``, ``A1:N53``, ``'Sheet1!'A2:B19,'Sheet2!'A2:B19``,
    ``Updated Data'!B5:B9``, ``E1``.
    """
    parts: list[tuple[str | None, str]] = []
    for raw in text.split(","):
        raw = raw.strip()
        if not raw:
            continue
        if "!" in raw:
            sheet, _, rng = raw.rpartition("!")
            sheet = sheet.strip().strip("'\"").strip()
            parts.append((sheet or None, rng.strip().strip("'\"").replace("$", "")))
        else:
            parts.append((None, raw.strip("'\"").replace("$", "")))
    if not parts:
        raise ScopeError(f"empty answer position {text!r}")
    return parts


def _resolve_sheet(name: str | None, reference: Workbook) -> str:
    if name is None:
        return reference.sheet_names[0]  # SpreadsheetBench's rule for a bare range
    if name in reference.sheets:
        return name
    folded = {n.strip().casefold(): n for n in reference.sheet_names}
    if name.strip().casefold() in folded:
        return folded[name.strip().casefold()]
    raise ScopeError(
        f"{reference.path}: answer position names sheet {name!r}, not in {reference.sheet_names}"
    )


def resolve_scope(
    answer_position: str, reference: Workbook, other: Workbook | None = None
) -> list[ScopeRange]:
    """The answer position as rectangles on the reference's sheets.

    Whole-column or whole-row ranges ("A:A") are clipped to the used area of the
    reference (and of ``other``, usually the input).
    """
    ranges: list[ScopeRange] = []
    for sheet_name, rng in parse_answer_position(answer_position):
        sheet = _resolve_sheet(sheet_name, reference)
        try:
            min_col, min_row, max_col, max_row = range_boundaries(rng.upper())
        except (ValueError, TypeError) as exc:
            raise ScopeError(f"{reference.path}: bad range {rng!r} in {answer_position!r}") from exc
        used_rows = [reference.sheets[sheet].max_row]
        used_cols = [reference.sheets[sheet].max_col]
        if other is not None and sheet in other.sheets:
            used_rows.append(other.sheets[sheet].max_row)
            used_cols.append(other.sheets[sheet].max_col)
        ranges.append(
            ScopeRange(
                sheet,
                min_col or 1,
                min_row or 1,
                max_col or max(max(used_cols), 1),
                max_row or max(max(used_rows), 1),
            )
        )
    return ranges


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
    rule: str  # equal | within_tolerance | numeric_text | formula_equal | both_empty | static_value
    # | mismatch | missing | unexpected_value | not_computed | missing_sheet | style_mismatch


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

    verdict: bool | None  # None: nothing mechanical to check
    checks: list[CellCheck] = field(default_factory=list)
    unexpected: list[UnexpectedEdit] = field(default_factory=list)
    missing_sheets: list[str] = field(default_factory=list)
    extra_sheets_kept: list[str] = field(default_factory=list)  # sheets the reference removed
    missing_features: list[str] = field(default_factory=list)  # charts / conditional formats
    scope_fallback: bool = False

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
            return "no mechanical check: the reference changes no cell the checker can compare"
        parts = [f"{self.n_ok}/{self.n_required} required cells match"]
        if self.scope_fallback:
            parts.append("the answer position holds no reference change; diff_ref's edits used")
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
        destructive = [u for u in self.unexpected if u.destructive]
        if self.unexpected:
            parts.append(
                f"{len(self.unexpected)} unexpected edits ({len(destructive)} destructive)"
            )
            for u in (destructive or self.unexpected)[:max_items]:
                parts.append(f"{u.sheet}!{u.where}: {u.kind} {u.detail}")
        return "PASS: " + "; ".join(parts) if self.verdict else "FAIL: " + "; ".join(parts)


_NUMERIC_TEXT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?$")


def _number(cell: Cell) -> float | None:
    """A numeric reading: numbers, booleans, dates (serials) and numeric text."""
    if cell.type in ("I", "F", "B", "D"):
        return value_number(cell.value)
    if cell.type == "T" and isinstance(cell.value, str):
        text = cell.value.strip().replace(",", "")
        if _NUMERIC_TEXT.match(text):
            return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    return None


def compare_cells(
    expected: Cell | None,
    got: Cell | None,
    abs_tol: float = ABS_TOL,
    rel_tol: float = REL_TOL,
    require_formulas: bool = False,
) -> tuple[bool, str]:
    """Does ``got`` hold what the reference cell ``expected`` holds? Returns (ok, rule)."""
    exp_text = expected.text if expected is not None else None
    got_text = got.text if got is not None else None
    if expected is None or (exp_text in ("", None) and expected.formula is None):
        if got is None or (got_text in ("", None) and got.formula is None):
            return True, "both_empty"
        return False, "unexpected_value"
    if got is None:
        return False, "missing"
    if require_formulas and expected.formula and not got.formula:
        return False, "static_value"
    if exp_text is None or got_text is None:
        # a formula never computed: only its text can be compared
        # same address, so "$" marks change nothing: compare without them
        same = formula_signature(expected.formula) == formula_signature(got.formula)
        return (True, "formula_equal") if same and got.formula else (False, "not_computed")
    a, b = _number(expected), _number(got)
    if a is not None and b is not None:
        if a == b:
            rule = "equal" if expected.type == got.type else "numeric_text"
        elif math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol):
            rule = "within_tolerance"
        else:
            return _same_formula(expected, got)
        return True, ("static_value" if expected.formula and not got.formula else rule)
    if exp_text.strip() == got_text.strip():
        return True, ("static_value" if expected.formula and not got.formula else "equal")
    return _same_formula(expected, got)


def _same_formula(expected: Cell, got: Cell) -> tuple[bool, str]:
    """The last resort for different values: the very formula of the reference (its
    value differs only where a recalculation could not reproduce Excel's, e.g. a
    function LibreOffice lacks)."""
    if expected.formula and got.formula:
        if formula_signature(expected.formula) == formula_signature(got.formula):
            return True, "formula_equal"
    return False, "mismatch"


def _same_style(a: Cell | None, b: Cell | None) -> bool:
    fill_a, font_a = (a.fill, a.font_color) if a else (None, None)
    fill_b, font_b = (b.fill, b.font_color) if b else (None, None)
    return fill_a == fill_b and font_a == font_b


@dataclass(frozen=True)
class RequiredFeature:
    """A sheet-level object the reference added: a chart (by type) or a conditional
    format (by range; its rule may be written differently)."""

    sheet: str
    kind: str  # chart | conditional_format
    label: str  # chart type ("BarChart") or the conditional format's range ("E2:E8")

    def present_in(self, output: Workbook) -> bool:
        sheet = output.sheets.get(self.sheet)
        if sheet is None:
            return False
        if self.kind == "chart":
            return any(c.split("@")[0] == self.label for c in sheet.charts)
        return any(cf.split(" ")[0] == self.label for cf in sheet.conditional_formats)


def _input_cell(input_wb: Workbook, req: RequiredCell) -> Cell | None:
    sheet = input_wb.sheets.get(req.sheet)
    return sheet.get(req.row, req.col) if sheet else None


def _stale_formula(reference: Cell | None, before: Cell | None) -> str | None:
    """The input's formula signature where the reference rewrote it and kept its value."""
    if reference is None or before is None or not before.formula or not reference.formula:
        return None
    old = formula_signature(before.formula, before.row, before.col)
    new = formula_signature(reference.formula, reference.row, reference.col)
    return old if old != new and cell_key(reference) == cell_key(before) else None


def _same_content(a: Cell | None, b: Cell | None) -> bool:
    return cell_key(a) == cell_key(b) and (
        formula_signature(a.formula, a.row, a.col) if a else None
    ) == (formula_signature(b.formula, b.row, b.col) if b else None)


@dataclass
class WorkbookChecker:
    """A checker for one task: its input, its reference and the required cells."""

    input: Workbook
    reference: Workbook
    diff_ref: WorkbookDiff
    required: list[RequiredCell]
    scope: list[ScopeRange] | None = None
    removed_sheets: list[str] = field(default_factory=list)
    features: list[RequiredFeature] = field(default_factory=list)
    scope_fallback: bool = False  # the answer position was extended by diff_ref's edits
    abs_tol: float = ABS_TOL
    rel_tol: float = REL_TOL
    require_formulas: bool = False
    fail_on_destructive: bool = True

    def in_scope(self, sheet: str, row: int, col: int) -> bool:
        if self.scope is None:
            return False
        return any((sheet, row, col) in r for r in self.scope)

    def check(self, output: Workbook, diff_model: WorkbookDiff | None = None) -> CheckResult:
        """Grade ``output``; ``diff_model`` (input -> output) is computed when not given."""
        if diff_model is None:
            diff_model = diff_workbooks(self.input, output)
        result = CheckResult(verdict=None, scope_fallback=self.scope_fallback)
        sheets_needed = {r.sheet for r in self.required}
        result.missing_sheets = sorted(s for s in sheets_needed if s not in output.sheets)
        result.extra_sheets_kept = [s for s in self.removed_sheets if s in output.sheets]
        for req in self.required:
            got_sheet = output.sheets.get(req.sheet)
            expected_text = req.expected.text if req.expected else None
            if got_sheet is None:
                result.checks.append(
                    CellCheck(req.sheet, req.address, expected_text, None, False, "missing_sheet")
                )
                continue
            got = got_sheet.get(req.row, req.col)
            ok, rule = compare_cells(
                req.expected, got, self.abs_tol, self.rel_tol, self.require_formulas
            )
            if ok and req.style and not _same_style(req.expected, got):
                ok, rule = False, "style_mismatch"
            if ok and req.stale_formula is not None and got is not None:
                if formula_signature(got.formula, got.row, got.col) == req.stale_formula:
                    ok, rule = False, "unchanged_formula"
            got_text = got.text if got is not None else None
            if got is not None and got_text is None:
                got_text = got.formula
            result.checks.append(
                CellCheck(req.sheet, req.address, expected_text, got_text, ok, rule)
            )
        result.missing_features = [
            f"{f.kind} {f.label} on {f.sheet}" for f in self.features if not f.present_in(output)
        ]
        result.unexpected = self._unexpected_edits(output, diff_model)
        if not self.required and not self.removed_sheets and not self.features:
            return result
        destructive = any(u.destructive for u in result.unexpected)
        result.verdict = (
            all(c.ok for c in result.checks)
            and not result.missing_sheets
            and not result.extra_sheets_kept
            and not result.missing_features
            and not (self.fail_on_destructive and destructive)
        )
        return result

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
                out.append(
                    UnexpectedEdit(
                        name,
                        ax.span,
                        f"{ax.axis}_{ax.kind}",
                        f"{ax.count} x, {ax.n_cells} cells",
                        destructive,
                    )
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
                    _same_content(ref_cell, e.after)
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
) -> WorkbookChecker:
    """A checker from diff_ref, scoped to ``answer_position`` when the task gives one.

    ``require_formulas`` fails a constant where the reference has a formula (the
    "formula silently replaced by its value" slip); by default values decide, as in
    SpreadsheetBench. ``fail_on_destructive`` fails outputs whose unexpected edits
    change or remove input content; additions beside the data are only listed.
    """
    if diff_ref is None:
        diff_ref = diff_workbooks(input_wb, reference_wb)
    required: list[RequiredCell] = []
    scope: list[ScopeRange] | None = None
    removed: list[str] = []
    if answer_position:
        scope = resolve_scope(answer_position, reference_wb, input_wb)
        n = sum((r.max_row - r.min_row + 1) * (r.max_col - r.min_col + 1) for r in scope)
        if n > MAX_SCOPE_CELLS:
            raise ScopeError(
                f"{reference_wb.path}: answer position {answer_position!r} covers {n} cells"
            )
        for rng in scope:
            sheet = reference_wb.sheets[rng.sheet]
            in_sheet = input_wb.sheets.get(rng.sheet)
            for row in range(rng.min_row, rng.max_row + 1):
                for col in range(rng.min_col, rng.max_col + 1):
                    ref_cell = sheet.get(row, col)
                    in_cell = in_sheet.get(row, col) if in_sheet else None
                    style = not _same_style(ref_cell, in_cell)
                    stale = _stale_formula(ref_cell, in_cell)
                    required.append(RequiredCell(rng.sheet, row, col, ref_cell, style, stale))
    scope_fallback = bool(required) and all(
        _same_content(r.expected, _input_cell(input_wb, r)) and not r.style for r in required
    )
    scoped = {(r.sheet, r.row, r.col) for r in required}
    if scope_fallback or not answer_position:
        # no answer position, or one where the reference changes nothing (a mislabelled
        # position): the cells diff_ref changed are the required ones
        for sd in diff_ref.sheets:
            if sd.status == "removed":
                removed.append(sd.sheet)
                continue
            if sd.status == "same":
                continue
            ref_sheet = reference_wb.sheets[sd.sheet]
            if sd.status == "added":
                required += [
                    RequiredCell(sd.sheet, r, c, cell)
                    for (r, c), cell in sorted(ref_sheet.cells.items())
                    if (sd.sheet, r, c) not in scoped
                ]
                continue
            in_sheet = input_wb.sheets[sd.before_name or sd.sheet]
            # positional comparison: an aligned insertion displaces the cells below it,
            # and the output must show them displaced too
            for r, c in sorted(set(ref_sheet.cells) | set(in_sheet.cells)):
                ref_cell, in_cell = ref_sheet.get(r, c), in_sheet.get(r, c)
                style = not _same_style(ref_cell, in_cell)
                if (sd.sheet, r, c) in scoped:
                    continue
                if style or not _same_content(ref_cell, in_cell):
                    stale = _stale_formula(ref_cell, in_cell)
                    required.append(RequiredCell(sd.sheet, r, c, ref_cell, style, stale))
    features = [
        RequiredFeature(sd.sheet, "chart", label.split("@")[0])
        for sd in diff_ref.sheets
        for label in sd.charts_added
    ] + [
        RequiredFeature(sd.sheet, "conditional_format", rule.split(" ")[0])
        for sd in diff_ref.sheets
        for rule in sd.conditional_formats_added
    ]
    return WorkbookChecker(
        input=input_wb,
        reference=reference_wb,
        diff_ref=diff_ref,
        required=required,
        scope=scope,
        removed_sheets=removed,
        features=features,
        scope_fallback=scope_fallback,
        abs_tol=abs_tol,
        rel_tol=rel_tol,
        require_formulas=require_formulas,
        fail_on_destructive=fail_on_destructive,
    )
