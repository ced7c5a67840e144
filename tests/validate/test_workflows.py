"""Workflow checkers in the sandbox: the reference passes, the input fails, trivial and
undecidable steps and leaking instructions are rejected with their reasons, k-step
composites are graded on the final state, a tampered reference fails."""

from __future__ import annotations

import json
import shutil

import openpyxl
import polars as pl
import pytest
from openpyxl.styles import PatternFill

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


# ----------------------------------------------------------------- audited defects
# (an audit by eye of 28 released tasks: volatile cells, unstated styles, formulas not
# enforced, names in workbook cells)

DAY = "45000.25"


def _volatile_book(wb):
    ws = wb.active
    ws.title = "Rpt"
    ws["A1"], ws["B1"] = "Stamp", "=NOW()"
    ws["A2"], ws["B2"] = "Linked", "=[1]Data!C8"
    ws["A3"], ws["B3"] = "Twice", "=B2*2"
    ws["A5"] = "Comment: West IT deals $92K"


def _volatile_edit(wb):
    ws = wb["Rpt"]
    ws["A5"] = "Comment: West IT deals $107K"
    ws["B4"] = "=[1]Data!C9"  # a new link: no instruction can state it


def _styled_book(wb):
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(["Item", "Date", "Note"])
    ws.append(["Gas", 37000, "ok"])
    ws["C2"].fill = PatternFill("solid", fgColor="FFFF99")
    ws["D2"] = 5


def _styled_edit(wb):
    ws = wb["Sheet1"]
    ws["A2"] = "Power"
    ws["A2"].fill = PatternFill("solid", fgColor="FFFF99")
    ws["B2"] = 37043
    ws["B2"].number_format = "mm/dd/yy"
    ws["C2"].fill = PatternFill(fill_type=None)  # the highlight removed, the value kept
    ws["D2"] = " "  # a one-space text


def _formula_book(wb):
    ws = wb.active
    ws.title = "Calc"
    ws["C8"], ws["D8"] = "Base", 79100
    ws["E40"], ws["F40"], ws["G40"] = 2, 3, "=E40*F40"
    ws["E41"], ws["F41"], ws["G41"] = 4, 5, "=E41*F41"


def _formula_edit(wb):
    ws = wb["Calc"]
    ws["C10"], ws["D10"] = "Fee", "=D8*0.2"
    ws["G40"], ws["G41"] = 6, 20  # formulas replaced by their values


def _names_book(wb):
    ws = wb.active
    ws.title = "Contacts"
    ws["A1"], ws["B1"] = "Credit contact", "Mary Cook/Francisco Pinto-Leite"
    ws["A2"], ws["B2"], ws["C2"] = "Desk", "Wendy Conwell", "x3-0699"
    ws["A3"], ws["B3"] = "Limit", 100


def _names_edit(wb):
    wb["Contacts"]["B3"] = 150


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wf-audit")
    blobs = BlobStore(str(tmp / "blobs"))
    folder = tmp / "books"
    folder.mkdir()
    paths = {
        "volatile": books.write_pair(
            folder,
            "volatile",
            _volatile_book,
            _volatile_edit,
            (
                {"B1": DAY, "B2": "10", "B3": "20"},
                {"B1": "45001.5", "B2": "12", "B3": "24", "B4": "7"},
            ),
        ),
        "styled": books.write_pair(folder, "styled", _styled_book, _styled_edit),
        "formula": books.write_pair(
            folder,
            "formula",
            _formula_book,
            _formula_edit,
            ({"G40": "6", "G41": "20"}, {"D10": "15820"}),
        ),
        "names": books.write_pair(folder, "names", _names_book, _names_edit),
    }
    ids = {name: books.ingest(p, blobs) for name, p in paths.items()}
    chains, steps = books.chain_frames(ids)
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
    return {"tmp": tmp, "blobs": blobs, "paths": paths, "tasks": tasks}


def _run(audited, task, outputs: dict) -> dict:
    blobs = audited["blobs"]
    sources = {k: task["checker"] for k in outputs}
    files = {
        k: {
            "under_test": str(p),
            task["input_xlsx_sha256"]: blobs.local_path(task["input_xlsx_sha256"]),
        }
        for k, p in outputs.items()
    }
    results = run_oracles(
        sources, audited["tmp"], workers=1, timeout_s=30, cpu_s=20, progress=False, workbooks=files
    )
    return {k: r.output for k, r in results.items()}


def test_volatile_and_linked_cells_are_required_by_formula_only(audited):
    task = _task(audited["tasks"], ["volatile:1"])
    assert task["status"] == "accepted", task["reasons"]
    checker = task["checker"]
    # NOW() and the link: formula only (the build's moment and link cache are no answer)
    for spec in (
        "['Rpt', 'B1', 'F', '45001.5', '=NOW()', {'formula_only': True}]",
        "['Rpt', 'B2', 'I', '12', '=[1]Data!C8', {'formula_only': True}]",
        # a result of the link, its formula unchanged: it follows the link cache too
        "['Rpt', 'B3', 'I', '24', '=B2*2', {'formula_only': True}]",
    ):
        assert spec in checker
    assert "IGNORED = [('Rpt', 'B4')]" in checker  # a new link: dropped, not required
    assert "[1]Data!C9" not in task["instruction"]
    # an analyst's output, saved later (another NOW(), no link cache): passes
    out = audited["tmp"] / "volatile_agent.xlsx"
    _edited_output(
        audited["paths"]["volatile"][0],
        out,
        [lambda wb: wb["Rpt"].__setitem__("A5", "Comment: West IT deals $107K")],
    )
    books.set_cached(out, {"B1": "46500.75", "B2": "11", "B3": "22"})
    got = _run(audited, task, {"agent": out})
    assert got["agent"]["passed"] is True, got["agent"]["failures"]


def test_every_required_style_is_stated(audited):
    task = _task(audited["tasks"], ["styled:1"])
    text = task["instruction"]
    assert "Highlight 'Sheet1'!A2 in light yellow (FFFF99)." in text
    assert "Format 'Sheet1'!B2 as 'mm/dd/yy'." in text
    assert "Remove the highlight from 'Sheet1'!C2." in text
    assert "(no fill)" not in text
    assert "change 5 to a single space" in text  # a one-space text, said as such
    assert task["status"] == "accepted", task["reasons"]

    def do_what_is_said(wb):
        _styled_edit(wb)

    def values_only(wb):
        ws = wb["Sheet1"]
        ws["A2"], ws["B2"], ws["D2"] = "Power", 37043, " "

    agent = _edited_output(
        audited["paths"]["styled"][0], audited["tmp"] / "st_a.xlsx", [do_what_is_said]
    )
    lazy = _edited_output(
        audited["paths"]["styled"][0], audited["tmp"] / "st_b.xlsx", [values_only]
    )
    got = _run(audited, task, {"agent": agent, "lazy": lazy})
    assert got["agent"]["passed"] is True, got["agent"]["failures"]
    assert got["lazy"]["passed"] is False
    rules = {(f["address"], f["rule"]) for f in got["lazy"]["failures"]}
    assert {("A2", "style_mismatch"), ("B2", "number_format"), ("C2", "style_mismatch")} <= rules


def test_formulas_asked_for_are_required_and_pasted_values_checked(audited):
    task = _task(audited["tasks"], ["formula:1"])
    text = task["instruction"]
    assert "In 'Calc'!D10, put the formula =D8*0.2." in text
    assert "Replace the formulas in 'Calc'!G40:G41 with their values." in text
    assert task["status"] == "accepted", task["reasons"]
    src = audited["paths"]["formula"][0]

    def right(wb):
        _formula_edit(wb)

    def typed(wb):
        ws = wb["Calc"]
        ws["C10"], ws["D10"] = "Fee", 15820
        ws["G40"], ws["G41"] = 6, 20

    def kept(wb):
        ws = wb["Calc"]
        ws["C10"], ws["D10"] = "Fee", "=D8*0.2"

    outs = {
        "right": _edited_output(src, audited["tmp"] / "f_right.xlsx", [right]),
        "typed": _edited_output(src, audited["tmp"] / "f_typed.xlsx", [typed]),
        "kept": _edited_output(src, audited["tmp"] / "f_kept.xlsx", [kept]),
    }
    books.set_cached(outs["right"], {"D10": "15820"})
    books.set_cached(outs["kept"], {"D10": "15820", "G40": "6", "G41": "20"})
    got = _run(audited, task, outs)
    assert got["right"]["passed"] is True, got["right"]["failures"]
    assert got["typed"]["passed"] is False
    assert [(f["address"], f["rule"]) for f in got["typed"]["failures"]] == [
        ("D10", "formula_mismatch")
    ]
    assert got["kept"]["passed"] is False
    assert {(f["address"], f["rule"]) for f in got["kept"]["failures"]} == {
        ("G40", "formula_kept"),
        ("G41", "formula_kept"),
    }


def test_names_in_workbook_cells_are_rejected(audited):
    task = _task(audited["tasks"], ["names:1"])
    assert task["status"] == "rejected"
    reason = next(r for r in task["reasons"] if r.startswith("personal_data_in_workbook:"))
    assert "person_name" in reason and "phone_extension" in reason
    assert "Cook" not in reason and "0699" not in reason
