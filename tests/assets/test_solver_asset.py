"""The optional ``solver_trial`` asset: empty and offline with solver=none; with a model
(through the mocked transport) it writes the trial, and the release applies it."""

from __future__ import annotations

import dagster as dg
import polars as pl
import pytest

from assets.resources import LedgerForge
from assets.solver import solver_trial_table
from pipeline.llm.transport import use_transport
from pipeline.store import Warehouse
from pipeline.validate.solver_trial import apply_solver_trial
from tests.grade.llm_fixtures import OPENAI_KEY, MockAPI, build_sample_release


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    return build_sample_release(tmp_path_factory.mktemp("asset_sample"))


def test_solver_none_writes_an_empty_trial_and_calls_nothing(sample, monkeypatch):
    monkeypatch.delenv("LEDGERFORGE_SOLVER", raising=False)
    api = MockAPI(lambda call: {"answer": "1", "figures": [], "reasoning": ""})
    lf = LedgerForge(data_root=str(sample.paths.root))
    with use_transport(api.transport):
        result = dg.materialize([solver_trial_table], resources={"lf": lf})
    assert result.success and api.calls == []
    assert Warehouse(sample.paths).read("solver_trial").height == 0


def test_solver_model_writes_the_trial(sample, monkeypatch, tmp_path):
    config = tmp_path / "llm.yaml"
    config.write_text(
        "prices:\n  openai:gpt-test: {input: 0.4, output: 1.6}\n"
        "defaults:\n  concurrency: 2\n  max_retries: 0\n  timeout_s: 5\n  budget_usd: null\n"
    )
    monkeypatch.setenv("LEDGERFORGE_LLM_CONFIG", str(config))
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("LEDGERFORGE_SOLVER", "openai:gpt-test")
    monkeypatch.delenv("LEDGERFORGE_LLM_BUDGET_USD", raising=False)
    monkeypatch.delenv("LEDGERFORGE_LLM_BUDGET", raising=False)
    api = MockAPI(lambda call: {"answer": "123456789", "figures": [], "reasoning": "a guess"})
    lf = LedgerForge(data_root=str(sample.paths.root))
    with use_transport(api.transport):
        result = dg.materialize([solver_trial_table], resources={"lf": lf})
    assert result.success
    wh = Warehouse(sample.paths)
    trial = wh.read("solver_trial")
    accepted = sample.tasks.filter(pl.col("status") == "accepted").height
    assert trial.height == accepted == len(api.calls)
    assert (trial["outcome"] == "new_wrong").all()
    (materialization,) = result.asset_materializations_for_node("solver_trial")
    assert materialization.metadata["new_wrong"].value == accepted
    updated = apply_solver_trial(wh.read("tasks"), trial)
    added = (
        updated.select(pl.col("known_wrong").list.len()).to_series()
        - sample.tasks.select(pl.col("known_wrong").list.len()).to_series()
    )
    assert int(added.sum()) == accepted
