"""The LLM drafter through the real OpenAI and Anthropic SDKs on a mocked transport: drafts
of the sample archive pass the normal validation, a malformed answer and an oracle that
breaks the sandbox rules are repaired, a rerun is served from the cache, the budget stops
new calls and a missing key stops everything before any request."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.config import data_paths
from pipeline.draft import DRAFTS_SCHEMA, draft_tasks
from pipeline.draft.llm import draft_with_llm
from pipeline.draft.sample import write_sample_warehouse
from pipeline.llm.client import make_llm
from pipeline.llm.errors import MissingKey
from pipeline.llm.transport import use_transport
from pipeline.roles import RoleError, check_keys, llm_budget, role_choice
from pipeline.store import Warehouse
from pipeline.validate.contamination import build_contamination_index
from pipeline.validate.tasks import validate_drafts
from tests.draft.fake_models import FakeModel

KEYS = {"OPENAI_API_KEY": "sk-test-openai-0000", "ANTHROPIC_API_KEY": "sk-ant-test-0000"}


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    root = tmp_path_factory.mktemp("llm-draft")
    paths = data_paths(root)
    frames = write_sample_warehouse(Warehouse(paths), seed=11)
    contamination = build_contamination_index(paths.warehouse)
    template = draft_tasks(
        frames["anchored_cells"], frames["tables"], frames["documents"],
        seed=2, table_cells=frames["table_cells"],
    )  # fmt: skip
    checked = validate_drafts(template, paths.warehouse, contamination)
    return paths, frames, contamination, checked


def _draft(llm, paths, frames, **kwargs):
    return draft_with_llm(
        llm,
        frames["anchored_cells"],
        frames["tables"],
        frames["documents"],
        paths.warehouse,
        table_cells=frames["table_cells"],
        seed=2,
        **kwargs,
    )


@pytest.fixture(scope="module")
def openai_run(archive, tmp_path_factory):
    paths, frames, contamination, _ = archive
    cache = tmp_path_factory.mktemp("cache-openai")
    fake = FakeModel(static={"difference"}, schema={"read_number"})
    with pytest.MonkeyPatch.context() as mp, use_transport(fake.transport()):
        for k, v in KEYS.items():
            mp.setenv(k, v)
        llm = make_llm("openai:gpt-4.1-mini", paths, cache_dir=cache)
        first = _draft(llm, paths, frames)
        n_first = len(fake.requests)
        again_llm = make_llm("openai:gpt-4.1-mini", paths, cache_dir=cache)
        again = _draft(again_llm, paths, frames)
    tasks = validate_drafts(first.drafts, paths.warehouse, contamination)
    return {
        "fake": fake, "first": first, "again": again, "n_first": n_first, "llm": llm,
        "again_llm": again_llm, "tasks": tasks,
    }  # fmt: skip


def test_llm_drafts_pass_the_normal_validation(archive, openai_run):
    _, _, _, checked = archive
    drafts, tasks = openai_run["first"].drafts, openai_run["tasks"]
    assert drafts.schema == pl.Schema(DRAFTS_SCHEMA)
    assert set(drafts["drafter"]) == {"openai:gpt-4.1-mini"}
    assert (drafts["tokens"] > 0).all() and (drafts["cost"] > 0).all()
    # every candidate the template gets accepted is accepted from the model's draft too
    template_ok = set(checked.filter(pl.col("status") == "accepted")["task_id"])
    llm_ok = set(tasks.filter(pl.col("status") == "accepted")["task_id"])
    assert template_ok and llm_ok == template_ok
    # the model's own known-wrong answers are there, with their reasons
    row = tasks.filter(pl.col("status") == "accepted").row(0, named=True)
    assert any(
        w["family"] == "other_base" and "thousands" in w["reason"] for w in row["known_wrong"]
    )
    assert "from oracles.api import emit, table_cell" in row["oracle_source"]
    assert openai_run["first"].stats["candidates"] == len(drafts)


def test_a_malformed_answer_and_a_forbidden_import_are_repaired(openai_run):
    fake, stats = openai_run["fake"], openai_run["first"].stats
    drafts = openai_run["first"].drafts
    broken = fake.count("difference", repairs=False) + fake.count("read_number", repairs=False)
    assert broken > 0
    assert fake.count(repairs=True) == broken == stats["repair_requests"] == stats["repaired"]
    assert not any("import os" in s for s in drafts["oracle_source"])
    repairs = [r["body"]["messages"] for r in fake.requests if len(r["body"]["messages"]) > 2]
    feedback = [m[-1]["content"] for m in repairs]
    assert any("oracle_failed: rejected" in f and "os" in f for f in feedback)
    assert any("llm_output" in f or "schema" in f for f in feedback)
    # the repair turn shows the model its own answer
    assert all(m[-2]["role"] == "assistant" for m in repairs)


def test_a_rerun_is_served_from_the_cache(openai_run):
    assert openai_run["n_first"] == len(openai_run["fake"].requests)  # nothing after the rerun
    stats = openai_run["again_llm"].stats
    assert stats["requests"] == 0 and stats["cache_hits"] == openai_run["n_first"]
    assert stats["cost_usd"] == 0
    assert openai_run["again"].drafts.equals(openai_run["first"].drafts)
    assert openai_run["llm"].stats["requests"] == openai_run["n_first"]


def test_anthropic_drafts_through_tool_use(archive, tmp_path):
    paths, frames, contamination, checked = archive
    fake = FakeModel(schema={"sum_rows"})
    with pytest.MonkeyPatch.context() as mp, use_transport(fake.transport()):
        for k, v in KEYS.items():
            mp.setenv(k, v)
        llm = make_llm("anthropic:claude-haiku-4-5", paths, cache_dir=tmp_path)
        run = _draft(llm, paths, frames, limit=20)
    assert all("/v1/messages" in r["url"] for r in fake.requests)
    assert set(run.drafts["drafter"]) == {"anthropic:claude-haiku-4-5"}
    tasks = validate_drafts(run.drafts, paths.warehouse, contamination)
    template_ok = set(checked.filter(pl.col("status") == "accepted")["task_id"])
    llm_ok = set(tasks.filter(pl.col("status") == "accepted")["task_id"])
    assert llm_ok == template_ok & set(run.drafts["task_id"]) and llm_ok
    assert run.stats["repaired"] == fake.count("sum_rows", repairs=False) > 0


def test_without_repair_a_broken_draft_is_rejected_with_the_reason(archive, tmp_path):
    paths, frames, contamination, _ = archive
    fake = FakeModel(static={"difference"}, schema={"read_number"})
    with pytest.MonkeyPatch.context() as mp, use_transport(fake.transport()):
        mp.setenv("OPENAI_API_KEY", KEYS["OPENAI_API_KEY"])
        llm = make_llm("openai:gpt-4.1-mini", paths, cache_dir=tmp_path)
        run = _draft(llm, paths, frames, repair_rounds=0, limit=40)
    tasks = validate_drafts(run.drafts, paths.warehouse, contamination)
    reasons = {
        kind: {
            r.split(":")[0] for rs in tasks.filter(pl.col("kind") == kind)["reasons"] for r in rs
        }
        for kind in ("difference", "read_number")
    }
    assert "oracle_failed" in reasons["difference"]
    assert {"no_oracle", "llm_output"} <= reasons["read_number"]
    assert fake.count(repairs=True) == 0


def test_the_budget_stops_new_calls_and_keeps_what_was_received(archive, tmp_path):
    paths, frames, _, _ = archive
    fake = FakeModel()
    with pytest.MonkeyPatch.context() as mp, use_transport(fake.transport()):
        mp.setenv("OPENAI_API_KEY", KEYS["OPENAI_API_KEY"])
        llm = make_llm(
            "openai:gpt-4.1-mini", paths, cache_dir=tmp_path, budget_usd=1e-9, concurrency=1
        )
        run = _draft(llm, paths, frames, limit=10)
    assert len(fake.requests) == 1 and len(run.drafts) == 1
    assert run.stats["skipped_budget"] == 9 and llm.stats["budget_stopped"]


def test_a_missing_key_fails_before_any_request(archive, tmp_path, monkeypatch):
    paths, frames, _, _ = archive
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    fake = FakeModel()
    with use_transport(fake.transport()):
        llm = make_llm("anthropic:claude-haiku-4-5", paths, cache_dir=tmp_path)
        with pytest.raises(MissingKey, match="ANTHROPIC_API_KEY"):
            _draft(llm, paths, frames, limit=3)
    assert fake.requests == []
    with pytest.raises(MissingKey, match="ANTHROPIC_API_KEY"):
        check_keys({"drafter": "anthropic:claude-haiku-4-5", "judge": "template"})


def test_role_choices_from_fields_environment_and_defaults(monkeypatch):
    monkeypatch.delenv("LEDGERFORGE_DRAFTER", raising=False)
    monkeypatch.delenv("LEDGERFORGE_LLM_BUDGET", raising=False)
    monkeypatch.delenv("LEDGERFORGE_LLM_BUDGET_USD", raising=False)
    assert role_choice("drafter") == "template" and role_choice("rewriter") == "none"
    monkeypatch.setenv("LEDGERFORGE_DRAFTER", "OpenAI:gpt-4.1-mini")
    assert role_choice("drafter") == "openai:gpt-4.1-mini"
    assert role_choice("drafter", "none") == "none"
    with pytest.raises(RoleError, match="LEDGERFORGE_JUDGE"):
        role_choice("judge", "gpt-4")
    assert llm_budget() is None
    monkeypatch.setenv("LEDGERFORGE_LLM_BUDGET", "2.5")
    assert llm_budget() == 2.5 and llm_budget("0.1") == 0.1
    with pytest.raises(RoleError):
        llm_budget("lots")


def test_the_context_shows_the_table_cells_kind_api_and_another_example(archive):
    import json
    import re

    from pipeline.draft.llm_context import ContextBuilder
    from pipeline.draft.template import template_candidates

    _, frames, _, _ = archive
    archive_, candidates = template_candidates(
        frames["anchored_cells"], frames["tables"], frames["documents"],
        seed=2, table_cells=frames["table_cells"],
    )  # fmt: skip
    builder = ContextBuilder(archive_, candidates, frames["table_cells"])
    spec, row = next((s, r) for s, r in candidates if s.kind == "difference")
    prompt = builder.prompt(spec, row)
    context = json.loads(re.search(r"```json\n(.*?)\n```", prompt, re.DOTALL).group(1))
    assert context["task"]["kind"] == "difference" and context["task"]["operation"] == "difference"
    assert (
        context["task"]["unit"] == row["unit"] and context["task"]["precision"] == row["precision"]
    )
    calls = [c["call"] for c in context["cells"]]
    assert calls and all(c in row["oracle_source"] for c in calls)
    (table,) = context["tables"]
    source = row["sources"][0]
    assert (table["doc"], table["page"]) == (source["doc_id"], source["page_no"])
    assert table["unit"] == row["unit"] and table["statement"]
    read = [r for r in table["rows"] if "*:" in r]
    assert len(read) == len(calls) and all("[confirmed]" in r for r in read)
    assert "emit(answer=" in prompt and "oracles.api" in prompt
    # the worked example is the template's oracle for other cells, never this task's
    assert context["example"]["oracle"] != row["oracle_source"]
    assert not any(c in context["example"]["oracle"] for c in calls)
    assert builder.prompt(spec, row) == prompt  # byte-stable: the cache key does not drift
