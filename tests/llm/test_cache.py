"""The response cache: content-addressed, never re-bought, nothing volatile in the key,
errors not cached, bypass and clear switches."""

from __future__ import annotations

import json

import pytest

from pipeline.llm.cache import ResponseCache, cache_mode, request_hash
from pipeline.llm.client import ChatRequest, LLMError, ModelSpec, SchemaViolation
from tests.llm.conftest import GOOD, SCHEMA


def ask(text="Draft a question.", **kw) -> ChatRequest:
    kw.setdefault("schema", SCHEMA)
    return ChatRequest(system="sys", messages=[{"role": "user", "content": text}], **kw)


def test_cache_hit_makes_zero_http_requests(llm_for, server, provider, data_root):
    first = llm_for(provider).chat(ask())
    assert len(server.requests) == 1 and not first.cached and first.cost_usd > 0
    again = llm_for(provider)  # a new facade: a rerun of the pipeline
    second = again.chat(ask(purpose="another purpose"))  # purpose is not in the key
    assert len(server.requests) == 1
    assert second.cached and second.data == GOOD and second.cost_usd == 0.0
    assert second.cached_cost_usd == pytest.approx(first.cost_usd)
    assert second.request_hash == first.request_hash
    assert (second.input_tokens, second.output_tokens) == (1000, 200)
    assert again.stats["requests"] == 0 and again.stats["cache_hits"] == 1
    assert again.stats["cost_usd"] == 0.0
    entry = data_root.cache / "llm" / first.request_hash[:2] / f"{first.request_hash}.json"
    assert json.loads(entry.read_text())["data"] == GOOD


def test_fully_cached_batch_needs_no_key(llm_for, server, provider, monkeypatch):
    llm_for(provider).chat_many([ask("a"), ask("b")])
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    results = llm_for(provider).chat_many([ask("a"), ask("b")])
    assert all(r.cached for r in results) and len(server.requests) == 2


def test_key_covers_what_determines_the_answer():
    spec = ModelSpec("openai", "m")
    base = request_hash(ask().key_material(spec))
    assert base == request_hash(ask(purpose="judge").key_material(spec))
    variants = [
        ask("other text"),
        ask(temperature=0.7),
        ask(max_tokens=100),
        ask(schema_name="other"),
        ChatRequest(
            system="other",
            messages=[{"role": "user", "content": "Draft a question."}],
            schema=SCHEMA,
        ),  # fmt: skip
        ChatRequest(system="sys", messages=[{"role": "user", "content": "Draft a question."}]),
    ]
    hashes = {request_hash(v.key_material(spec)) for v in variants}
    assert base not in hashes and len(hashes) == len(variants)
    assert base != request_hash(ask().key_material(ModelSpec("openai", "m2")))
    assert base != request_hash(ask().key_material(ModelSpec("anthropic", "m")))
    # key order of the schema does not matter (canonical JSON)
    shuffled = dict(reversed(list(SCHEMA.items())))
    assert base == request_hash(ask(schema=shuffled).key_material(spec))
    assert request_hash({"a": 1, "b": 2}) == request_hash({"b": 2, "a": 1})


def test_schema_violation_is_cached_and_reraised(llm_for, server, provider):
    server.answer = "not json"
    with pytest.raises(SchemaViolation):
        llm_for(provider).chat(ask())
    with pytest.raises(SchemaViolation) as again:
        llm_for(provider).chat(ask())
    assert len(server.requests) == 1  # paid once, never re-bought
    assert again.value.text == "not json" and again.value.response.cached


def test_bypass_and_refresh_and_clear(llm_for, server, provider, monkeypatch):
    llm_for(provider).chat(ask())
    monkeypatch.setenv("LEDGERFORGE_LLM_CACHE", "off")
    off = llm_for(provider)
    assert not off.chat(ask()).cached
    assert len(server.requests) == 2
    monkeypatch.delenv("LEDGERFORGE_LLM_CACHE")
    assert not llm_for(provider, cache_mode="refresh").chat(ask()).cached  # parameter
    assert len(server.requests) == 3
    llm = llm_for(provider)
    assert llm.chat(ask()).cached and len(server.requests) == 3
    assert llm.cache.clear() == 1 and len(llm.cache) == 0
    assert not llm.chat(ask()).cached and len(server.requests) == 4
    assert llm.log.path.exists()  # clearing the cache keeps the call log


def test_cache_mode_switch_values(monkeypatch):
    monkeypatch.delenv("LEDGERFORGE_LLM_CACHE", raising=False)
    assert cache_mode() == "on" and cache_mode("OFF") == "off"
    monkeypatch.setenv("LEDGERFORGE_LLM_CACHE", "0")
    assert cache_mode() == "off" and cache_mode("refresh") == "refresh"
    with pytest.raises(LLMError, match="LEDGERFORGE_LLM_CACHE"):
        cache_mode("sometimes")


def test_atomic_writes_and_unreadable_entries(tmp_path):
    cache = ResponseCache(tmp_path / "llm", "on")
    key = "ab" + "0" * 62
    cache.put(key, {"text": "x"})
    assert cache.get(key)["text"] == "x"
    assert not list((tmp_path / "llm").rglob(".tmp-*"))  # no temp file left behind
    cache.path(key).write_text("{half an entr")  # a torn file from elsewhere: a miss
    assert cache.get(key) is None
    other = "cd" + "1" * 62
    cache.path(other).parent.mkdir(parents=True)
    cache.path(other).write_text(json.dumps({"request_hash": key, "text": "wrong file"}))
    assert cache.get(other) is None  # an entry must name its own key


def test_cli_reports_spend_and_clears(llm_for, server, provider, data_root):
    from typer.testing import CliRunner

    from pipeline.cli import app

    llm = llm_for(provider)
    llm.chat_many([ask("a", purpose="drafter"), ask("b", purpose="drafter")])
    llm.chat(ask("a", purpose="drafter"))  # a hit
    runner = CliRunner()
    shown = runner.invoke(app, ["llm", "--data-root", str(data_root.root)], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "drafter" in shown.output and "2 cached responses" in shown.output
    cleared = runner.invoke(app, ["llm", "--clear", "--data-root", str(data_root.root)])
    assert cleared.exit_code == 0 and "removed 2 cached responses" in cleared.output
    assert len(llm.cache) == 0


def test_summarize_log(tmp_path):
    from pipeline.llm.cache import summarize_log

    log = tmp_path / "calls.jsonl"
    rows = [
        {"provider": "openai", "model": "m", "purpose": "solver", "cache_hit": False,
         "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.5, "status": "ok"},
        {"provider": "openai", "model": "m", "purpose": "solver", "cache_hit": True,
         "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.0, "status": "ok"},
        {"provider": "openai", "model": "m", "purpose": "solver", "cache_hit": False,
         "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "status": "error"},
    ]  # fmt: skip
    log.write_text("\n".join(json.dumps(r) for r in rows) + "\n{torn")
    (summary,) = summarize_log(log)
    assert summary["calls"] == 3 and summary["cache_hits"] == 1 and summary["errors"] == 1
    assert summary["input_tokens"] == 20 and summary["cost_usd"] == 0.5
    assert summarize_log(tmp_path / "absent.jsonl") == []
