"""The checker of a workflow task: an oracle program written from ``diff_ref``.

``pipeline.judge.checker.build_checker`` decides what an output must hold (each
required cell with its expected value, type, formula, number format and style; the
sheets the reference removed; the charts, merges and conditional formats it added or
removed). This module writes those requirements as literals of a small program that
runs in :mod:`oracles.sandbox` and imports only ``oracles.api``: it reads the workbook
under test (``workbook_under_test()``), compares every required cell
(``check_cell``, the judge's comparison rules), checks that every other cell of the
input (``workbook_blob(INPUT)``, its sha256 verified) is kept, and prints one JSON
verdict ``{"passed", "failures"}``. Requirements are literals, so a tampered reference
cannot rewrite what its checker expects; the program is stored per task and written to
``oracles/<task_id>.py`` in a release.
"""

from __future__ import annotations

from collections.abc import Mapping

from pipeline.ingest.workbooks import Cell, Workbook
from pipeline.judge.checker import RequiredCell, WorkbookChecker

__all__ = ["CHECKER_ID", "cell_tolerance", "checker_source"]

CHECKER_ID = "workflow-checker-v1"


def cell_tolerance(expected: Cell | None, before: Cell | None, abs_tol: float) -> float:
    """The absolute tolerance of one required number: the task's (half a cent), but no
    more than half a unit of the expected value's last decimal (a rate 0.0322 is not
    0.030) and less than its distance from the input's value (so the unmodified input
    never passes by tolerance)."""
    tol = abs_tol
    if expected is None or expected.type not in ("I", "F") or expected.text is None:
        return tol
    text = expected.text
    if "." in text and "e" not in text.lower():
        tol = min(tol, 0.5 * 10 ** -len(text.split(".", 1)[1]))
    try:
        gap = abs(float(expected.value) - float(before.value)) if before is not None else None
    except (TypeError, ValueError):
        gap = None
    if gap and before is not None and before.type in ("I", "F") and gap <= tol:
        tol = gap / 2
    return tol


def _spec(
    req: RequiredCell, input_wb: Workbook, renamed_back: Mapping[str, str], abs_tol: float
) -> list:
    cell = req.expected
    extras: dict = {}
    before_sheet = input_wb.sheets.get(renamed_back.get(req.sheet, req.sheet))
    before = before_sheet.get(req.row, req.col) if before_sheet else None
    tol = cell_tolerance(cell, before, abs_tol)
    if tol < abs_tol:
        extras["abs_tol"] = float(f"{tol:.3g}")
    if req.strict_text:
        extras["strict_text"] = True
    if req.strict_type:
        extras["strict_type"] = True
    if req.number_format is not None:
        extras["number_format"] = req.number_format
    if req.style:
        extras.update(
            style=True,
            fill=cell.fill if cell else None,
            font_color=cell.font_color if cell else None,
        )
    if req.formula_only:
        extras["formula_only"] = True
    if req.require_formula:
        extras["formula"] = True
    if req.no_formula:
        extras["no_formula"] = True
    if req.stale_formula is not None:
        if before is not None and before.formula:
            extras["stale_formula"] = before.formula
    if cell is None or (cell.text is None and cell.formula is None):
        return (
            [req.sheet, req.address, None, None, None, extras]
            if extras
            else [req.sheet, req.address, None, None, None]
        )
    spec = [req.sheet, req.address, cell.type, cell.text, cell.formula]
    return spec + [extras] if extras else spec


_CHECKER_BODY = """
output = workbook_under_test()
failures = []
for spec in REQUIRED:
    failure = check_cell(output, spec, ABS_TOL, REL_TOL)
    if failure:
        failures.append(failure)
for name in REMOVED_SHEETS:
    if name in output.sheet_names():
        failures.append({"sheet": name, "rule": "sheet_not_removed"})
for sheet, kind, label, present in FEATURES:
    found = sheet_features(output, sheet)
    if (label in found[kind]) != present:
        failures.append({"sheet": sheet, "rule": "feature", "expected": [kind, label, present]})
changed = [(spec[0], spec[1]) for spec in REQUIRED] + [tuple(c) for c in IGNORED]
failures += kept_cell_failures(output, workbook_blob(INPUT), changed, RENAMED, REMOVED_SHEETS)
emit_verdict(failures, len(REQUIRED) + len(REMOVED_SHEETS) + len(FEATURES))
"""

_FEATURE_KEY = {"chart": "charts", "merge": "merges", "conditional_format": "conditional_formats"}


def checker_source(
    task_id: str,
    checker: WorkbookChecker,
    input_sha256: str,
    reference_sha256: str,
    input_xlsx_sha256: str | None = None,
    ignored: list[tuple[str, str]] | None = None,
) -> str:
    """The oracle program of a workflow task, from ``build_checker``'s requirements.
    ``ignored`` (sheet, address) are cells neither required nor kept: the reference
    changed them in a way no instruction can state (a new external link)."""
    renamed = {
        sd.before_name: sd.sheet
        for sd in checker.diff_ref.sheets
        if sd.status == "renamed" and sd.before_name
    }
    back = {v: k for k, v in renamed.items()}
    required = [_spec(r, checker.input, back, checker.abs_tol) for r in checker.required]
    features = [[f.sheet, _FEATURE_KEY[f.kind], f.label, f.present] for f in checker.features]
    lines = [
        f'"""Checker of workflow task {task_id} ({CHECKER_ID}).',
        "",
        f"Input workbook {input_sha256}; reference workbook {reference_sha256}.",
        "REQUIRED holds what the reference has where it differs from the input",
        "([sheet, address, type, value, formula, extras]; type, value and formula None:",
        "the cell must be empty); every other input cell must be kept. Prints one JSON",
        'verdict {"passed", "failures"}.',
        '"""',
        "",
        "from oracles.api import (",
        "    check_cell,",
        "    emit_verdict,",
        "    kept_cell_failures,",
        "    sheet_features,",
        "    workbook_blob,",
        "    workbook_under_test,",
        ")",
        "",
        f"INPUT = {(input_xlsx_sha256 or input_sha256)!r}",
        f"REFERENCE = {reference_sha256!r}",
        f"ABS_TOL = {checker.abs_tol!r}",
        f"REL_TOL = {checker.rel_tol!r}",
        "REQUIRED = [",
        *[f"    {spec!r}," for spec in required],
        "]",
        f"REMOVED_SHEETS = {sorted(checker.removed_sheets)!r}",
        f"RENAMED = {renamed!r}",
        f"IGNORED = {sorted(ignored or [])!r}",
        "FEATURES = [",
        *[f"    {f!r}," for f in features],
        "]",
    ]
    return "\n".join(lines) + "\n" + _CHECKER_BODY
