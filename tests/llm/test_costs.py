"""Cost arithmetic against the price table, the budget cap, the call log, the progress line."""

from __future__ import annotations

import json

import pytest

from pipeline.llm.client import BudgetExceeded, ChatRequest, LLMError, make_llm
from pipeline.llm.costs import (
    DEFAULT_CONFIG,
    Ledger,
    ProgressPrinter,
    cost_usd,
    load_config,
    price_of,
    snapshot,
)
from pipeline.llm.spec import ModelSpec
from tests.llm.conftest import GOOD, MODELS, SCHEMA

# 1000 input and 200 output tokens per fake call (see conftest)
EXPECTED = {
    "openai": 1000 * 0.40 / 1e6 + 200 * 1.60 / 1e6,  # $0.00072
    "anthropic": 1000 * 3.00 / 1e6 + 200 * 15.00 / 1e6,  # $0.006
}


def ask(i: int = 0, purpose: str = "solver") -> ChatRequest:
    return ChatRequest(
        messages=[{"role": "user", "content": f"question {i}"}], schema=SCHEMA, purpose=purpose
    )


def test_cost_arithmetic_against_the_price_table(llm_for, provider):
    llm = llm_for(provider)
    response = llm.chat(ask())
    assert response.cost_usd == pytest.approx(EXPECTED[provider], rel=1e-12)
    llm.chat_many([ask(1), ask(2)])
    stats = llm.stats
    assert stats["requests"] == 3
    assert (stats["input_tokens"], stats["output_tokens"]) == (3000, 600)
    assert stats["cost_usd"] == pytest.approx(3 * EXPECTED[provider])
    assert cost_usd({"input": 2.0, "output": 8.0}, 1_000_000, 500_000) == pytest.approx(6.0)


def test_shipped_price_table_is_readable():
    config = load_config()
    assert DEFAULT_CONFIG.exists()
    prices = config["prices"]
    assert any(k.startswith("openai:") for k in prices)
    assert any(k.startswith("anthropic:") for k in prices)
    assert all(p["input"] > 0 and p["output"] >= p["input"] for p in prices.values())
    assert price_of(ModelSpec.parse("openai:gpt-4.1-mini"), prices)["input"] == 0.40
    assert config["defaults"]["concurrency"] >= 1


def test_unpriced_model_is_refused_before_any_request(data_root, keys, server):
    llm = make_llm("openai:gpt-unknown", data_root)
    with pytest.raises(LLMError, match=r"no price for openai:gpt-unknown .*llm\.yaml"):
        llm.chat(ask())
    assert server.requests == []


def test_bad_price_table_names_the_file(tmp_path):
    bad = tmp_path / "llm.yaml"
    bad.write_text("prices:\n  openai:x: {input: cheap}\n")
    with pytest.raises(LLMError, match=r"llm\.yaml: price of 'openai:x'"):
        load_config(bad)


def test_budget_stops_new_calls_and_keeps_results(llm_for, server, provider):
    per_call = EXPECTED[provider]
    llm_for(provider).chat(ask(99))  # cached before the budgeted run
    server.requests.clear()
    llm = llm_for(provider, concurrency=1, budget_usd=2.5 * per_call)
    lines = []
    results = llm.chat_many([ask(i) for i in range(8)] + [ask(99)], progress=lines.append)
    answered = [r for r in results[:8] if not isinstance(r, LLMError)]
    refused = [r for r in results if isinstance(r, BudgetExceeded)]
    # spent 0, 1x, 2x < 2.5x: three calls go out; at 3x >= 2.5x the rest are refused
    assert len(server.requests) == 3 and len(answered) == 3
    assert all(r.data == GOOD for r in answered) and len(refused) == 5
    assert results[8].cached and results[8].data == GOOD  # a cached answer is still served
    assert "budget of $" in str(refused[0]) and "responses already received are kept" in str(
        refused[0]
    )
    stats = llm.stats
    assert stats["budget_stopped"] and stats["cost_usd"] == pytest.approx(3 * per_call)
    assert stats["errors"] == 0
    assert "BUDGET REACHED" in lines[-1].line
    with pytest.raises(BudgetExceeded):  # and it stays stopped
        llm.chat(ask(50))
    assert len(server.requests) == 3


def test_budget_from_environment(data_root, keys, monkeypatch, server):
    monkeypatch.setenv("LEDGERFORGE_LLM_BUDGET_USD", "0")
    llm = make_llm("openai:gpt-4.1-mini", data_root)
    assert llm.ledger.budget_usd == 0.0
    with pytest.raises(BudgetExceeded):
        llm.chat(ask())
    assert server.requests == []
    assert make_llm("openai:gpt-4.1-mini", data_root, budget_usd=None).ledger.budget_usd is None


def test_call_log_lines(llm_for, server, provider, data_root):
    llm = llm_for(provider)
    llm.chat(ask(purpose="drafter"))
    llm.chat(ask(purpose="drafter"))  # a cache hit
    server.fail_next(400)
    with pytest.raises(LLMError):
        llm.chat(ask(7))
    path = data_root.cache / "llm" / "calls.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["status"] for r in rows] == ["ok", "ok", "error"]
    assert [r["cache_hit"] for r in rows] == [False, True, False]
    first = rows[0]
    assert set(first) == {
        "time", "provider", "model", "purpose", "cache_hit", "input_tokens", "output_tokens",
        "cost_usd", "latency_s", "request_hash", "status", "error",
    }  # fmt: skip
    assert first["provider"] == provider and first["purpose"] == "drafter"
    assert (first["input_tokens"], first["output_tokens"]) == (1000, 200)
    assert first["cost_usd"] == pytest.approx(EXPECTED[provider])
    assert rows[1]["cost_usd"] == 0.0 and rows[1]["request_hash"] == first["request_hash"]
    assert "HTTP 400" in rows[2]["error"]


def test_progress_projection_and_metadata():
    ledger = Ledger(budget_usd=1.0)
    ledger.paid(1, 1, 0.5)  # an earlier batch
    ledger.begin(10)
    for _ in range(4):
        ledger.paid(100, 10, 0.05)
        ledger.done += 1
    ledger.hit()
    ledger.done += 1
    progress = snapshot("drafter openai:m", ledger)
    assert progress.projected_usd == pytest.approx(0.2 / 5 * 10)
    assert str(progress) == (
        "drafter openai:m: 5/10 done, 4 requests, 1 cached, 440 tokens, $0.2000 spent,"
        " $0.4000 projected ($0.7000 of budget $1.00)"
    )
    assert ledger.stats()["projected_usd"] == pytest.approx(0.9)
    meta = progress.metadata()
    assert meta["llm_requests"] == 4 and meta["llm_cache_hits"] == 1
    assert meta["llm_cost_usd"] == pytest.approx(0.2) and meta["llm_projected_usd"] == 0.4
    assert all(isinstance(v, int | float | bool) for v in meta.values())


def test_progress_printer_plain_and_live(llm_for, provider):
    import io

    plain = io.StringIO()
    llm = llm_for(provider)
    llm.chat_many([ask(i) for i in range(3)], progress=ProgressPrinter(plain, every_s=3600))
    lines = plain.getvalue().splitlines()
    assert len(lines) == 2  # the first and the last, throttled in between
    assert lines[-1].startswith(f"{MODELS[provider]}: 3/3 done, 3 requests, 0 cached")

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    live = Terminal()
    llm.chat_many([ask(i) for i in range(3)], progress=ProgressPrinter(live), label="solve")
    assert live.getvalue().count("\r") == 3 and live.getvalue().endswith("\n")
    assert "solve: 3/3 done, 0 requests, 3 cached" in live.getvalue()
    meta = llm.metadata()
    assert meta["llm_model"] == MODELS[provider] and meta["llm_requests"] == 3
    assert meta["llm_cache_hits"] == 3 and meta["llm_cost_usd"] == pytest.approx(
        3 * EXPECTED[provider]
    )
