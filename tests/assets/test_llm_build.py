"""End-to-end Dagster builds of a small generated scanned corpus with an LLM drafter
(``openai:MODEL`` and ``anthropic:MODEL``) against a mocked transport: the real SDK
clients, the normal validation, accepted tasks; a second build makes zero HTTP requests.
A missing API key stops ``ledgerforge build`` before anything runs."""

from __future__ import annotations

import dagster as dg
import polars as pl
import pytest
from typer.testing import CliRunner

from assets.definitions import all_assets, all_checks
from assets.resources import LedgerForge
from pipeline.cli import app
from pipeline.config import data_paths
from pipeline.draft.workbook_qa import WORKBOOK_KINDS
from pipeline.llm.errors import MissingKey
from pipeline.llm.transport import use_transport
from pipeline.store import Warehouse
from tests.draft.fake_models import FakeModel

KEYS = {"OPENAI_API_KEY": "sk-test-openai-0000", "ANTHROPIC_API_KEY": "sk-ant-test-0000"}
OPENAI = "openai:gpt-4.1-mini"
ANTHROPIC = "anthropic:claude-haiku-4-5"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from pipeline.synth.scans import generate_scans

    root = tmp_path_factory.mktemp("llm-build")
    return root, generate_scans(
        root / "scans", seed=11, volumes=2, tables_per_volume=3, progress=False
    )


def _meta(result: dg.ExecuteInJobResult, asset: str) -> dict:
    (event,) = result.asset_materializations_for_node(asset)
    return {k: v.value for k, v in event.metadata.items()}


def _schema_name(body: dict) -> str:
    if "response_format" in body:
        return body["response_format"]["json_schema"]["name"]
    return body["tools"][0]["name"]


def _tasks(lf: LedgerForge) -> pl.DataFrame:
    tasks = Warehouse(data_paths(lf.data_root)).read("tasks")
    return tasks.filter(~pl.col("kind").is_in(list(WORKBOOK_KINDS)))


@pytest.fixture(scope="module")
def builds(corpus):
    """The whole graph built with the OpenAI drafter twice, then drafts + tasks rebuilt
    with the Anthropic drafter and the OpenAI rewriter twice, on one data root."""
    root, scans = corpus
    out: dict = {}
    with pytest.MonkeyPatch.context() as mp:
        for k, v in KEYS.items():
            mp.setenv(k, v)
        base = dict(data_root=str(root / "data"), scan_sources=f"synth={scans.root}")
        fake = FakeModel(static={"difference"})
        lf = LedgerForge(**base, drafter=OPENAI, llm_budget="5")
        with use_transport(fake.transport()):
            first = dg.materialize([*all_assets, *all_checks], resources={"lf": lf})
            n_first = len(fake.requests)
            out["openai_tasks"] = _tasks(lf)
            second = dg.materialize([*all_assets, *all_checks], resources={"lf": lf})
            out["openai_again"] = _tasks(lf)
        out["openai"] = (fake, n_first, first, second, lf)
        fake = FakeModel(schema={"sum_rows"})  # one fake behind both providers' endpoints
        lf = LedgerForge(**base, drafter=ANTHROPIC, rewriter=OPENAI)
        with use_transport(fake.transport()):
            select = ["drafts", "tasks"]
            first = dg.materialize(all_assets, resources={"lf": lf}, selection=select)
            n_first = len(fake.requests)
            out["anthropic_tasks"] = _tasks(lf)
            out["rewrites"] = Warehouse(data_paths(lf.data_root)).read("rewrites")
            second = dg.materialize(all_assets, resources={"lf": lf}, selection=select)
            out["anthropic_again"] = _tasks(lf)
        out["anthropic"] = (fake, n_first, first, second, lf)
        # back to the OpenAI drafter without a rewriter: all from the cache, no stale log
        fake = FakeModel()
        with use_transport(fake.transport()):
            lf = LedgerForge(**base, drafter=OPENAI)
            dg.materialize(all_assets, resources={"lf": lf}, selection=["drafts"])
        out["back"] = (fake, Warehouse(data_paths(lf.data_root)).read("rewrites"))
    return out


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_llm_drafter_build_gives_accepted_tasks_and_reruns_from_the_cache(builds, provider):
    fake, n_first, first, second, lf = builds[provider]
    assert first.success and second.success
    choice = OPENAI if provider == "openai" else ANTHROPIC
    tasks = builds[f"{provider}_tasks"]
    accepted = tasks.filter(pl.col("status") == "accepted")
    assert set(tasks["drafter"]) <= {choice, f"{choice}+{OPENAI}"}
    assert accepted.height >= 5 and accepted["kind"].n_unique() >= 3
    assert (accepted["tokens"] > 0).all() and (accepted["cost"] > 0).all()
    # the first build paid for every draft (and its repairs), the second for nothing
    assert n_first > 0 and len(fake.requests) == n_first
    meta1, meta2 = _meta(first, "drafts"), _meta(second, "drafts")
    roles = ["drafter"] + (["rewriter"] if provider == "anthropic" else [])
    assert meta1["drafter"] == choice
    assert sum(meta1[f"{r}_llm_requests"] for r in roles) == n_first
    assert all(meta1[f"{r}_llm_cost_usd"] > 0 for r in roles)
    assert all(meta2[f"{r}_llm_requests"] == 0 == meta2[f"{r}_llm_cost_usd"] for r in roles)
    assert sum(meta2[f"{r}_llm_cache_hits"] for r in roles) == n_first
    assert meta1["drafter_repaired"] > 0 and meta1["drafter_repair_requests"] > 0
    # the rerun writes the same tasks
    assert builds[f"{provider}_again"].equals(tasks)
    # the URL shows which SDK talked
    drafting = [r for r in fake.requests if _schema_name(r["body"]) == "qa_draft"]
    path = "/chat/completions" if provider == "openai" else "/v1/messages"
    assert drafting and all(path in r["url"] for r in drafting)


def test_rewrites_are_checked_and_recorded(builds):
    _, _, first, _, lf = builds["anthropic"]
    tasks = builds["anthropic_tasks"]
    rewrites = builds["rewrites"]
    meta = _meta(first, "drafts")
    assert meta["rewrites_accepted"] == rewrites["accepted"].sum() > 0
    assert meta["rewrites_accepted"] + meta["rewrites_rejected"] == len(rewrites)
    rewritten = tasks.filter(pl.col("drafter") == f"{ANTHROPIC}+{OPENAI}")
    assert rewritten.height == meta["rewrites_accepted"]
    by_id = dict(zip(rewrites["task_id"], rewrites["rewrite"], strict=True))
    pairs = zip(rewritten["task_id"], rewritten["question"], strict=True)
    assert all(by_id[t] == q for t, q in pairs)
    # rewritten questions go through the normal validation and pass it
    assert rewritten.filter(pl.col("status") == "accepted").height > 0
    fake, stale = builds["back"]
    assert fake.requests == [] and stale.is_empty()


def test_the_llm_build_passes_every_check_and_publishes(builds):
    _, _, first, _, lf = builds["openai"]
    checks = first.get_asset_check_evaluations()
    assert checks and all(c.passed for c in checks), [c.check_name for c in checks if not c.passed]
    release = data_paths(lf.data_root).releases / "v1"
    assert (release / "MANIFEST.json").exists()


def test_a_missing_key_stops_the_build_before_any_work(corpus, tmp_path, monkeypatch):
    root, scans = corpus
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["build", "--data-root", str(tmp_path / "d"), "--drafter", ANTHROPIC,
         "--scans", f"synth={scans.root}"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "ANTHROPIC_API_KEY" in result.output
    assert not (tmp_path / "d").exists()
    # the asset itself refuses too, before reading anything
    lf = LedgerForge(data_root=str(tmp_path / "e"), scan_sources=f"synth={scans.root}",
                     drafter=ANTHROPIC)  # fmt: skip
    with pytest.raises(MissingKey, match="ANTHROPIC_API_KEY"):
        lf.check_llm_keys("drafter")
    result = runner.invoke(app, ["build", "--drafter", "gpt-4", "--data-root", str(tmp_path)])
    assert result.exit_code == 2 and "not 'template'" in result.output


def test_no_api_key_in_any_file_the_builds_wrote(builds, corpus):
    """Every file under the data root (warehouse, blobs, cache and call log, release):
    no key value, in raw bytes or inside a Parquet file's cells."""
    import io

    root, _ = corpus
    files = [p for p in (root / "data").rglob("*") if p.is_file()]
    assert any(p.name == "calls.jsonl" for p in files)  # the LLM call log was written
    for path in files:
        data = path.read_bytes()
        texts = [data.decode("utf-8", "replace")]
        if path.suffix == ".parquet":
            frame = pl.read_parquet(io.BytesIO(data))
            texts += [str(v) for row in frame.iter_rows() for v in row if v is not None]
        for key in KEYS.values():
            assert all(key not in t for t in texts), (path, key)
