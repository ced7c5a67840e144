"""Rewrite mode: a rewording that keeps what the question asks replaces it; one that drops
or changes the period, unit, precision, sign convention or a label is rejected, the
drafted question kept and the reason recorded."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.config import data_paths
from pipeline.draft import draft_tasks
from pipeline.draft.rewrite import REWRITES_SCHEMA, rewrite_drafts, rewrite_problems
from pipeline.draft.sample import write_sample_warehouse
from pipeline.llm.client import make_llm
from pipeline.llm.transport import use_transport
from pipeline.store import Warehouse
from pipeline.validate.contamination import build_contamination_index
from pipeline.validate.reading import ReadingContext
from pipeline.validate.tasks import validate_drafts
from tests.draft.fake_models import FakeModel


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("rewrite")
    paths = data_paths(root)
    frames = write_sample_warehouse(Warehouse(paths), seed=11)
    drafts = draft_tasks(
        frames["anchored_cells"], frames["tables"], frames["documents"],
        seed=2, table_cells=frames["table_cells"],
    )  # fmt: skip
    context = ReadingContext.load(paths.warehouse, drafts)
    return paths, drafts, context


def _first(drafts: pl.DataFrame, kind: str, needle: str = "") -> dict:
    return next(
        r for r in drafts.iter_rows(named=True) if r["kind"] == kind and needle in r["question"]
    )


def _rules(reasons: list[str]) -> set[str]:
    return {r.split(":")[0] for r in reasons}


def test_a_rewording_that_keeps_the_meaning_passes(sample):
    _, drafts, context = sample
    row = _first(drafts, "read_number", "Round to the nearest whole number.")
    text = (
        row["question"]
        .replace("What was", "How much was")
        .replace("Round to the nearest whole number.", "Give a whole number.")
    )
    assert text != row["question"]
    assert rewrite_problems(row, text, context) == []


def test_a_rewrite_that_changes_the_unit_is_rejected(sample):
    _, drafts, context = sample
    row = _first(drafts, "read_number", "millions of dollars")
    text = row["question"].replace("millions of dollars", "thousands of dollars")
    reasons = rewrite_problems(row, text, context)
    assert "rewrite_unit" in _rules(reasons), reasons
    assert any("'millions of dollars' became 'thousands of dollars'" in r for r in reasons)


@pytest.mark.parametrize(
    ("kind", "needle", "old", "new", "rule"),
    [
        ("read_number", "1946", "1946", "1947", "rewrite_period"),
        ("read_number", "Round to the nearest whole number.",
         "Round to the nearest whole number.", "Round to 1 decimal place.", "rewrite_precision"),
        ("read_number", "Round to the nearest whole number.",
         " Round to the nearest whole number.", "", "rewrite_unreadable"),
        ("difference", "(negative if smaller)", " (negative if smaller)", "", "rewrite_sign"),
        ("read_number", "Excise taxes", "Excise taxes", "Customs", "rewrite_labels"),
    ],
)  # fmt: skip
def test_a_rewrite_that_drops_or_changes_what_is_asked_is_rejected(
    sample, kind, needle, old, new, rule
):
    _, drafts, context = sample
    row = _first(drafts, kind, needle)
    text = row["question"].replace(old, new, 1)
    assert text != row["question"]
    assert rule in _rules(rewrite_problems(row, text, context)), (text, row["question"])


@pytest.mark.parametrize("provider", ["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"])
def test_rewriter_through_the_sdks_keeps_the_drafted_question_when_it_rejects(
    sample, provider, tmp_path, monkeypatch
):
    paths, drafts, _ = sample
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai-0000")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    for unit_swap in (False, True):
        fake = FakeModel(unit_swap=unit_swap)
        with use_transport(fake.transport()):
            llm = make_llm(provider, paths, cache_dir=tmp_path / str(unit_swap))
            out, log = rewrite_drafts(llm, drafts, paths.warehouse)
        assert log.schema == pl.Schema(REWRITES_SCHEMA) and len(log) == len(drafts)
        assert len(fake.requests) == len(drafts)
        by_id = {r["task_id"]: r for r in out.iter_rows(named=True)}
        accepted = log.filter(pl.col("accepted"))
        for r in log.iter_rows(named=True):
            row = by_id[r["task_id"]]
            if r["accepted"]:
                assert row["question"] == r["rewrite"] != r["original"]
                assert row["drafter"] == f"template-v2+{provider}" and row["tokens"] > 0
            else:
                assert row["question"] == r["original"] and row["drafter"] == "template-v2"
                assert r["reasons"]
        millions = log.filter(pl.col("original").str.contains("millions of dollars"))
        if unit_swap:
            assert millions.height and not millions["accepted"].any()
            assert all("rewrite_unit" in _rules(rs) for rs in millions["reasons"])
        else:
            assert accepted.height > 0
            # an unchanged rewording is not counted as a rewrite; every changed one passes
            changed = log.filter(pl.col("rewrite") != pl.col("original"))
            assert changed["accepted"].all(), changed.filter(~pl.col("accepted"))["reasons"]
            contamination = build_contamination_index(paths.warehouse)
            before = validate_drafts(drafts, paths.warehouse, contamination)
            after = validate_drafts(out, paths.warehouse, contamination)
            assert before["status"].to_list() == after["status"].to_list()
