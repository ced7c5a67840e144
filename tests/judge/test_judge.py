"""The workbook judge: judge_pair, the Judge protocol, batch output, human-label
agreement (the real SpreadsheetBench run is in test_batch.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import openpyxl
import polars as pl
import pytest

from pipeline.judge import (
    JUDGEMENTS_SCHEMA,
    PROMPTS,
    CheckerJudge,
    Judge,
    JudgeCase,
    Judgement,
    agreement,
    gather_evidence,
    judge_batch,
    judge_pair,
    load_human_labels,
)

INSTRUCTION = "Add a Total column D with Units times Price for every region."


def write_book(path: Path, total: dict[int, object] | None = None, extra: bool = False) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Units", "Price"])
    for i, region in enumerate(["North", "South", "East"], start=1):
        ws.append([region, i * 4, 1.5 * i])
    if total is not None:
        ws["D1"] = "Total"
        for row, value in total.items():
            ws[f"D{row}"] = value
    if extra:
        ws["A2"] = "NORTH"  # overwrites input data
    wb.save(path)
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    right = {2: 6.0, 3: 24.0, 4: 54.0}
    return {
        "input": write_book(tmp_path / "input.xlsx"),
        "reference": write_book(tmp_path / "reference.xlsx", right),
        "good": write_book(tmp_path / "good.xlsx", {2: "=B2*C2", 3: 24, 4: 54}),
        "wrong": write_book(tmp_path / "wrong.xlsx", {2: 6, 3: 25, 4: 54}),
        "messy": write_book(tmp_path / "messy.xlsx", right, extra=True),
    }


def test_judge_pair_verdicts_and_rubric(files: dict[str, Path]) -> None:
    ok = judge_pair(files["input"], files["reference"], files["reference"], INSTRUCTION)
    assert ok.verdict is True and ok.rationale.startswith("PASS: 4/4 required cells match")
    wrong = judge_pair(files["input"], files["wrong"], files["reference"], INSTRUCTION)
    assert wrong.verdict is False
    assert wrong.rubric["correctness"] is False and wrong.rubric["completeness"] is True
    assert "Sales!D3: expected '24', got '25'" in wrong.rationale
    messy = judge_pair(files["input"], files["messy"], files["reference"], INSTRUCTION)
    assert messy.verdict is False
    assert messy.rubric["no_unnecessary_edits"] is False and messy.rubric["correctness"] is True
    untouched = judge_pair(files["input"], files["input"], files["reference"], INSTRUCTION)
    assert untouched.verdict is False and untouched.rubric["completeness"] is False


def test_uncomputed_formula_equal_to_reference_passes(
    files: dict[str, Path], tmp_path: Path
) -> None:
    ref = write_book(tmp_path / "ref_f.xlsx", {2: "=B2*C2", 3: "=B3*C3", 4: "=B4*C4"})
    out = write_book(tmp_path / "out_f.xlsx", {2: "=b2*c2", 3: "=B3 * C3", 4: "=$B4*$C4"})
    text_only = CheckerJudge(recalculate=False)
    j = judge_pair(files["input"], out, ref, INSTRUCTION, judge=text_only)
    assert j.verdict is True
    assert {c.rule for c in j.check.checks if c.address != "D1"} == {"formula_equal"}
    if shutil.which("soffice") is not None:
        # recalculated by LibreOffice, both sides compare on computed values
        j = judge_pair(files["input"], out, ref, INSTRUCTION)
        assert j.verdict is True
        assert {c.rule for c in j.check.checks} == {"equal"}
        assert j.check.checks[1].got == "6"


def test_evidence_diffs_snapshots_and_prompt(files: dict[str, Path]) -> None:
    case = JudgeCase("c1", INSTRUCTION, files["wrong"], files["reference"], files["input"])
    _, ev = gather_evidence(case)
    assert ev.changed_sheets == ["Sales"]
    assert ev.diff_ref.sheet_diff("Sales").axis_edits[0].axis == "col"
    for role in ("input", "reference", "output"):
        assert ev.snapshots[role].startswith("## Sheet: Sales (")
    assert "(D3, 25, I, )" in ev.snapshots["output"]
    assert "(D3, 24, I, )" in ev.snapshots["reference"]
    assert (
        INSTRUCTION in ev.prompt
        and "diff_model" in ev.prompt
        and "completeness" in ev.prompt.lower()
    )
    assert set(PROMPTS) == {"modify", "generate", "qa"}


def test_generate_and_qa_cases(files: dict[str, Path]) -> None:
    judge = CheckerJudge()
    gen = judge.judge(
        JudgeCase(
            "g", "Build the sales table", files["reference"], files["reference"], None, "generate"
        )
    )
    assert gen.verdict is True and gen.check.n_required == 16
    assert "## Reference workbook (all cells)" in gen.evidence.prompt
    qa_ok = judge.judge(
        JudgeCase(
            "q1",
            "Total units?",
            None,
            None,
            task_kind="qa",
            reference_answer="24",
            model_answer="ANSWER: 24.0",
        )
    )
    qa_bad = judge.judge(
        JudgeCase(
            "q2",
            "Total units?",
            None,
            None,
            task_kind="qa",
            reference_answer="24",
            model_answer="ANSWER: 42",
        )
    )
    assert (qa_ok.verdict, qa_bad.verdict) == (True, False)


class AlwaysPass:
    """A stand-in for the later LLM backend: anything with ``name`` and ``judge``."""

    name = "always-pass"

    def judge(self, case: JudgeCase) -> Judgement:
        return Judgement(case.case_id, self.name, case.task_kind, True, "looks fine")


def test_judge_protocol_accepts_other_backends(files: dict[str, Path]) -> None:
    assert isinstance(CheckerJudge(), Judge) and isinstance(AlwaysPass(), Judge)
    j = judge_pair(
        files["input"], files["wrong"], files["reference"], INSTRUCTION, judge=AlwaysPass()
    )
    assert j.verdict is True and j.judge == "always-pass"


def test_batch_writes_parquet_and_markdown(files: dict[str, Path], tmp_path: Path) -> None:
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is needed to compute the uncached formula of 'good'")
    pairs = tmp_path / "pairs.jsonl"
    rows = [
        {
            "case_id": name,
            "instruction": INSTRUCTION,
            "input": "input.xlsx",
            "output": f"{name}.xlsx",
            "reference": "reference.xlsx",
        }
        for name in ("good", "wrong", "messy")
    ]
    rows.append(
        {
            "case_id": "gone",
            "instruction": INSTRUCTION,
            "input": "input.xlsx",
            "output": "nope.xlsx",
            "reference": "reference.xlsx",
        }
    )
    pairs.write_text("\n".join(json.dumps(r) for r in rows))
    out = tmp_path / "judged"
    frame = judge_batch(pairs, out)
    assert dict(frame.schema) == JUDGEMENTS_SCHEMA
    verdicts = dict(zip(frame["case_id"], frame["verdict"], strict=True))
    assert verdicts == {"good": True, "wrong": False, "messy": False, "gone": None}
    gone = frame.filter(pl.col("case_id") == "gone").row(0, named=True)
    assert "nope.xlsx" in gone["error"]
    assert pl.read_parquet(out / "judgements.parquet").height == 4
    report = (out / "judgements.md").read_text()
    assert "4 cases: 1 pass, 2 fail, 1 undecided (1 errors)." in report
    assert "## Sheet: Sales" in (out / "cases" / "wrong.md").read_text()


def test_human_labels_and_agreement(tmp_path: Path) -> None:
    csv_path = tmp_path / "labels.csv"
    csv_path.write_text("case_id,label\na,pass\nb,FAIL\nc,1\nd,0\ne,yes\nf,correct\ng,pass\n")
    labels = load_human_labels(csv_path)
    assert labels == {"a": True, "b": False, "c": True, "d": False, "e": True, "f": True, "g": True}
    jsonl = tmp_path / "labels.jsonl"
    jsonl.write_text('{"case_id": "a", "label": true}\n{"case_id": "b", "label": "fail"}\n')
    assert load_human_labels(jsonl) == {"a": True, "b": False}
    bad = tmp_path / "bad.csv"
    bad.write_text("case_id,label\na,maybe\n")
    with pytest.raises(ValueError, match=r"bad.csv:2: label 'maybe'"):
        load_human_labels(bad)
    # judge: a,c,e pass (tp=3 with a,c,e), b passes wrongly (fp=1), f fails wrongly (fn=1),
    # d fails rightly (tn=1), g undecided, h unlabelled
    verdicts = {
        "a": True,
        "b": True,
        "c": True,
        "d": False,
        "e": True,
        "f": False,
        "g": None,
        "h": True,
    }
    agree = agreement(verdicts, labels)
    assert (agree.tp, agree.fp, agree.fn, agree.tn) == (3, 1, 1, 1)
    assert (agree.n, agree.undecided, agree.unlabelled, agree.missing) == (6, 1, 1, 0)
    assert agree.accuracy == pytest.approx(4 / 6)
    assert agree.precision == pytest.approx(3 / 4)
    assert agree.recall == pytest.approx(3 / 4)
    frame = pl.DataFrame({"case_id": ["a", "b"], "verdict": [True, False]})
    assert agreement(frame, {"a": True, "b": True, "z": False}).recall == pytest.approx(0.5)
