"""Workflow candidates and the template drafter on generated workbook versions."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from oracles._static import check_source
from pipeline.detect.diffs import diff_workbooks
from pipeline.draft.schemas import WORKFLOW_CANDIDATES_SCHEMA, WORKFLOW_DRAFTS_SCHEMA
from pipeline.draft.workflow_candidates import build_workflow_candidates, goal_sentences
from pipeline.draft.workflows import blob_workbook_loader, draft_workflows, trivial_reason
from pipeline.store import BlobStore
from tests.draft import workflow_books as books

UTC = dt.UTC


@pytest.fixture
def corpus(tmp_path):
    """Chain "sales": v0 -> value change -> formula column -> sheet added (3 real steps);
    chain "fmt": v0 -> formatting only -> date stamp only; chain "ins": a row inserted."""
    blobs = BlobStore(str(tmp_path / "blobs"))
    folder = tmp_path / "books"
    folder.mkdir()
    sales = books.ingest(
        books.write_versions(
            folder, "sales", [books.value_change, books.formula_column, books.sheet_added]
        ),
        blobs,
    )
    fmt = books.ingest(
        books.write_versions(folder, "fmt", [books.formatting_only, books.date_stamp_only]), blobs
    )
    ins = books.ingest(books.write_versions(folder, "ins", [books.row_inserted]), blobs)
    assert len(set(sales + fmt + ins)) == 4 + 3 + 2
    return blobs, {"sales": sales, "fmt": fmt, "ins": ins}


def _empty(schema):
    return pl.DataFrame(schema=schema)


def test_goal_sentences_pick_requests_about_the_spreadsheet():
    text = (
        "Hi Sally. Can you add a total column to the Q3 sheet? The weather is great. "
        "Please call me tomorrow. Fix the formulas in the summary tab before noon.\n"
        "> Can you add the old rows? (quoted)\nThanks"
    )
    assert goal_sentences(text) == [
        "Can you add a total column to the Q3 sheet?",
        "Fix the formulas in the summary tab before noon.",
    ]
    assert goal_sentences("") == [] and goal_sentences(None) == []
    courtesy = (
        "Please find attached the credit worksheet for the desk. Total $21.7. "
        "If you need the file, please let me know."
    )
    assert goal_sentences(courtesy) == []
    assert goal_sentences("I included 2 deals twice in the report, so please replace it.") == [
        "I included 2 deals twice in the report, so please replace it."
    ]


def test_chain_candidates_single_and_multi_step(corpus):
    _, ids = corpus
    chains, steps = books.chain_frames({"sales": ids["sales"]})
    cands = build_workflow_candidates(
        _empty(books.THREAD_SCHEMA),
        _empty(books.MESSAGE_SCHEMA),
        _empty(books.ATTACHMENT_SCHEMA),
        _empty(books.SOURCES_SCHEMA),
        chains,
        steps,
    )
    assert cands.schema == pl.Schema(WORKFLOW_CANDIDATES_SCHEMA)
    by_k = cands.group_by("steps").len().sort("steps")
    # 3 single steps, 2 runs of 2, 1 run of 3
    assert by_k.rows() == [(1, 3), (2, 2), (3, 1)]
    three = cands.filter(pl.col("steps") == 3).row(0, named=True)
    assert three["before_id"] == ids["sales"][0] and three["after_id"] == ids["sales"][3]
    assert three["step_ids"] == ["sales:1", "sales:2", "sales:3"]
    assert set(cands["origin"]) == {"chain"} and set(cands["grounding"]) == {"partial"}


def test_trivial_steps_stay_single_and_break_runs(corpus):
    _, ids = corpus
    chains, steps = books.chain_frames(
        {"fmt": ids["fmt"]}, trivial={("fmt", 1): "formatting_only", ("fmt", 2): "date_stamp_only"}
    )
    cands = build_workflow_candidates(
        _empty(books.THREAD_SCHEMA),
        _empty(books.MESSAGE_SCHEMA),
        _empty(books.ATTACHMENT_SCHEMA),
        _empty(books.SOURCES_SCHEMA),
        chains,
        steps,
    )
    assert cands.height == 2 and set(cands["steps"]) == {1}


def _thread_frames(ids, attach_revision: bool):
    t0 = dt.datetime(2001, 5, 1, 9, tzinfo=UTC)
    messages = [
        {
            "message_key": "m1",
            "date": t0,
            "from_addr": "john.arnold@enron.com",
            "from_name": "Arnold, John",
            "to_addrs": ["sally.beck@enron.com"],
            "cc_addrs": [],
            "subject": "Q2 numbers",
            "new_text": "Sally, can you update West Q2 in the sales sheet to 97? "
            "Call me at 713-853-6197 if unclear. John",
        },
        {
            "message_key": "m2",
            "date": t0 + dt.timedelta(hours=2),
            "from_addr": "sally.beck@enron.com",
            "from_name": "Sally Beck",
            "to_addrs": ["john.arnold@enron.com"],
            "cc_addrs": [],
            "subject": "Re: Q2 numbers",
            "new_text": "Done, see attached.",
        },
    ]
    threads = [
        {"thread_id": "t1", "message_key": "m1", "position": 0, "linked_by": "root"},
        {"thread_id": "t1", "message_key": "m2", "position": 1, "linked_by": "in_reply_to"},
    ]
    attachments = [("m1", ids["sales"][0])] + ([("m2", ids["sales"][1])] if attach_revision else [])
    att = [
        {
            "message_key": k,
            "part_index": 1,
            "file_name": "sales.xlsx",
            "content_type": "application/vnd.ms-excel",
            "sha256": sha,
            "size": 1,
            "is_spreadsheet": True,
        }
        for k, sha in attachments
    ]
    return (
        pl.DataFrame(threads, schema=books.THREAD_SCHEMA),
        pl.DataFrame(messages, schema=books.MESSAGE_SCHEMA),
        pl.DataFrame(att, schema=books.ATTACHMENT_SCHEMA),
    )


@pytest.mark.parametrize("attach_revision,grounding", [(True, "strong"), (False, "partial")])
def test_thread_candidates_strong_and_partial(corpus, attach_revision, grounding):
    _, ids = corpus
    chains, steps = books.chain_frames({"sales": ids["sales"]})
    threads, messages, attachments = _thread_frames(ids, attach_revision)
    cands = build_workflow_candidates(
        threads, messages, attachments, _empty(books.SOURCES_SCHEMA), chains, steps
    )
    thread = cands.filter(pl.col("origin") == "thread")
    assert thread.height == 1
    row = thread.row(0, named=True)
    assert row["grounding"] == grounding
    assert (row["before_id"], row["after_id"]) == (ids["sales"][0], ids["sales"][1])
    assert row["step_ids"] == ["sales:1"] and row["thread_id"] == "t1"
    assert "m1" in row["message_keys"]
    assert row["goal_sentences"][0].startswith("Sally, can you update West Q2")
    # the chain candidate of the same pair was absorbed by the thread one
    pairs = cands.select("before_id", "after_id").rows()
    assert len(pairs) == len(set(pairs))


def test_trivial_reason_formatting_and_date_stamp(corpus):
    blobs, ids = corpus
    load = blob_workbook_loader(blobs)
    v0, v1, v2 = (load(w) for w in ids["fmt"])
    assert trivial_reason(diff_workbooks(v0, v1)) == "formatting only"
    assert trivial_reason(diff_workbooks(v1, v2)) == "date stamp only"
    s0, s1 = load(ids["sales"][0]), load(ids["sales"][1])
    assert trivial_reason(diff_workbooks(s0, s1)) is None


def test_drafts_instruction_and_checker(corpus):
    blobs, ids = corpus
    chains, steps = books.chain_frames({"sales": ids["sales"], "ins": ids["ins"]})
    threads, messages, attachments = _thread_frames(ids, attach_revision=True)
    cands = build_workflow_candidates(
        threads, messages, attachments, _empty(books.SOURCES_SCHEMA), chains, steps
    )
    drafts = draft_workflows(cands, blob_workbook_loader(blobs), messages=messages, threads=threads)
    assert drafts.schema == pl.Schema(WORKFLOW_DRAFTS_SCHEMA)
    assert drafts.height == cands.height
    for d in drafts.iter_rows(named=True):
        assert check_source(d["checker"]) == [], d["task_id"]
        assert d["input_sha256"] in d["checker"] and d["reference_sha256"] in d["checker"]
        assert d["problems"] == [], (d["task_id"], d["problems"])
    strong = drafts.filter(pl.col("grounding") == "strong").row(0, named=True)
    text = strong["instruction"]
    assert "'Sales'!C3" in text and "97" in text
    for leaked in ("Sally", "John", "Arnold", "713-853-6197", "enron.com"):
        assert leaked not in text
    assert "the analyst" in text.lower() or "your manager" in text.lower()
    formula = drafts.filter(pl.col("step_ids") == ["sales:2"]).row(0, named=True)
    assert "=SUM(B2:D2) (and copy it down)" in formula["instruction"]
    assert "'Sales'!E2:E5" in formula["instruction"]
    inserted = drafts.filter(pl.col("step_ids") == ["ins:1"]).row(0, named=True)
    assert "Insert 1 new row at 4:4 in 'Sales'" in inserted["instruction"]
    assert "Fill in 'Central', 70, 72, 74 in 'Sales'!A4:D4" in inserted["instruction"]
    assert "Cell addresses are those of the finished workbook." in inserted["instruction"]
    composite = drafts.filter(pl.col("steps") == 3).row(0, named=True)
    assert "3 rounds of edits" in composite["instruction"]
    assert "Add a new sheet named 'Summary'" in composite["instruction"]


def test_candidate_without_reference_is_a_problem(corpus):
    blobs, ids = corpus
    cands = pl.DataFrame(
        [
            {
                "candidate_id": "wf-x",
                "origin": "thread",
                "grounding": "partial",
                "thread_id": "t9",
                "message_keys": ["m9"],
                "goal_sentences": ["Please fix the totals in the file."],
                "chain_id": None,
                "before_id": ids["sales"][0],
                "after_id": None,
                "steps": 0,
                "step_ids": [],
                "task_types": [],
                "business_type": None,
            }
        ],
        schema=WORKFLOW_CANDIDATES_SCHEMA,
    )
    drafts = draft_workflows(cands, blob_workbook_loader(blobs))
    assert drafts["problems"].to_list() == [
        ["no_reference: no later version of the input is known"]
    ]


def test_cell_tolerance_is_tighter_than_the_change():
    from pipeline.draft.workflow_checker import cell_tolerance
    from pipeline.ingest.workbooks import Cell

    def num(value):
        return Cell("S", 1, 1, value, "F" if isinstance(value, float) else "I", None)

    # a rate: half a unit of its last decimal, and the input 0.028 stays outside
    assert cell_tolerance(num(0.0322), num(0.028), 0.005) == pytest.approx(0.00005)
    assert cell_tolerance(num(0.0322), num(0.0321), 0.005) == pytest.approx(0.00005)
    assert cell_tolerance(num(0.03221), num(0.0322), 0.005) == pytest.approx(0.000005)
    # money: the task's half a cent, unless the input is closer than that
    assert cell_tolerance(num(2793120), num(3036000), 0.005) == 0.005
    assert cell_tolerance(num(100.004), num(100.001), 0.005) == pytest.approx(0.0005)
    assert cell_tolerance(num(7), num(7.004), 0.005) == pytest.approx(0.002)


# ----------------------------------------------------------------- audited wording


def _draft_chain(tmp_path, name, versions):
    """Draft every candidate of one chain whose versions are written by ``versions``
    (a list of functions, each filling a fresh openpyxl workbook)."""
    import openpyxl

    blobs = BlobStore(str(tmp_path / f"blobs-{name}"))
    paths = []
    for i, build in enumerate(versions):
        wb = openpyxl.Workbook()
        build(wb)
        paths.append(tmp_path / f"{name}_v{i}.xlsx")
        wb.save(paths[-1])
    ids = books.ingest(paths, blobs)
    chains, steps = books.chain_frames({name: ids})
    cands = build_workflow_candidates(
        _empty(books.THREAD_SCHEMA),
        _empty(books.MESSAGE_SCHEMA),
        _empty(books.ATTACHMENT_SCHEMA),
        _empty(books.SOURCES_SCHEMA),
        chains,
        steps,
    )
    return draft_workflows(cands, blob_workbook_loader(blobs))


def test_timestamps_read_as_dates_and_row_formulas_are_copied_across(tmp_path):
    def before(wb):
        ws = wb.active
        ws.title = "Budget"
        ws["A1"] = dt.datetime(2001, 5, 25, 9, 20)
        for r in range(5, 12):
            for c in "BCDE":
                ws[f"{c}{r}"] = r * 10

    def after(wb):
        before(wb)
        ws = wb["Budget"]
        ws["A1"] = dt.datetime(2001, 8, 9)
        for c in "BCDE":
            ws[f"{c}12"] = f"=SUM({c}5:{c}11)"

    text = _draft_chain(tmp_path, "wording", [before, after]).row(0, named=True)["instruction"]
    assert "change 25 May 2001 09:20 to 9 Aug 2001" in text  # a date, never quoted as text
    assert "T09:20" not in text
    assert "In 'Budget'!B12:E12, put the formula =SUM(B5:B11) (and copy it across)." in text
    assert "copy it down" not in text


def test_deletions_say_which_addresses_they_use(tmp_path):
    def before(wb):
        ws = wb.active
        ws.title = "Live"
        for r in range(1, 8):
            ws.append([f"deal {r}", r * 100])

    def after(wb):
        before(wb)
        ws = wb["Live"]
        ws.delete_rows(2, 2)
        ws["B5"] = 999

    text = _draft_chain(tmp_path, "del", [before, after]).row(0, named=True)["instruction"]
    assert "Delete rows 2:3 of 'Live'." in text
    note = "Do the row and column deletions first: their numbers are those of the workbook"
    assert note in text and text.index(note) < text.index("Specifically:")
    assert "Cell addresses are those of the finished workbook." not in text


def test_merged_rounds_keep_every_style_bullet(tmp_path):
    from openpyxl.styles import PatternFill

    def v0(wb):
        ws = wb.active
        ws.title = "Sheet1"
        ws["P26"], ws["Q26"] = "Total", 10
        ws["Q26"].fill = PatternFill("solid", fgColor="FFFF99")
        ws["O23"], ws["Q23"] = "2002-05-01", 1

    def v1(wb):
        v0(wb)
        ws = wb["Sheet1"]
        ws["Q26"] = 12
        ws["O23"], ws["Q23"] = "2002-06-01", 2
        for a in ("O23", "Q23"):
            ws[a].fill = PatternFill("solid", fgColor="FFFF99")

    def v2(wb):
        v1(wb)
        wb["Sheet1"]["Q26"].fill = PatternFill(fill_type=None)

    drafts = _draft_chain(tmp_path, "rounds", [v0, v1, v2])
    merged = drafts.filter(pl.col("steps") == 2).row(0, named=True)
    text = merged["instruction"]
    assert "Remove the highlight from 'Sheet1'!Q26." in text
    assert "Highlight 'Sheet1'!O23 in light yellow (FFFF99)." in text
    assert "Highlight 'Sheet1'!Q23 in light yellow (FFFF99)." in text
    # what the checker requires of those cells is what the lines say
    assert "['Sheet1', 'Q26', 'I', '12', None, {'style': True, 'fill': None" in merged["checker"]
    assert "'O23', 'T', '2002-06-01', None, {'style': True, 'fill': 'FFFF99'" in merged["checker"]


def test_a_number_format_is_written_as_typed(tmp_path):
    """A format with backslashes is written as Excel holds it, not as a Python repr
    (audit 2026-12-02: a doubled backslash was written where the checker wants one)."""
    import openpyxl

    from pipeline.detect.diffs import diff_workbooks
    from pipeline.draft.workflow_requirements import style_lines
    from pipeline.ingest.workbooks import read_workbook
    from pipeline.judge.checker import build_checker

    fmt = '\\$#,##0.00_);[RED]"($"#,##0.00\\)'
    paths = []
    for name, with_format in (("in.xlsx", False), ("ref.xlsx", True)):
        wb = openpyxl.Workbook()
        wb.active["K40"] = 1234.5
        if with_format:
            wb.active["K40"].number_format = fmt
        wb.save(tmp_path / name)
        paths.append(tmp_path / name)
    before, after = (read_workbook(p) for p in paths)
    checker = build_checker(before, after)
    lines = style_lines(checker.required, before, diff_workbooks(before, after))
    assert lines == [f"format 'Sheet'!K40 as '{fmt}'"]
