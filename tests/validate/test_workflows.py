"""Workflow checkers in the sandbox: the reference passes, the input fails, trivial and
undecidable steps and leaking instructions are rejected with their reasons, k-step
composites are graded on the final state, a tampered reference fails."""

from __future__ import annotations

import json
import shutil

import openpyxl
import polars as pl
import pytest

from oracles.sandbox import run_oracles
from pipeline.draft.workflow_candidates import build_workflow_candidates
from pipeline.draft.workflows import blob_workbook_loader, draft_workflows
from pipeline.store import BlobStore
from pipeline.validate.workflows import (
    WORKFLOW_TASKS_SCHEMA,
    checker_runs,
    validate_workflow_drafts,
)
from tests.draft import workflow_books as books


def _empty(schema):
    return pl.DataFrame(schema=schema)


@pytest.fixture(scope="module")
def validated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wf")
    blobs = BlobStore(str(tmp / "blobs"))
    folder = tmp / "books"
    folder.mkdir()
    paths = {
        "sales": books.write_versions(
            folder, "sales", [books.value_change, books.formula_column, books.sheet_added]
        ),
        "fmt": books.write_versions(folder, "fmt", [books.formatting_only, books.date_stamp_only]),
        "ins": books.write_versions(folder, "ins", [books.row_inserted]),
        "same": books.write_versions(folder, "same", [books.properties_only]),
    }
    ids = {name: books.ingest(p, blobs) for name, p in paths.items()}
    chains, steps = books.chain_frames(
        ids, trivial={("fmt", 1): "formatting_only", ("fmt", 2): "date_stamp_only"}
    )
    cands = build_workflow_candidates(
        _empty(books.THREAD_SCHEMA),
        _empty(books.MESSAGE_SCHEMA),
        _empty(books.ATTACHMENT_SCHEMA),
        _empty(books.SOURCES_SCHEMA),
        chains,
        steps,
    )
    drafts = draft_workflows(cands, blob_workbook_loader(blobs))
    tasks = validate_workflow_drafts(drafts, blobs)
    return {"tmp": tmp, "blobs": blobs, "ids": ids, "paths": paths, "tasks": tasks}


def _task(tasks: pl.DataFrame, step_ids: list[str]) -> dict:
    return tasks.filter(pl.col("step_ids") == step_ids).row(0, named=True)


def test_every_draft_becomes_a_task_with_reasons(validated):
    tasks = validated["tasks"]
    assert tasks.schema == pl.Schema(WORKFLOW_TASKS_SCHEMA)
    accepted = tasks.filter(pl.col("status") == "accepted")
    # sales: 3 single steps + 2 two-step + 1 three-step; ins: 1 step
    assert accepted.height == 7
    assert accepted["reference_passed"].to_list() == [True] * 7
    assert accepted["input_passed"].to_list() == [False] * 7
    assert accepted.filter(pl.col("steps") >= 2).height == 3
    rejected = tasks.filter(pl.col("status") == "rejected")
    assert all(r for r in rejected["reasons"].to_list())


def test_input_failures_name_the_work(validated):
    task = _task(validated["tasks"], ["sales:1"])
    failures = json.loads(task["input_failures"])
    assert failures == [
        {"sheet": "Sales", "address": "C3", "expected": "97", "rule": "mismatch", "got": "95"}
    ]


@pytest.mark.parametrize(
    "step,reason", [("fmt:1", "trivial: formatting only"), ("fmt:2", "trivial: date stamp only")]
)
def test_trivial_steps_rejected_with_reason(validated, step, reason):
    task = _task(validated["tasks"], [step])
    assert task["status"] == "rejected" and reason in task["reasons"]


def test_identical_versions_are_undecidable(validated):
    task = _task(validated["tasks"], ["same:1"])
    assert task["status"] == "rejected"
    assert any(r.startswith("undecidable:") for r in task["reasons"])


def _edited_output(path, out, edits):
    wb = openpyxl.load_workbook(path)
    for edit in edits:
        edit(wb)
    wb.save(out)
    return out


def test_checkers_on_outputs_composite_tampered_and_destructive(validated):
    tmp, blobs, ids, paths = (validated[k] for k in ("tmp", "blobs", "ids", "paths"))
    tasks = validated["tasks"]
    composite = _task(tasks, ["sales:1", "sales:2", "sales:3"])
    single = _task(tasks, ["sales:1"])
    inserted = _task(tasks, ["ins:1"])
    v0 = paths["sales"][0]
    in_path = blobs.local_path(composite["input_xlsx_sha256"])

    def drop_notes(wb):
        del wb["Notes"]["A1"]

    def tamper(wb):
        wb["Sales"]["C3"] = 98

    agent_all = _edited_output(
        v0, tmp / "agent_all.xlsx", [books.value_change, books.formula_column, books.sheet_added]
    )
    destructive = _edited_output(
        v0,
        tmp / "destructive.xlsx",
        [books.value_change, books.formula_column, books.sheet_added, drop_notes],
    )
    tampered = tmp / "tampered.xlsx"
    shutil.copy(blobs.local_path(composite["reference_sha256"]), tampered)
    _edited_output(tampered, tampered, [tamper])
    agent_row = _edited_output(paths["ins"][0], tmp / "agent_row.xlsx", [books.row_inserted])
    runs = {
        # the composite is graded on the final state: the intermediate versions fail
        "composite@v1": (composite, paths["sales"][1]),
        "composite@v2": (composite, paths["sales"][2]),
        "composite@agent": (composite, agent_all),
        "composite@destructive": (composite, destructive),
        "composite@tampered": (composite, tampered),
        "single@agent": (single, _edited_output(v0, tmp / "agent_one.xlsx", [books.value_change])),
        "inserted@agent": (inserted, agent_row),
    }
    sources = {k: t["checker"] for k, (t, _) in runs.items()}
    files = {
        k: {
            "under_test": str(p),
            t["input_xlsx_sha256"]: blobs.local_path(t["input_xlsx_sha256"]),
        }
        for k, (t, p) in runs.items()
    }
    # a tampered input blob is refused by its sha256, never read
    sources["composite@bad-input"] = composite["checker"]
    files["composite@bad-input"] = {
        "under_test": str(agent_all),
        composite["input_xlsx_sha256"]: str(tampered),
    }
    results = run_oracles(
        sources, tmp, workers=1, timeout_s=30, cpu_s=20, progress=False, workbooks=files
    )
    passed = {k: (r.output or {}).get("passed") for k, r in results.items()}
    assert passed == {
        "composite@v1": False,
        "composite@v2": False,
        "composite@agent": True,
        "composite@destructive": False,
        "composite@tampered": False,
        "single@agent": True,
        "inserted@agent": True,
        "composite@bad-input": None,
    }
    assert results["composite@bad-input"].status == "error"
    assert "tampered" in results["composite@bad-input"].error
    kept = results["composite@destructive"].output["failures"]
    assert kept == [
        {
            "sheet": "Notes",
            "address": "A1",
            "rule": "kept_cell_changed",
            "expected": "Regional sales by quarter sales",
            "got": None,
        }
    ]
    tampered_fail = results["composite@tampered"].output["failures"]
    assert {
        "sheet": "Sales",
        "address": "C3",
        "expected": "97",
        "rule": "mismatch",
        "got": "98",
    } in tampered_fail
    assert in_path  # the input blob exists in the store


def test_instruction_with_personal_data_is_rejected(validated):
    tasks = validated["tasks"]
    row = _task(tasks, ["sales:1"])
    drafts = pl.DataFrame([row]).select(list(WORKFLOW_TASKS_SCHEMA)[:20])
    leaky = drafts.with_columns(
        pl.col("instruction") + pl.lit("\nQuestions: jeff.dasovich@enron.com or 415-782-7822.")
    )
    results = checker_runs(leaky.to_dicts(), validated["blobs"])
    out = validate_workflow_drafts(leaky, validated["blobs"], results=results).row(0, named=True)
    assert out["status"] == "rejected"
    assert any(
        r.startswith("personal_data:") and "email" in r and "phone" in r for r in out["reasons"]
    )
    assert "dasovich" not in " ".join(out["reasons"])
