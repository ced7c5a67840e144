"""Builders of in-memory workbook tables (workbooks, sheets, cells, workbook_sources)
for the version-chain tests: no files, the frames the ingest stage would produce."""

from __future__ import annotations

import datetime as dt
import hashlib
import random

import polars as pl
from openpyxl.utils import get_column_letter

from pipeline.ingest.workbooks import CELLS_SCHEMA, SHEETS_SCHEMA, WORKBOOKS_SCHEMA

SOURCES_SCHEMA = {
    "workbook_id": pl.String,
    "source_kind": pl.String,
    "source_path": pl.String,
    "file_name": pl.String,
    "message_key": pl.String,
    "file_date": pl.Datetime("us", "UTC"),
}

Grid = dict[str, dict[tuple[int, int], object]]  # sheet -> (row, col) -> value


def ledger(desk: str, seed: int, rows: int = 25) -> Grid:
    """A budget sheet: labels, four quarters of numbers (from ``seed``), a total row."""
    rng = random.Random(seed)
    grid: dict[tuple[int, int], object] = {(1, 1): "Cost centre", (1, 6): "Total"}
    for q in range(4):
        grid[(1, 2 + q)] = f"Q{q + 1}"
    for r in range(2, rows + 2):
        grid[(r, 1)] = f"{desk} line {r - 1}"
        for q in range(4):
            grid[(r, 2 + q)] = round(rng.uniform(100, 9999), 2)
        grid[(r, 6)] = f"=SUM(B{r}:E{r})"
    return {"Budget": grid, "Notes": {(1, 1): f"{desk} desk budget"}}


def wid(grid: Grid, salt: str = "") -> str:
    return hashlib.sha256(
        (repr(sorted((s, sorted(g.items())) for s, g in grid.items())) + salt).encode()
    ).hexdigest()


def tables(
    books: list[tuple[str, Grid, list[dict]]],
) -> dict[str, pl.DataFrame]:
    """Frames for ``books``: (file name, grid, sources) where each source is a dict of
    WORKBOOK_SOURCES fields (file_name defaults to the book's name)."""
    wbs, sheets, cells, sources = [], [], [], []
    for name, grid, srcs in books:
        w = wid(grid)
        if w in {r["workbook_id"] for r in wbs}:
            pass  # same bytes: one workbook, several sources
        else:
            wbs.append(
                {
                    "workbook_id": w,
                    "source_path": name,
                    "file_name": name,
                    "source_format": "xlsx",
                    "n_sheets": len(grid),
                    "n_cells": sum(len(g) for g in grid.values()),
                    "n_formulas": 0,
                }
            )
            for idx, (sheet, g) in enumerate(grid.items()):
                sheets.append(
                    {"workbook_id": w, "sheet": sheet, "sheet_index": idx, "n_cells": len(g)}
                )
                for (r, c), v in g.items():
                    is_formula = isinstance(v, str) and v.startswith("=")
                    cells.append(
                        {
                            "workbook_id": w,
                            "sheet": sheet,
                            "address": f"{get_column_letter(c)}{r}",
                            "row": r,
                            "col": c,
                            "value": None if is_formula else str(v),
                            "type": None
                            if is_formula
                            else "F"
                            if isinstance(v, float)
                            else "I"
                            if isinstance(v, int)
                            else "T",
                            "formula": v if is_formula else None,
                        }
                    )
        for s in srcs or [{}]:
            sources.append({"workbook_id": w, "source_kind": "attachment", "file_name": name, **s})
    return {
        "workbooks": pl.DataFrame(wbs, schema=WORKBOOKS_SCHEMA),
        "sheets": pl.DataFrame(sheets, schema=SHEETS_SCHEMA),
        "cells": pl.DataFrame(cells, schema=CELLS_SCHEMA),
        "workbook_sources": pl.DataFrame(sources, schema=SOURCES_SCHEMA),
    }


def edited(grid: Grid, changes: dict[tuple[int, int], object], sheet: str = "Budget") -> Grid:
    out = {s: dict(g) for s, g in grid.items()}
    out[sheet].update(changes)
    return out


def when(days: float) -> dt.datetime:
    return dt.datetime(2001, 3, 1, tzinfo=dt.UTC) + dt.timedelta(days=days)
