"""Version steps on generated workbooks: task and business types, the summary built
from the diff, trivial steps, and build_version_diffs over a chain."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import openpyxl
import polars as pl
import pytest
from openpyxl.styles import PatternFill

from pipeline.detect.diffs import diff_workbooks
from pipeline.detect.steps import (
    VERSION_DIFFS_SCHEMA,
    VERSION_STEPS_SCHEMA,
    build_version_diffs,
    business_type,
    classify_step,
)
from pipeline.detect.versions import VERSION_CHAINS_SCHEMA
from pipeline.ingest.workbooks import Workbook, WorkbookError, read_workbook

LINES = ["Salaries", "Travel", "Rent", "Software", "Training", "Consulting", "Phones", "Audit"]


def budget_rows(insert_at: int | None = None) -> list[list[object]]:
    lines = [(name, 100 + 10 * i, 200 + 5 * i) for i, name in enumerate(LINES)]
    if insert_at is not None:
        lines.insert(insert_at, ("Recruiting", 55, 66))
    rows: list[list[object]] = [["Budget line", "Q1", "Q2", "Total"]]
    for k, (name, q1, q2) in enumerate(lines):
        r = k + 2
        rows.append([name, q1, q2, f"=B{r}+C{r}"])
    return rows


def save(
    path: Path,
    rows: list[list[object]],
    edit: Callable[[openpyxl.Workbook], None] | None = None,
) -> Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    for row in rows:
        ws.append(row)
    ws["F1"] = dt.datetime(2001, 3, 1)
    if edit:
        edit(wb)
    wb.save(path)
    return read_workbook(path)


@pytest.fixture
def base(tmp_path: Path) -> Workbook:
    return save(tmp_path / "v1.xlsx", budget_rows())


def step(base: Workbook, after: Workbook):
    diff = diff_workbooks(base, after)
    return diff, classify_step(base, after, diff)


def test_added_formula_column_and_changed_value(tmp_path: Path, base: Workbook) -> None:
    def edit(wb: openpyxl.Workbook) -> None:
        ws = wb["Budget"]
        ws["E1"] = "Annualized"
        for r in range(2, 10):
            ws[f"E{r}"] = f"=SUM(B{r}:C{r})*2"
        ws["B7"] = 3.25

    after = save(tmp_path / "v2.xlsx", budget_rows(), edit)
    diff, cls = step(base, after)
    assert "calculation" in cls.task_types and "data_entry_import" in cls.task_types
    assert cls.trivial_reason is None
    assert "column E 'Annualized' with SUM formulas on rows 2\u20139" in cls.summary
    assert "changed B7 from 150 to 3.25" in cls.summary
    assert cls.summary.startswith("On sheet 'Budget': ")
    assert cls.business_type == "budgeting/planning"


def test_row_insertion_is_one_edit_without_phantoms(tmp_path: Path, base: Workbook) -> None:
    after = save(tmp_path / "v2.xlsx", budget_rows(insert_at=4))
    diff, cls = step(base, after)
    frame = diff.frame()
    assert frame["kind"].to_list() == ["row_inserted"]
    assert frame["after_address"].to_list() == ["6:6"]
    assert "added row 6 'Recruiting'" in cls.summary
    assert cls.task_types == ["calculation", "data_entry_import"]


def test_formatting_and_date_stamp_steps_are_trivial(tmp_path: Path, base: Workbook) -> None:
    def fmt(wb: openpyxl.Workbook) -> None:
        for r in range(2, 10):
            wb["Budget"][f"B{r}"].number_format = "#,##0.00"
        wb["Budget"]["A1"].fill = PatternFill("solid", fgColor="FFF2CC")

    diff, cls = step(base, save(tmp_path / "fmt.xlsx", budget_rows(), fmt))
    assert cls.trivial_reason == "formatting only"
    assert cls.task_types == ["structuring_formatting"]

    def stamp(wb: openpyxl.Workbook) -> None:
        wb["Budget"]["F1"] = dt.datetime(2001, 3, 8)

    diff, cls = step(base, save(tmp_path / "stamp.xlsx", budget_rows(), stamp))
    assert cls.trivial_reason == "date stamp only"
    diff, cls = step(base, base)
    assert cls.trivial_reason == "no changes" and cls.summary == "No changes."


def test_check_sheet_is_cross_sheet_validation(tmp_path: Path, base: Workbook) -> None:
    def check(wb: openpyxl.Workbook) -> None:
        ws = wb.create_sheet("Check")
        ws["A1"] = "Budget tie-out"
        ws["A3"], ws["B3"] = "Reported total", "=Budget!D9"
        ws["A4"], ws["B4"] = "Sum of detail", "=SUM(Budget!D2:D9)"
        ws["A5"], ws["B5"] = "Difference", "=B3-B4"

    diff, cls = step(base, save(tmp_path / "check.xlsx", budget_rows(), check))
    assert {"calculation", "cross_sheet_retrieval", "validation_review"} <= set(cls.task_types)
    assert "Added sheet 'Check' (7 cells, 3 formulas)." in cls.summary


def test_business_type_from_labels(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Positions"
    ws.append(["Deal", "Counterparty", "Product", "Volume", "Price", "MTM"])
    ws.append(["GA10231", "Dynegy", "Henry Hub swap", 10000, 3.1, 1200])
    wb.save(tmp_path / "pos.xlsx")
    assert business_type(read_workbook(tmp_path / "pos.xlsx")) == "trading"


def test_build_version_diffs_over_a_chain(tmp_path: Path, base: Workbook) -> None:
    v2 = save(tmp_path / "v2.xlsx", budget_rows(insert_at=4))
    v3 = save(
        tmp_path / "v3.xlsx", budget_rows(insert_at=4), lambda wb: wb["Budget"].__setitem__("B2", 1)
    )
    books = {w.workbook_id: w for w in (base, v2, v3)}
    ids = [base.workbook_id, v2.workbook_id, v3.workbook_id, "missing"]
    chains = pl.DataFrame(
        [
            {
                "chain_id": "c1",
                "position": i,
                "workbook_id": w,
                "prev_workbook_id": ids[i - 1] if i else None,
            }
            for i, w in enumerate(ids)
        ],
        schema={
            k: VERSION_CHAINS_SCHEMA[k]
            for k in ("chain_id", "position", "workbook_id", "prev_workbook_id")
        },
    )

    def read(wid: str) -> Workbook:
        if wid not in books:
            raise WorkbookError(f"{wid}: not in the blob store")
        if wid == v2.workbook_id:  # as an .xls is: read from its conversion, another sha
            return replace(books[wid], workbook_id="converted")
        return books[wid]

    diffs, steps = build_version_diffs(chains, read)
    assert diffs.schema == pl.Schema(VERSION_DIFFS_SCHEMA)
    assert steps.schema == pl.Schema(VERSION_STEPS_SCHEMA)
    assert steps["step"].to_list() == [1, 2, 3]
    assert diffs["after_id"][0] == diffs["before_id"][1] == v2.workbook_id
    assert diffs.filter(pl.col("step") == 1)["kind"].to_list() == ["row_inserted"]
    assert diffs.filter(pl.col("step") == 2)["kind"].to_list() == ["value_changed"]
    assert steps["n_edits"].to_list() == [1, 1, 0]
    assert steps["trivial_reason"][2].startswith("unreadable: missing")
    assert steps["summary"][1] == "On sheet 'Budget': changed B2 from 100 to 1."
