"""Version steps: the ``version_diffs`` stage and what each step of a chain did.

Each pair of consecutive versions in a chain is diffed (:mod:`pipeline.detect.diffs`,
aligned, so an inserted row is one edit) and the step is described three ways:

* the Finch task types it exercises (calculation, structuring/formatting, data
  entry/import, validation/review, cross-sheet/file retrieval, summary/visualization,
  financial modeling), read off the kinds of edits and the formulas they introduce;
* a business type (trading, risk, budgeting/planning, accounting/reporting, cost
  allocation) from the words of the sheet names and labels;
* a one-paragraph summary built from the diff ("On sheet 'Budget': added column F
  'Q4 Total' with SUM formulas on rows 3-12; changed B7 from 3.1 to 3.25.").

A step that only reformats cells or only moves a date stamp gets a
``trivial_reason``: a task built from it would test nothing.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import polars as pl
from openpyxl.utils import get_column_letter

from pipeline.detect.diffs import DIFFS_SCHEMA, SheetDiff, WorkbookDiff, diff_workbooks
from pipeline.ingest.workbooks import Cell, Sheet, Workbook, WorkbookError

TASK_TYPES = (
    "calculation",
    "structuring_formatting",
    "data_entry_import",
    "validation_review",
    "cross_sheet_retrieval",
    "summary_visualization",
    "financial_modeling",
)

VERSION_DIFFS_SCHEMA = {"chain_id": pl.String, "step": pl.Int32, **DIFFS_SCHEMA}

VERSION_STEPS_SCHEMA = {
    "chain_id": pl.String,
    "step": pl.Int32,  # position of the after version in the chain (1 = versions 0 -> 1)
    "before_id": pl.String,
    "after_id": pl.String,
    "n_edits": pl.Int32,
    "task_types": pl.List(pl.String),
    "business_type": pl.String,
    "summary": pl.String,
    "trivial_reason": pl.String,  # null for a step worth a task
}

# words of sheet names and labels -> business type (first match order breaks ties)
BUSINESS_WORDS = {
    "trading": r"trad\w*|deal\w*|position\w*|desk|mtm|mark[- ]to[- ]market|curve\w*|swap\w*|"
    r"hedg\w*|counterpart\w*|book|bid|offer|volume\w*|price\w*|basis|henry hub|mmbtu|mwh",
    "risk": r"risk|var|value at risk|exposure\w*|limit\w*|collateral|stress|credit|sensitivit\w*",
    "budgeting/planning": r"budget\w*|forecast\w*|plan|planning|headcount|capex|opex|"
    r"target\w*|q[1-4]|annuali[sz]ed|outlook",
    "accounting/reporting": r"accru\w*|journal|ledger|gl|reconcil\w*|balance sheet|invoice\w*|"
    r"payable\w*|receivable\w*|revenue\w*|expense\w*|p&l|pnl|income|reserve\w*|close|tie[- ]out",
    "cost allocation": r"allocat\w*|cost cent\w*|overhead|chargeback\w*|driver\w*|"
    r"cost per head|department\w*|shared service\w*",
}
_BUSINESS = {k: re.compile(rf"\b(?:{v})\b", re.I) for k, v in BUSINESS_WORDS.items()}

_FUNC = re.compile(r"([A-Z][A-Z0-9.]*)\(")
_FINANCE_FUNCS = {"NPV", "XNPV", "IRR", "XIRR", "MIRR", "PMT", "IPMT", "PPMT", "FV", "PV", "RATE"}
_FINANCE_FUNCS |= {"NPER", "SLN", "DB", "DDB", "EFFECT", "NOMINAL"}
_LOOKUP_FUNCS = {"VLOOKUP", "HLOOKUP", "XLOOKUP", "LOOKUP", "INDEX", "MATCH", "INDIRECT", "SUMIF"}
_LOOKUP_FUNCS |= {"SUMIFS", "COUNTIF", "COUNTIFS"}
_MODEL_SHEET = re.compile(
    r"model|dcf|valuation|projection|scenario|assumption|sensitivity|forecast", re.I
)
_SUMMARY_LABEL = re.compile(r"\b(total|subtotal|summary|average|dashboard|overview)\b", re.I)
_CHECK_LABEL = re.compile(r"\b(check|tie[- ]?out|variance|difference|diff|reconcil\w*)\b", re.I)
_DATE_TEXT = re.compile(
    r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\b",
    re.I,
)
_VOLATILE = re.compile(r"\b(TODAY|NOW)\(", re.I)
COSMETIC = {"format_changed", "style_changed", "merge_added", "merge_removed"}


@dataclass(frozen=True)
class StepClass:
    task_types: list[str]
    business_type: str
    summary: str
    trivial_reason: str | None


@dataclass(frozen=True)
class _Edit:
    """One edit flattened for classification: its kind and the after (or before) cell."""

    sheet: str
    kind: str
    cell: Cell | None  # the after cell (the before cell for removals)
    before: Cell | None


def _band_cells(sheet: Sheet, axis: str, start: int, count: int) -> list[Cell]:
    idx = 0 if axis == "row" else 1
    return [c for k, c in sheet.cells.items() if start <= k[idx] < start + count]


def _edits(diff: WorkbookDiff) -> list[_Edit]:
    out: list[_Edit] = []
    for sd in diff.sheets:
        if sd.status == "added":
            for c in diff.after.sheets[sd.sheet].cells.values():
                out.append(_Edit(sd.sheet, "sheet_added", c, None))
            continue
        if sd.status == "removed":
            out.append(_Edit(sd.sheet, "sheet_removed", None, None))
            continue
        after = diff.after.sheets.get(sd.after_name or sd.sheet)
        for ax in sd.axis_edits:
            kind = f"{ax.axis}_{ax.kind}"
            if ax.kind == "inserted" and after is not None:
                band = _band_cells(after, ax.axis, ax.start, ax.count)
                out += [_Edit(sd.sheet, kind, c, None) for c in band]
                if not band:
                    out.append(_Edit(sd.sheet, kind, None, None))
            else:
                out.append(_Edit(sd.sheet, kind, None, None))
        for e in sd.cell_edits:
            out.append(_Edit(sd.sheet, e.kind, e.after or e.before, e.before))
        out += [_Edit(sd.sheet, "chart_added", None, None) for _ in sd.charts_added]
        out += [_Edit(sd.sheet, "merge_added", None, None) for _ in sd.merges_added]
        out += [_Edit(sd.sheet, "merge_removed", None, None) for _ in sd.merges_removed]
        out += [
            _Edit(sd.sheet, "conditional_format_added", None, None)
            for _ in sd.conditional_formats_added
        ]
    return out


def _functions(formula: str | None) -> set[str]:
    return set(_FUNC.findall(formula.upper())) if formula else set()


def _new_formula(e: _Edit) -> str | None:
    """The formula an edit introduced (not a recalculation of an untouched formula)."""
    if e.cell is None or e.cell.formula is None:
        return None
    if e.kind in ("value_to_formula", "formula_changed", "cell_added", "sheet_added"):
        return e.cell.formula
    if e.kind in ("row_inserted", "col_inserted"):
        return e.cell.formula
    return None


def task_types(before: Workbook, after: Workbook, diff: WorkbookDiff) -> list[str]:
    """The Finch task types a step exercises, in :data:`TASK_TYPES` order."""
    edits = _edits(diff)
    found: set[str] = set()
    formulas = [f for e in edits if (f := _new_formula(e))]
    funcs = set().union(*(_functions(f) for f in formulas)) if formulas else set()
    constants = [  # typed data, not the labels of a new sheet or column
        e
        for e in edits
        if e.cell is not None
        and e.cell.formula is None
        and e.kind in ("value_changed", "cell_added", "row_inserted", "col_inserted", "sheet_added")
        and (e.cell.type != "T" or e.kind in ("value_changed", "row_inserted", "col_inserted"))
    ]
    if formulas:
        found.add("calculation")
    if any(e.kind in ("formula_to_value",) for e in edits):
        found.add("calculation")
    if any("!" in f or "[" in f for f in formulas) or funcs & _LOOKUP_FUNCS:
        found.add("cross_sheet_retrieval")
    if funcs & _FINANCE_FUNCS or (
        formulas and any(_MODEL_SHEET.search(e.sheet) for e in edits if _new_formula(e))
    ):
        found.add("financial_modeling")
    if constants:
        found.add("data_entry_import")
    kinds = Counter(e.kind for e in edits)
    if kinds.keys() & (COSMETIC | {"sheet_renamed", "row_deleted", "col_deleted"}):
        found.add("structuring_formatting")
    if any(sd.status in ("renamed", "removed") for sd in diff.sheets):
        found.add("structuring_formatting")
    if any(e.kind in ("row_inserted", "col_inserted") and e.cell is None for e in edits):
        found.add("structuring_formatting")  # an empty band: layout only
    if kinds["col_inserted"] and not formulas:
        found.add("structuring_formatting")
    if kinds["conditional_format_added"] or _more_validations(before, after):
        found.add("validation_review")
    texts = [
        str(e.cell.value)
        for e in edits
        if e.cell is not None and e.cell.type == "T" and e.kind != "value_changed"
    ]
    if any(_CHECK_LABEL.search(t) for t in texts) or any(
        _CHECK_LABEL.search(sd.sheet) for sd in diff.sheets if sd.status == "added"
    ):
        found.add("validation_review")
    if kinds["chart_added"] or _more_pivots(before, after):
        found.add("summary_visualization")
    summary_formula = funcs & {"SUM", "SUBTOTAL", "AVERAGE", "AGGREGATE"}
    if (
        summary_formula
        and "validation_review" not in found
        and (
            any(_SUMMARY_LABEL.search(t) for t in texts)
            or any(_SUMMARY_LABEL.search(sd.sheet) for sd in diff.sheets if sd.status == "added")
        )
    ):
        found.add("summary_visualization")
    if not found and edits:
        found.add("structuring_formatting" if set(kinds) <= COSMETIC else "calculation")
    return [t for t in TASK_TYPES if t in found]


def _more_validations(before: Workbook, after: Workbook) -> bool:
    b = sum(s.n_data_validations for s in before.sheets.values())
    return sum(s.n_data_validations for s in after.sheets.values()) > b


def _more_pivots(before: Workbook, after: Workbook) -> bool:
    b = sum(len(s.pivots) for s in before.sheets.values())
    return sum(len(s.pivots) for s in after.sheets.values()) > b


def business_type(wb: Workbook, file_name: str | None = None, max_labels: int = 2000) -> str:
    """The business a workbook serves, from its sheet names, text labels and file name."""
    words: list[str] = [*wb.sheet_names, file_name or wb.path.name]
    for sheet in wb.sheets.values():
        for cell in sheet.cells.values():
            if cell.type == "T" and isinstance(cell.value, str) and len(cell.value) < 80:
                words.append(cell.value)
                if len(words) > max_labels:
                    break
    scores: Counter[str] = Counter()
    for text in words:
        for kind, pattern in _BUSINESS.items():
            scores[kind] += len(pattern.findall(text))
    if not scores or max(scores.values()) == 0:
        return "other"
    best = max(scores.values())
    return next(k for k in _BUSINESS if scores[k] == best)


def _is_date_stamp(before: Cell | None, after: Cell | None) -> bool:
    cells = [c for c in (before, after) if c is not None]
    if not cells:
        return False
    if all(c.formula and _VOLATILE.search(c.formula) for c in cells):
        return True
    if all(c.type == "D" for c in cells):
        return True
    texts = [c.text or "" for c in cells]
    if all(c.type == "T" and _DATE_TEXT.search(t) for c, t in zip(cells, texts, strict=True)):
        masked = {_DATE_TEXT.sub("#", t) for t in texts}
        return len(masked) == 1
    return False


def trivial_reason(diff: WorkbookDiff) -> str | None:
    """Why a step is not worth a task (no change, formatting only, date stamp only)."""
    if diff.is_empty:
        return "no changes"
    kinds: list[str] = []
    stamps = 0
    for sd in diff.sheets:
        if sd.status == "same":
            continue
        if sd.status != "modified" or sd.axis_edits or sd.charts_added or sd.charts_removed:
            return None
        if sd.conditional_formats_added or sd.conditional_formats_removed:
            return None
        kinds += ["merge_added"] * len(sd.merges_added) + ["merge_removed"] * len(sd.merges_removed)
        for e in sd.cell_edits:
            if e.kind in COSMETIC:
                kinds.append(e.kind)
            elif _is_date_stamp(e.before, e.after):
                kinds.append("date_stamp")
                stamps += 1
            elif e.kind == "recalculated" and e.after is not None and e.after.type == "D":
                kinds.append("date_stamp")
            else:
                return None
    if stamps and stamps <= 3:
        return (
            "date stamp only" if set(kinds) == {"date_stamp"} else "date stamp and formatting only"
        )
    if set(kinds) <= COSMETIC:
        return "formatting only"
    return None


# --- summaries --------------------------------------------------------------------


def _label_of_row(sheet: Sheet | None, row: int) -> str | None:
    if sheet is None:
        return None
    for col in range(1, min(sheet.max_col, 6) + 1):
        c = sheet.get(row, col)
        if c is not None and c.type == "T" and c.text:
            return c.text
    return None


def _label_of_col(sheet: Sheet | None, col: int) -> str | None:
    if sheet is None:
        return None
    for row in range(1, min(sheet.max_row, 12) + 1):
        c = sheet.get(row, col)
        if c is not None and c.type == "T" and c.text:
            return c.text
    return None


def _span(nums: Iterable[int], noun: str) -> str:
    ns = sorted(set(nums))
    if not ns:
        return ""
    if len(ns) == 1:
        return f"{noun} {ns[0]}"
    if ns[-1] - ns[0] + 1 == len(ns):
        return f"{noun}s {ns[0]}\u2013{ns[-1]}"
    return f"{len(ns)} {noun}s"


def _where(cells: list[Cell]) -> str:
    """Addresses compactly: "F3\u2013F12", "B13\u2013F13" or the first few."""
    cells = sorted(cells, key=lambda c: (c.row, c.col))
    if len(cells) == 1:
        return cells[0].address
    rows, cols = {c.row for c in cells}, {c.col for c in cells}
    if len(cols) == 1 and max(rows) - min(rows) + 1 == len(rows):
        return f"{cells[0].address}\u2013{cells[-1].address}"
    if len(rows) == 1 and max(cols) - min(cols) + 1 == len(cols):
        return f"{cells[0].address}\u2013{cells[-1].address}"
    shown = ", ".join(c.address for c in cells[:4])
    return shown + (f" and {len(cells) - 4} more" if len(cells) > 4 else "")


def _funcs_phrase(formulas: list[str]) -> str:
    funcs = sorted(set().union(*(_functions(f) for f in formulas))) if formulas else []
    return f"{'/'.join(funcs[:3])} formulas" if funcs else "formulas"


def _show(cell: Cell | None) -> str:
    if cell is None:
        return "(empty)"
    if cell.formula and cell.text is None:
        return cell.formula
    text = cell.text if cell.text is not None else ""
    return repr(text) if cell.type == "T" else text


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _added_phrases(cells: list[Cell], before: Sheet | None, sd: SheetDiff) -> list[str]:
    """Added cells: a column (row) filled where there was none reads as a new column
    (row) with its header; the rest as formulas and values with their addresses."""
    out: list[str] = []
    rest = list(cells)
    used_before_cols = {c for _, c in before.cells} if before is not None else set()
    col_back = {b: a for a, b in sd.col_map.items()}
    by_col: dict[int, list[Cell]] = defaultdict(list)
    for c in cells:
        by_col[c.col].append(c)
    for col, group in sorted(by_col.items()):
        if len(group) < 3 or col_back.get(col) in used_before_cols:
            continue
        group.sort(key=lambda c: c.row)
        head = group[0] if group[0].type == "T" else None
        body = group[1:] if head else group
        fcells = [c for c in body if c.formula]
        phrase = f"added column {get_column_letter(col)}" + (f" {head.text!r}" if head else "")
        if fcells:
            rows = _span((c.row for c in fcells), "row")
            phrase += f" with {_funcs_phrase([c.formula for c in fcells])} on {rows}"
        else:
            phrase += f" with {_plural(len(body), 'value')}"
        out.append(phrase)
        rest = [c for c in rest if c.col != col]
    fcells = [c for c in rest if c.formula]
    vcells = [c for c in rest if not c.formula]
    if fcells:
        out.append(f"added {_funcs_phrase([c.formula for c in fcells])} in {_where(fcells)}")
    if vcells:
        out.append(f"filled {_plural(len(vcells), 'cell')} ({_where(vcells)})")
    return out


def _sheet_phrases(diff: WorkbookDiff, sd: SheetDiff, max_items: int = 3) -> list[str]:
    after = diff.after.sheets.get(sd.after_name or sd.sheet)
    before = diff.before.sheets.get(sd.before_name or sd.sheet)
    out: list[str] = []
    if sd.status == "renamed":
        out.append(f"renamed sheet {sd.before_name!r} to {sd.after_name!r}")
    for ax in sd.axis_edits:
        sheet = after if ax.kind == "inserted" else before
        verb = "added" if ax.kind == "inserted" else "deleted"
        if ax.axis == "col":
            cols = range(ax.start, ax.start + ax.count)
            letters = [get_column_letter(c) for c in cols]
            label = _label_of_col(sheet, ax.start)
            noun = f"column {letters[0]}" if ax.count == 1 else f"columns {ax.span}"
        else:
            label = _label_of_row(sheet, ax.start)
            noun = _span(range(ax.start, ax.start + ax.count), "row")
        phrase = f"{verb} {noun}" + (f" {label!r}" if label else "")
        if ax.kind == "inserted" and sheet is not None:
            band = _band_cells(sheet, ax.axis, ax.start, ax.count)
            fcells = [c for c in band if c.formula]
            if fcells and ax.axis == "col":
                phrase += f" with {_funcs_phrase([c.formula for c in fcells])} on " + _span(
                    (c.row for c in fcells), "row"
                )
            elif fcells:
                phrase += f" with {_funcs_phrase([c.formula for c in fcells])}"
            elif band:
                phrase += f" ({len(band)} values)"
        out.append(phrase)
    by_kind: dict[str, list] = defaultdict(list)
    for e in sd.cell_edits:
        by_kind[e.kind].append(e)
    changed = by_kind.get("value_changed", [])
    for e in changed[:max_items]:
        out.append(f"changed {e.after_address} from {_show(e.before)} to {_show(e.after)}")
    if len(changed) > max_items:
        out.append(f"changed {len(changed) - max_items} more values")
    # a formula whose text stayed while its cell moved (an insertion) is listed apart
    edited = [e for e in by_kind.get("formula_changed", []) if e.before.formula != e.after.formula]
    kept = len(by_kind.get("formula_changed", [])) - len(edited)
    for e in edited[:max_items]:
        out.append(
            f"changed the formula in {e.after_address} from {e.before.formula} to {e.after.formula}"
        )
    if len(edited) > max_items:
        out.append(f"changed {len(edited) - max_items} more formulas")
    if kept:
        out.append(f"{_plural(kept, 'moved formula')} kept {'its' if kept == 1 else 'their'} text")
    if v2f := by_kind.get("value_to_formula"):
        cells = [e.after for e in v2f]
        out.append(
            f"replaced typed values with {_funcs_phrase([c.formula for c in cells])} "
            f"in {_where(cells)}"
        )
    if f2v := by_kind.get("formula_to_value"):
        out.append(f"replaced formulas with typed values in {_where([e.after for e in f2v])}")
    if added := by_kind.get("cell_added"):
        out += _added_phrases([e.after for e in added], before, sd)
    if removed := by_kind.get("cell_removed"):
        out.append(
            f"cleared {_plural(len(removed), 'cell')} ({_where([e.before for e in removed])})"
        )
    if recalc := by_kind.get("recalculated"):
        out.append(f"{_plural(len(recalc), 'formula result')} changed")
    if fmt := by_kind.get("format_changed"):
        where = _where([e.after for e in fmt])
        out.append(f"changed the number format of {_plural(len(fmt), 'cell')} ({where})")
    if style := by_kind.get("style_changed"):
        out.append(f"recoloured {_plural(len(style), 'cell')} ({_where([e.after for e in style])})")
    out += [f"added a {c.split('@')[0]} at {c.split('@')[-1]}" for c in sd.charts_added]
    out += [f"removed a {c.split('@')[0]}" for c in sd.charts_removed]
    out += [f"merged {r}" for r in sd.merges_added]
    out += [f"unmerged {r}" for r in sd.merges_removed]
    out += [f"added conditional formatting on {r.split()[0]}" for r in sd.conditional_formats_added]
    out += [
        f"removed conditional formatting on {r.split()[0]}" for r in sd.conditional_formats_removed
    ]
    return out


def summarize(diff: WorkbookDiff) -> str:
    """One paragraph naming what changed, sheet by sheet."""
    sentences: list[str] = []
    for sd in diff.sheets:
        if sd.status == "added":
            sheet = diff.after.sheets[sd.sheet]
            n_f = sum(c.formula is not None for c in sheet.cells.values())
            sentences.append(
                f"Added sheet {sd.sheet!r} ({len(sheet.cells)} cells, {n_f} formulas)."
            )
        elif sd.status == "removed":
            sentences.append(f"Removed sheet {sd.sheet!r}.")
        elif sd.changed:
            phrases = _sheet_phrases(diff, sd)
            if phrases:
                sentences.append(f"On sheet {sd.sheet!r}: " + "; ".join(phrases) + ".")
    return " ".join(sentences) if sentences else "No changes."


def classify_step(before: Workbook, after: Workbook, diff: WorkbookDiff) -> StepClass:
    """Task types, business type, summary and triviality of one version step."""
    return StepClass(
        task_types=task_types(before, after, diff),
        business_type=business_type(after),
        summary=summarize(diff),
        trivial_reason=trivial_reason(diff),
    )


def _load(
    cache: dict[str, Workbook | str], wid: str, read: Callable[[str], Workbook]
) -> Workbook | str:
    """The workbook, or the reason it cannot be read."""
    if wid not in cache:
        try:
            cache[wid] = read(wid)
        except (WorkbookError, OSError, KeyError) as exc:
            cache[wid] = f"unreadable: {exc}"
    return cache[wid]


def build_version_diffs(
    chains: pl.DataFrame, read_workbook_fn: Callable[[str], Workbook]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Diff consecutive versions of every chain (VERSION_CHAINS_SCHEMA).

    ``read_workbook_fn(workbook_id)`` returns the :class:`Workbook` (for an .xls, read
    from its converted .xlsx: the rows keep the chain's workbook ids). Returns the edits
    (VERSION_DIFFS_SCHEMA: DIFFS_SCHEMA plus chain_id and step) and one row per step
    (VERSION_STEPS_SCHEMA). A step whose workbook cannot be read is kept with
    ``trivial_reason`` "unreadable: ..." so it is never drafted.
    """
    diffs: list[pl.DataFrame] = []
    steps: list[dict] = []
    for (chain_id,), group in chains.sort("chain_id", "position").group_by(
        "chain_id", maintain_order=True
    ):
        ids = group["workbook_id"].to_list()
        cache: dict[str, Workbook | str] = {}
        for step in range(1, len(ids)):
            before_id, after_id = ids[step - 1], ids[step]
            before = _load(cache, before_id, read_workbook_fn)
            after = _load(cache, after_id, read_workbook_fn)
            if step >= 2:
                cache.pop(ids[step - 2], None)  # only the pair in hand stays in memory
            row = {"chain_id": chain_id, "step": step, "before_id": before_id, "after_id": after_id}
            if isinstance(before, str) or isinstance(after, str):
                reason = before if isinstance(before, str) else after
                steps.append(
                    {**row, "n_edits": 0, "task_types": [], "business_type": None, "summary": None}
                    | {"trivial_reason": reason}
                )
                continue
            diff = diff_workbooks(before, after)
            cls = classify_step(before, after, diff)
            frame = diff.frame().with_columns(  # the chain's ids: an .xls is read converted
                chain_id=pl.lit(chain_id, pl.String),
                step=pl.lit(step, pl.Int32),
                before_id=pl.lit(before_id, pl.String),
                after_id=pl.lit(after_id, pl.String),
            )
            diffs.append(frame.select(list(VERSION_DIFFS_SCHEMA)))
            steps.append(
                {
                    **row,
                    "n_edits": diff.n_edits,
                    "task_types": cls.task_types,
                    "business_type": cls.business_type,
                    "summary": cls.summary,
                    "trivial_reason": cls.trivial_reason,
                }
            )
    diff_frame = pl.concat(diffs) if diffs else pl.DataFrame(schema=VERSION_DIFFS_SCHEMA)
    return diff_frame, pl.DataFrame(steps, schema=VERSION_STEPS_SCHEMA)
