"""Names that look like glob patterns ([ ] * ?) in a SpreadsheetBench task id or a
workbook's file name are matched literally: the task's test cases are found and a
sheet's screenshots are returned (before, a pathlib pattern built from the name found
nothing, or another task's files)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import openpyxl
import pytest

from pipeline.judge import spreadsheetbench_cases
from pipeline.judge.render import render_sheets
from tests.judge.test_batch import _sales


def test_a_task_id_with_glob_characters_finds_its_cases(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    spec = []
    # "q1" is what the pattern 'q[1]' would match: its files must not be taken for q[1]'s
    for tid in ("q[1]", "q1", "a*?"):
        folder = root / "spreadsheet" / tid
        folder.mkdir(parents=True)
        _sales(folder / f"1_{tid}_input.xlsx", "Sales", revenue=False)
        _sales(folder / f"1_{tid}_answer.xlsx", "Sales", revenue=True)
        spec.append(
            {
                "id": tid,
                "instruction": "Add a Revenue column: Units x Price.",
                "spreadsheet_path": f"spreadsheet/{tid}",
                "instruction_type": "Cell-Level Manipulation",
                "answer_position": "'Sales'!D1:D4",
            }
        )
    (root / "dataset.json").write_text(json.dumps(spec))
    # a file of task q1 left in q[1]'s folder: 'q[1]' read as a pattern matches its name
    _sales(root / "spreadsheet" / "q[1]" / "2_q1_input.xlsx", "Sales", revenue=False)
    cases = spreadsheetbench_cases(root, output_role="answer")
    found = sorted((c.case_id, c.input_path.name) for c in cases)
    assert found == [
        ("a*?/1:answer", "1_a*?_input.xlsx"),
        ("q1/1:answer", "1_q1_input.xlsx"),
        ("q[1]/1:answer", "1_q[1]_input.xlsx"),
    ]


def test_a_workbook_named_like_a_pattern_gets_its_screenshot(tmp_path: Path) -> None:
    if shutil.which("soffice") is None or shutil.which("pdftoppm") is None:
        pytest.skip("LibreOffice (soffice) or pdftoppm is not installed")
    src = tmp_path / "s[1]*.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "Book"
    wb.active["A1"] = "a figure"
    wb.save(src)
    shots = render_sheets(src, tmp_path / "png", ["Book"], dpi=40, timeout=120)
    assert list(shots) == ["Book"] and len(shots["Book"]) == 1
    assert shots["Book"][0].exists()
