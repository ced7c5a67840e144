"""What a workbook judge sees: the tuple encoding of cells, the compact snapshot of
each changed sheet, and screenshots of sheets.

Encoding (after Finch / SpreadsheetLLM): each sheet starts with
``## Sheet: <name> (<used range>)`` and lists its cells as
``(Address, Value, Type, Formula)`` tuples, one spreadsheet row per line; text values
are JSON-quoted so commas and parentheses inside them stay unambiguous.

Snapshot: for a changed sheet only the first and last ten rows and the first five
columns (headers and layout) are kept, plus every row and column holding an edit,
which keeps diff_ref and diff_model in context at a fraction of the tokens.
"""

from __future__ import annotations

import glob
import json
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import openpyxl
from openpyxl.utils import get_column_letter

from pipeline.detect.diffs import WorkbookDiff
from pipeline.ingest.workbooks import (
    SOFFICE_TIMEOUT_S,
    Cell,
    Sheet,
    WorkbookError,
    convert_with_soffice,
)

HEAD_ROWS = 10
TAIL_ROWS = 10
FIRST_COLS = 5
PDFTOPPM_TIMEOUT_S = 60.0


def encode_cell(cell: Cell) -> str:
    """``(Address, Value, Type, Formula)`` for one cell."""
    if cell.text is None:
        value = ""
    elif cell.type == "T":
        value = json.dumps(cell.text, ensure_ascii=False)
    else:
        value = cell.text
    return f"({cell.address}, {value}, {cell.type or ''}, {cell.formula or ''})"


def sheet_header(sheet: Sheet) -> str:
    """``## Sheet: name (A1:Z100)``; an empty sheet shows ``(empty)``."""
    return f"## Sheet: {sheet.name} ({sheet.used_range or 'empty'})"


def encode_sheet(sheet: Sheet, rows: set[int] | None = None, cols: set[int] | None = None) -> str:
    """Encode a sheet (or only the given rows and columns), marking omitted row runs."""
    lines = [sheet_header(sheet)]
    by_row: dict[int, list[Cell]] = {}
    for (r, c), cell in sorted(sheet.cells.items()):
        if (rows is None or r in rows) and (cols is None or c in cols):
            by_row.setdefault(r, []).append(cell)
    if cols is not None and sheet.cells:
        kept = sorted(c for c in cols if sheet.min_col <= c <= sheet.max_col)
        shown = ", ".join(get_column_letter(c) for c in kept)
        if len(kept) < sheet.max_col - sheet.min_col + 1:
            lines.append(f"(columns shown: {shown})")
    previous = sheet.min_row - 1 if sheet.cells else 0
    for r in sorted(by_row):
        if rows is not None and r > previous + 1:
            lines.append(f"... rows {previous + 1}-{r - 1} omitted ...")
        lines.append(" ".join(encode_cell(c) for c in by_row[r]))
        previous = r
    if rows is not None and sheet.cells and previous < sheet.max_row:
        lines.append(f"... rows {previous + 1}-{sheet.max_row} omitted ...")
    return "\n".join(lines)


def snapshot_axes(
    sheet: Sheet,
    edit_rows: set[int],
    edit_cols: set[int],
    head: int = HEAD_ROWS,
    tail: int = TAIL_ROWS,
    first_cols: int = FIRST_COLS,
) -> tuple[set[int], set[int]]:
    """The rows and columns a snapshot keeps."""
    if not sheet.cells:
        return set(), set()
    lo, hi = sheet.min_row, sheet.max_row
    rows = set(range(lo, min(lo + head, hi + 1))) | set(range(max(hi - tail + 1, lo), hi + 1))
    cols = set(range(sheet.min_col, min(sheet.min_col + first_cols, sheet.max_col + 1)))
    return rows | edit_rows, cols | edit_cols


def snapshot_sheet(
    sheet: Sheet,
    edit_rows: set[int] = frozenset(),  # type: ignore[assignment]
    edit_cols: set[int] = frozenset(),  # type: ignore[assignment]
    head: int = HEAD_ROWS,
    tail: int = TAIL_ROWS,
    first_cols: int = FIRST_COLS,
) -> str:
    """The compact snapshot of one sheet, encoded."""
    rows, cols = snapshot_axes(sheet, set(edit_rows), set(edit_cols), head, tail, first_cols)
    return encode_sheet(sheet, rows, cols)


@dataclass
class EditPositions:
    """Rows and columns holding edits, per sheet name, on one side of a diff."""

    rows: dict[str, set[int]]
    cols: dict[str, set[int]]

    def merge(self, other: EditPositions) -> EditPositions:
        names = set(self.rows) | set(other.rows)
        return EditPositions(
            {n: self.rows.get(n, set()) | other.rows.get(n, set()) for n in names},
            {n: self.cols.get(n, set()) | other.cols.get(n, set()) for n in names},
        )


def edit_positions(diff: WorkbookDiff, side: str) -> EditPositions:
    """Where the edits of ``diff`` sit in its ``before`` or ``after`` workbook."""
    rows: dict[str, set[int]] = {}
    cols: dict[str, set[int]] = {}
    for sd in diff.sheets:
        name = sd.before_name if side == "before" else sd.after_name
        if name is None:
            continue
        rs, cs = rows.setdefault(name, set()), cols.setdefault(name, set())
        for e in sd.cell_edits:
            r, c = (e.before_row, e.before_col) if side == "before" else (e.after_row, e.after_col)
            if r is not None and c is not None:
                rs.add(r)
                cs.add(c)
        for ax in sd.axis_edits:
            if (ax.kind == "deleted") != (side == "before"):
                continue
            band = set(range(ax.start, ax.start + ax.count))
            (rs if ax.axis == "row" else cs).update(band)
    return EditPositions(rows, cols)


def render_sheets(
    path: str | Path,
    out_dir: str | Path,
    sheets: list[str] | None = None,
    dpi: int = 60,
    max_pages: int = 1,
    timeout: float = SOFFICE_TIMEOUT_S,
) -> dict[str, list[Path]]:
    """Screenshots of sheets: LibreOffice prints each sheet to PDF, pdftoppm makes PNGs.

    Each sheet is printed from a copy of the workbook in which every other sheet is
    hidden (hidden sheets are not printed), with cached values instead of formulas so
    the picture shows what Excel showed. Returns sheet -> PNG paths (at most
    ``max_pages`` pages per sheet, at ``dpi``). Raises WorkbookError naming the file.
    """
    path = Path(path)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        names = openpyxl.load_workbook(path, read_only=True).sheetnames
    targets = sheets if sheets is not None else names
    images: dict[str, list[Path]] = {}
    with tempfile.TemporaryDirectory(prefix="lf-render-") as tmp:
        work = Path(tmp)
        for index, name in enumerate(targets):
            if name not in names:
                raise WorkbookError(f"{path}: no sheet {name!r} to render")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                wb = openpyxl.load_workbook(path, data_only=True)
            for ws in wb.worksheets:
                ws.sheet_state = "visible" if ws.title == name else "hidden"
            wb.active = wb.sheetnames.index(name)
            single = work / f"sheet{index}.xlsx"
            wb.save(single)
            pdf = convert_with_soffice(single, work, "pdf", timeout)
            prefix = out_dir / f"{path.stem}.sheet{index}"
            cmd = [
                "pdftoppm",
                "-png",
                "-r",
                str(dpi),
                "-f",
                "1",
                "-l",
                str(max_pages),
                str(pdf),
                str(prefix),
            ]
            try:
                subprocess.run(cmd, check=True, capture_output=True, timeout=PDFTOPPM_TIMEOUT_S)
            except (subprocess.SubprocessError, OSError) as exc:
                raise WorkbookError(f"{path}: pdftoppm failed on sheet {name!r}: {exc}") from exc
            # escaped: the workbook's name may hold [ ] * ?, which glob would expand
            images[name] = sorted(out_dir.glob(f"{glob.escape(prefix.name)}-*.png"))
    return images
