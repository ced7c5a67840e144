"""`ledgerforge judge <SpreadsheetBench folder>`: the dataset's self-check (answers
pass, inputs fail, near-misses fail) and agent outputs; near-miss generation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import openpyxl
import polars as pl
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.config import SHARED_DATA
from pipeline.judge import CheckerJudge, JudgeCase, spreadsheetbench_cases, write_near_miss

SPREADSHEETBENCH = SHARED_DATA / "spreadsheetbench"
runner = CliRunner()


def _sales(path: Path, title: str, revenue: bool, wrong: bool = False) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = title
    ws.append(["Region", "Units", "Price"])
    for i, region in enumerate(["North", "South", "East"], start=1):
        ws.append([region, i * 4, 1.5 * i])
    if revenue:
        ws["D1"] = "Revenue"
        for r in range(2, 5):
            ws[f"D{r}"] = ws[f"B{r}"].value * ws[f"C{r}"].value + (1 if wrong and r == 3 else 0)
    wb.save(path)


def bench_folder(root: Path) -> Path:
    """A SpreadsheetBench-shaped folder: two tasks, two test cases each; the second
    task names its sheet by a localised default name and a full-width colon."""
    tasks = [
        {"id": "t1", "answer_position": "'Sales'!D1:D4", "sheet": "Sales"},
        {"id": 42, "answer_position": "'Ark1'!D2\uff1aD4", "sheet": "Sheet1"},
    ]
    spec = []
    for task in tasks:
        tid = str(task["id"])
        folder = root / "spreadsheet" / tid
        folder.mkdir(parents=True)
        for n in (1, 2):
            _sales(folder / f"{n}_{tid}_input.xlsx", task["sheet"], revenue=False)
            _sales(folder / f"{n}_{tid}_answer.xlsx", task["sheet"], revenue=True)
        spec.append(
            {
                "id": task["id"],
                "instruction": "Add a Revenue column: Units x Price.",
                "spreadsheet_path": f"spreadsheet/{tid}",
                "instruction_type": "Cell-Level Manipulation",
                "answer_position": task["answer_position"],
            }
        )
    (root / "dataset.json").write_text(json.dumps(spec))
    return root


def test_cli_folder_self_check(tmp_path: Path) -> None:
    folder = bench_folder(tmp_path / "bench")
    out = tmp_path / "judged"
    result = runner.invoke(
        app, ["judge", str(folder), "--out", str(out), "--near-misses", "--no-recalculate"]
    )
    assert result.exit_code == 0, result.output
    assert "answer: 4/4 pass" in result.output and "input: 4/4 fail" in result.output
    assert "near_miss: 2/2 fail" in result.output and "0 exceptions" in result.output
    frame = pl.read_parquet(out / "judgements.parquet")
    assert frame.height == 10
    assert frame.filter(pl.col("verdict") != pl.col("expected")).height == 0
    ark = frame.filter(pl.col("case_id") == "42/1:answer").row(0, named=True)
    assert any("localised default name" in n for n in ark["notes"])
    assert sorted(p.name for p in (out / "near_misses").iterdir()) == [
        "1_42_near_miss.xlsx",
        "1_t1_near_miss.xlsx",
    ]
    assert "| near_miss | 2 | 2 | 0 | 0 |" in (out / "judgements.md").read_text()


def test_cli_folder_with_agent_outputs(tmp_path: Path) -> None:
    folder = bench_folder(tmp_path / "bench")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    _sales(outputs / "1_t1_output.xlsx", "Sales", revenue=True)
    _sales(outputs / "2_t1_output.xlsx", "Sales", revenue=True, wrong=True)
    _sales(outputs / "1_42_output.xlsx", "Sheet1", revenue=True)  # 2_42 missing
    out = tmp_path / "judged"
    result = runner.invoke(
        app, ["judge", str(folder), "--outputs", str(outputs), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    frame = pl.read_parquet(out / "judgements.parquet")
    status = dict(zip(frame["case_id"], frame["status"], strict=True))
    assert status == {"t1/1": "pass", "t1/2": "fail", "42/1": "pass", "42/2": "error"}


def test_spreadsheetbench_cases_roles(tmp_path: Path) -> None:
    folder = bench_folder(tmp_path / "bench")
    cases = spreadsheetbench_cases(folder, near_miss_dir=tmp_path / "nm")
    assert [(c.case_id, c.role, c.expected) for c in cases[:5]] == [
        ("t1/1:answer", "answer", True),
        ("t1/1:input", "input", False),
        ("t1/1:near_miss", "near_miss", False),
        ("t1/2:answer", "answer", True),
        ("t1/2:input", "input", False),
    ]
    only = spreadsheetbench_cases(folder, output_role="answer")
    assert {c.role for c in only} == {"answer"} and len(only) == 4
    with pytest.raises(ValueError, match="answer and/or input"):
        spreadsheetbench_cases(folder, output_role="output")


def test_near_miss_changes_exactly_one_required_cell(tmp_path: Path) -> None:
    folder = bench_folder(tmp_path / "bench") / "spreadsheet" / "t1"
    case = JudgeCase(
        "t1/1",
        "Add a Revenue column.",
        None,
        folder / "1_t1_answer.xlsx",
        folder / "1_t1_input.xlsx",
        answer_position="'Sales'!D1:D4",
    )
    judge = CheckerJudge(recalculate=False)
    made = write_near_miss(judge.checker_for(case), tmp_path / "nm.xlsx")
    assert made is not None and (made.sheet, made.address) == ("Sales", "D1")
    assert (made.before, made.after) == ("Revenue", "Revenue (near miss)")

    def cells(path: Path) -> dict:
        ws = openpyxl.load_workbook(path)["Sales"]
        return {c.coordinate: c.value for row in ws.iter_rows() for c in row}

    before, after = cells(case.reference_path), cells(made.path)
    assert {k for k in before if before[k] != after.get(k)} == {"D1"}
    verdict = judge.judge(JudgeCase(**{**case.__dict__, "output_path": made.path}))
    assert verdict.verdict is False and "Sales!D1" in verdict.rationale


@pytest.mark.real_data
def test_cli_on_spreadsheetbench(tmp_path: Path) -> None:
    """The acceptance of issue 9 on the real sample: through the CLI in folder mode,
    every answer passes, every input fails, every generated near-miss fails, and
    nothing raises. The dataset's cached values are its truth (no recalculation)."""
    if not SPREADSHEETBENCH.exists():
        pytest.skip(f"real samples not found at {SPREADSHEETBENCH} (../shared/data is absent)")
    out = tmp_path / "judged"
    result = runner.invoke(
        app,
        ["judge", str(SPREADSHEETBENCH), "--out", str(out), "--near-misses", "--no-recalculate"],
    )
    assert result.exit_code == 0, result.output
    frame = pl.read_parquet(out / "judgements.parquet")
    counts = {
        role: (part.height, part.filter(pl.col("verdict") == pl.col("expected")).height)
        for (role,), part in frame.group_by("role")
    }
    print(result.output)
    assert frame.filter(pl.col("status") == "error").height == 0
    assert counts["answer"][0] >= 150 and counts["answer"][0] == counts["answer"][1]
    assert counts["input"][0] >= 150 and counts["input"][0] == counts["input"][1]
    assert counts["near_miss"] == (50, 50)
    # every near-miss fails on exactly the changed cell, not on something else
    near = frame.filter(pl.col("role") == "near_miss")
    assert (near["n_required"] - near["n_matched"]).to_list() == [1] * 50
    assert near["n_unexpected"].sum() == 0
    # each case's evidence: snapshots of the changed sheets in the cell encoding
    reports = list((out / "cases").glob("*.md"))
    assert len(reports) == frame.height
    assert all("## Sheet:" in p.read_text() for p in reports)
    shutil.rmtree(out / "cases")
