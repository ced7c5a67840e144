"""Workflow checkers on SpreadsheetBench input/answer pairs (../shared/data).

The first pair of each of the 50 tasks: the checker drafted from the pair must pass the
answer and fail the input, and on an answer with one required cell altered it must
agree with the judge's checker (``pipeline.judge.checker``), whose logic it mirrors.
(All 150 pairs, measured 2026-12-02: 150/150 answers pass, 150/150 inputs fail, 133
accepted; rejected: 15 personal data in the workbooks (real e-mail addresses, phone
and account-like numbers), 2 formatting only.)
"""

from __future__ import annotations

import hashlib

import openpyxl
import polars as pl
import pytest

from oracles.sandbox import run_oracles
from pipeline.draft.schemas import WORKFLOW_CANDIDATES_SCHEMA
from pipeline.draft.workflows import blob_workbook_loader, draft_workflows
from pipeline.ingest.workbooks import ingest_workbooks, read_workbook
from pipeline.judge.checker import build_checker
from pipeline.store import BlobStore
from pipeline.validate.workflows import validate_workflow_drafts

pytestmark = pytest.mark.real_data


def _pairs(root):
    out = []
    for folder in sorted((root / "spreadsheetbench" / "spreadsheet").iterdir()):
        inputs = sorted(folder.glob("1_*_input.xlsx"))
        if inputs:
            answer = inputs[0].with_name(inputs[0].name.replace("_input", "_answer"))
            out.append((inputs[0], answer))
    return out


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_spreadsheetbench_answers_pass_inputs_fail(shared_data, tmp_path):
    pairs = _pairs(shared_data)
    assert len(pairs) == 50
    blobs = BlobStore(str(tmp_path / "blobs"))
    ingested = ingest_workbooks([p for pair in pairs for p in pair], blobs)
    assert ingested.intake.quarantine_frame().height == 0
    rows = [
        {
            "candidate_id": inp.stem,
            "origin": "chain",
            "grounding": "partial",
            "message_keys": [],
            "goal_sentences": [],
            "chain_id": inp.parent.name,
            "before_id": _sha(inp),
            "after_id": _sha(ans),
            "steps": 1,
            "step_ids": [inp.stem],
            "task_types": [],
        }
        for inp, ans in pairs
    ]
    drafts = draft_workflows(
        pl.DataFrame(rows, schema=WORKFLOW_CANDIDATES_SCHEMA), blob_workbook_loader(blobs)
    )
    tasks = validate_workflow_drafts(drafts, blobs, workers=2, timeout_s=60, cpu_s=40)
    assert tasks["reference_passed"].to_list() == [True] * 50
    assert tasks["input_passed"].to_list() == [False] * 50
    rules = {r.split(":")[0] for rs in tasks["reasons"] for r in rs}
    assert rules <= {"personal_data_in_workbook", "trivial"}
    assert tasks.filter(pl.col("status") == "accepted").height >= 40

    # one required constant of the answer altered: the sandbox checker and the judge agree
    sources, files, judge = {}, {}, {}
    by_name = {inp.stem: (inp, ans) for inp, ans in pairs}
    for task in tasks.iter_rows(named=True):
        inp, ans = by_name[task["candidate_id"]]
        checker = build_checker(read_workbook(inp), read_workbook(ans))
        req = next(
            (
                r
                for r in checker.required
                if r.expected is not None
                and r.expected.formula is None
                and r.expected.type in ("I", "F", "T")
            ),
            None,
        )
        if req is None:
            continue
        wb = openpyxl.load_workbook(ans)
        value = req.expected.value
        wb[req.sheet][req.address] = value + 7 if req.expected.type != "T" else f"{value} x"
        altered = tmp_path / f"{task['candidate_id']}_altered.xlsx"
        wb.save(altered)
        judge[task["task_id"]] = checker.check(read_workbook(altered)).verdict
        sources[task["task_id"]] = task["checker"]
        files[task["task_id"]] = {
            "under_test": str(altered),
            task["input_xlsx_sha256"]: blobs.local_path(task["input_xlsx_sha256"]),
        }
    assert len(judge) >= 20
    results = run_oracles(
        sources, tmp_path, workers=2, timeout_s=60, cpu_s=40, progress=False, workbooks=files
    )
    sandbox = {k: (r.output or {}).get("passed") for k, r in results.items()}
    assert sandbox == judge
    assert sum(v is False for v in sandbox.values()) >= len(sandbox) - 2
