"""The LLM workflow-instruction drafter through the real SDK clients on a mocked HTTP
transport: scrubbed context, accepted rewrites, rewrites rejected for a leak or an
omission (template kept), the repair round, and the cache on a rerun."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.draft.schemas import WORKFLOW_DRAFTS_SCHEMA
from pipeline.draft.scrub import People, personal_data
from pipeline.draft.workflow_candidates import build_workflow_candidates
from pipeline.draft.workflow_llm import (
    WORKFLOW_REWRITES_SCHEMA,
    Requirements,
    check_instruction,
    draft_workflows_llm,
    missing_requirements,
    requirements_from_lines,
)
from pipeline.draft.workflows import blob_workbook_loader, draft_workflows
from pipeline.llm.transport import use_transport
from tests.draft import workflow_books as books
from tests.draft.test_workflows import _empty, _thread_frames, corpus  # noqa: F401 - fixture
from tests.judge.llm_mock import MockProvider, first_user_text, make_test_llm

LEAKS = ("Sally", "John", "Arnold", "713-853-6197", "enron.com")


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-sentinel-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-sentinel-x")


@pytest.fixture
def drafted(corpus):  # noqa: F811 - the fixture imported above
    blobs, ids = corpus
    chains, steps = books.chain_frames({"sales": ids["sales"], "ins": ids["ins"]})
    threads, messages, attachments = _thread_frames(ids, attach_revision=True)
    cands = build_workflow_candidates(
        threads, messages, attachments, _empty(books.SOURCES_SCHEMA), chains, steps
    )
    load = blob_workbook_loader(blobs)
    drafts = draft_workflows(cands, load, messages=messages, threads=threads)
    return {
        "drafts": drafts,
        "load": load,
        "candidates": cands,
        "messages": messages,
        "threads": threads,
    }


def template_of(prompt: str) -> str:
    return prompt.split("## A plain version of the instruction\n", 1)[1].split("\n\n## Rules", 1)[0]


WEST = "West Q2"


def colleague(prompt: str) -> dict:
    """A well-behaved model: the strong thread draft in its own words, the others as
    the template with a friendlier opening."""
    if "update West Q2 in the sales sheet to 97" in prompt and "rounds of edits" not in prompt:
        return {
            "instruction": "Hi, your manager asked for the West Q2 figure to be corrected. "
            "In the Sales sheet, please change C3 from 95 to 97 and leave the rest as is. "
            "Send the workbook back when done, thanks!"
        }
    return {"instruction": "Hello! " + template_of(prompt)}


def run(drafted, llm, repairs=1):
    return draft_workflows_llm(
        drafted["drafts"],
        llm,
        drafted["load"],
        candidates=drafted["candidates"],
        messages=drafted["messages"],
        threads=drafted["threads"],
        repairs=repairs,
    )


def strong_id(drafts: pl.DataFrame) -> str:
    return drafts.filter(pl.col("grounding") == "strong")["task_id"][0]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_rewrites_accepted_and_context_scrubbed(provider, drafted, tmp_path):
    mock = MockProvider(lambda prompt, body: colleague(prompt))
    llm = make_test_llm(provider, tmp_path)
    with use_transport(mock.transport()):
        drafts, rewrites = run(drafted, llm)
    template = drafted["drafts"]
    assert drafts.schema == pl.Schema(WORKFLOW_DRAFTS_SCHEMA)
    assert rewrites.schema == pl.Schema(WORKFLOW_REWRITES_SCHEMA)
    assert set(rewrites["status"]) == {"accepted"}, rewrites.select("status", "reason").rows()
    assert len(mock.requests) == template.height  # one call per draft, no repair needed
    # nothing personal was sent: the goal sentences are scrubbed before the prompt
    for req in mock.requests:
        sent = first_user_text(req["body"])
        for leaked in LEAKS:
            assert leaked not in sent
    thread_prompt = next(
        first_user_text(r["body"]) for r in mock.requests if "West Q2" in first_user_text(r["body"])
    )
    assert '- "Can you update West Q2 in the sales sheet to 97?"' in thread_prompt
    assert "## Sheet: Sales" in thread_prompt and "(C3, 95, I, )" in thread_prompt
    assert "- in 'Sales'!C3, change 95 to 97" in thread_prompt
    # the rewrite replaced the instruction; the checker and the rest are the template's
    sid = strong_id(drafts)
    row = drafts.filter(pl.col("task_id") == sid).row(0, named=True)
    old = template.filter(pl.col("task_id") == sid).row(0, named=True)
    assert row["instruction"].startswith("Hi, your manager asked for the West Q2 figure")
    assert row["drafter"] == f"workflow-llm-v1:{llm.spec}"
    assert {k: v for k, v in row.items() if k not in ("instruction", "drafter")} == {
        k: v for k, v in old.items() if k not in ("instruction", "drafter")
    }
    assert rewrites["input_tokens"].sum() > 0 and rewrites["cost_usd"].sum() > 0
    # a rerun is answered from the cache: zero HTTP requests, zero cost
    before = len(mock.requests)
    with use_transport(mock.transport()):
        _, again = run(drafted, make_test_llm(provider, tmp_path))
    assert len(mock.requests) == before
    assert again["cached"].all() and again["cost_usd"].sum() == 0


def test_rewrite_leaking_personal_data_is_rejected(drafted, tmp_path):
    def leaky(prompt, body):
        first = first_user_text(body)  # the task, also in a repair round
        if "update West Q2 in the sales sheet to 97" in first and "rounds of" not in first:
            return {
                "instruction": "Hi Sally, John wants C3 in the Sales sheet changed to 97. "
                "Call him at 713-853-6197 if unclear."
            }
        return colleague(first)

    mock = MockProvider(leaky)
    with use_transport(mock.transport()):
        drafts, rewrites = run(drafted, make_test_llm("openai", tmp_path))
    sid = strong_id(drafts)
    rejected = rewrites.filter(pl.col("task_id") == sid).row(0, named=True)
    assert rejected["status"] == "rejected" and rejected["rounds"] == 2  # repair tried
    assert rejected["reason"] == "personal_data: the rewrite holds name, phone"
    assert rejected["instruction"] is None and rejected["input_tokens"] > 0
    assert rejected["instruction"] is None  # the leaking text is never kept
    kept = drafts.filter(pl.col("task_id") == sid).row(0, named=True)
    template = drafted["drafts"].filter(pl.col("task_id") == sid).row(0, named=True)
    assert kept["instruction"] == template["instruction"]
    assert kept["drafter"] == "workflow-template-v1"
    for leaked in LEAKS:
        assert leaked not in kept["instruction"]
    # the repair request says why, without repeating the personal data
    repair = [r for r in mock.requests if len(r["body"]["messages"]) >= 3]
    assert len(repair) == 1
    feedback = repair[0]["body"]["messages"][-1]["content"]
    assert "personal_data" in feedback and "713-853-6197" not in feedback
    # the other drafts were rewritten as usual
    others = rewrites.filter(pl.col("task_id") != sid)
    assert set(others["status"]) == {"accepted"}


def test_omission_repaired_then_accepted(drafted, tmp_path):
    def forgetful(prompt, body):
        if "Your previous answer cannot be used" in prompt:
            assert "omits_required: the rewrite does not name cell C3" in prompt
            return colleague(first_user_text(body))
        if "update West Q2 in the sales sheet to 97" in prompt and "rounds of" not in prompt:
            return {"instruction": "Hi, please set West's Q2 number to 97 in Sales. Thanks!"}
        return colleague(prompt)

    mock = MockProvider(forgetful)
    with use_transport(mock.transport()):
        drafts, rewrites = run(drafted, make_test_llm("anthropic", tmp_path))
    sid = strong_id(drafts)
    row = rewrites.filter(pl.col("task_id") == sid).row(0, named=True)
    assert row["status"] == "accepted" and row["rounds"] == 2
    assert "C3" in drafts.filter(pl.col("task_id") == sid)["instruction"][0]
    # with no repair round the omission is final and the template stays
    mock2 = MockProvider(forgetful)
    with use_transport(mock2.transport()):
        drafts0, rewrites0 = run(drafted, make_test_llm("anthropic", tmp_path / "b"), repairs=0)
    row0 = rewrites0.filter(pl.col("task_id") == sid).row(0, named=True)
    assert row0["status"] == "rejected" and row0["reason"].startswith("omits_required")
    assert drafts0.filter(pl.col("task_id") == sid)["drafter"][0] == "workflow-template-v1"


def test_malformed_answer_keeps_the_template(drafted, tmp_path):
    mock = MockProvider(lambda prompt, body: "Sure! Here is the e-mail: Hi, ...")
    with use_transport(mock.transport()):
        drafts, rewrites = run(drafted, make_test_llm("openai", tmp_path))
    assert set(rewrites["status"]) == {"rejected"}
    assert all(r.startswith("schema_violation") for r in rewrites["reason"])
    assert (rewrites["rounds"] == 2).all()
    assert drafts["instruction"].to_list() == drafted["drafts"]["instruction"].to_list()


def test_requirements_from_template_lines():
    lines = [
        "in 'Sales'!C3, change 95 to 97",
        "in 'Sales'!E2:E5, put the formula =SUM(B2:D2) (and copy it down)",
        "insert 1 new row at 4:4 in 'Sales'",
        "fill in 'Central', 70, 72, 74 in 'Sales'!A4:D4",
        "enter 1,250.5 in 'Summary'!B1",
    ]
    req = requirements_from_lines(lines)
    assert req.spans == ("C3", "E2:E5", "A4:D4", "B1")
    assert req.values == ("97", "Central", "70", "72", "74", "1,250.5")
    assert req.formulas == ("=SUM(B2:D2)",)
    req = Requirements(("Sales", "Summary"), req.spans, req.values, req.formulas)
    ok = (
        "In Sales, make C3 97; put =SUM(B2:D2) in E2 and copy it down to E5; insert a row "
        "at 4 with Central, 70, 72 and 74 in A4 to D4; and in Summary enter 1250.5 in B1."
    )
    assert check_instruction(ok, req, People()) is None
    short = ok.replace("Summary", "the other sheet").replace("=SUM(B2:D2)", "the sum")
    why = check_instruction(short, req, People())
    assert why == "omits_required: the rewrite does not name sheet 'Summary', formula =SUM(B2:D2)"
    assert check_instruction("  ", req, People()).startswith("empty")


def test_axis_edits_and_formats_are_required():
    lines = [
        "insert 2 new columns at Y:Z in 'Sheet1'",
        "delete rows 8:8 of 'Sheet1'",
        "format 'Sheet1'!B2:B5 as '#,##0.00'",
        "add a bar chart to 'Sheet1' (at E2)",
    ]
    req = requirements_from_lines(lines)
    assert req.axes == ("insert columns Y:Z", "delete rows 8:8")
    assert req.values == ("#,##0.00", "chart") and req.spans == ("B2:B5",)
    said = (
        "In Sheet1, insert two new columns Y and Z, then delete row 8. Format B2 to B5 as "
        "#,##0.00 and add a bar chart at E2."
    )
    assert missing_requirements(said, req) == []
    assert missing_requirements(said.replace("delete row 8", "tidy up"), req) == ["delete rows 8:8"]
    assert missing_requirements(said.replace("columns Y and Z", "columns"), req) == [
        "insert columns Y:Z"
    ]


@pytest.mark.real_data
def test_real_drafts_template_echo_accepted_and_dropped_edit_rejected(shared_data, tmp_path):
    """On the SpreadsheetBench pairs (first pair of each task): a model that returns the
    template's own instruction is always accepted; one that drops the first edit line is
    rejected (measured on all 150 pairs: 133/133 echoes accepted, 130/133 drops rejected;
    the 3 kept repeat the dropped cells on another sheet)."""
    import hashlib

    from pipeline.draft.schemas import WORKFLOW_CANDIDATES_SCHEMA
    from pipeline.ingest.workbooks import ingest_workbooks
    from pipeline.store import BlobStore

    pairs = []
    for folder in sorted((shared_data / "spreadsheetbench" / "spreadsheet").iterdir()):
        inputs = sorted(folder.glob("1_*_input.xlsx"))
        if inputs:
            pairs.append(
                (inputs[0], inputs[0].with_name(inputs[0].name.replace("_input", "_answer")))
            )
    blobs = BlobStore(str(tmp_path / "blobs"))
    ingest_workbooks([p for pair in pairs for p in pair], blobs)
    sha = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()  # noqa: E731
    rows = [
        dict(candidate_id=inp.stem, origin="chain", grounding="partial", message_keys=[],
             goal_sentences=[], chain_id=inp.parent.name, before_id=sha(inp),
             after_id=sha(ans), steps=1, step_ids=[inp.stem], task_types=[])
        for inp, ans in pairs
    ]  # fmt: skip
    load = blob_workbook_loader(blobs)
    drafts = draft_workflows(pl.DataFrame(rows, schema=WORKFLOW_CANDIDATES_SCHEMA), load)

    def echo(prompt, body):
        return {"instruction": template_of(first_user_text(body))}

    def drop(prompt, body):
        lines = template_of(first_user_text(body)).split("\n")
        del lines[next(i for i, line in enumerate(lines) if line.startswith("- "))]
        return {"instruction": "\n".join(lines)}

    outcome = {}
    for name, answer in (("echo", echo), ("drop", drop)):
        mock = MockProvider(answer)
        with use_transport(mock.transport()):
            _, rw = draft_workflows_llm(drafts, make_test_llm("openai", tmp_path / name), load,
                                        repairs=0)  # fmt: skip
        outcome[name] = dict(rw.group_by("status").len().iter_rows())
        # nothing sent holds personal data (context scrubbed like the template)
        for req in mock.requests:
            assert personal_data(first_user_text(req["body"])) == []
    sent = outcome["echo"]["accepted"]
    assert sent >= 40 and "rejected" not in outcome["echo"]
    assert outcome["drop"].get("rejected", 0) >= 0.95 * sent
