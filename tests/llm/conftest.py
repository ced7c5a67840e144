"""Fixtures for the LLM layer: sentinel keys in the environment, a fake server for both
providers reached through the real SDK clients, and a factory of LLM facades on a fresh
data root. Nothing here touches the network."""

from __future__ import annotations

import pytest

from pipeline.llm.client import make_llm
from pipeline.llm.fakes import FakeLLMServer
from pipeline.llm.transport import use_transport

OPENAI_SENTINEL = "sk-SENTINEL-openai-5f1d2c9a7b3e"
ANTHROPIC_SENTINEL = "sk-ant-SENTINEL-anthropic-8e4a6b2d"
PRICES = {
    "openai:gpt-test": {"input": 0.40, "output": 1.60},
    "anthropic:claude-test": {"input": 3.00, "output": 15.00},
}
MODELS = {"openai": "openai:gpt-test", "anthropic": "anthropic:claude-test"}
SCHEMA = {
    "type": "object",
    "properties": {"question": {"type": "string"}, "answer": {"type": "number"}},
    "required": ["question", "answer"],
    "additionalProperties": False,
}
GOOD = {"question": "What was the total in 1950?", "answer": 1234.5}


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SENTINEL)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_SENTINEL)
    monkeypatch.delenv("LEDGERFORGE_LLM_CACHE", raising=False)
    monkeypatch.delenv("LEDGERFORGE_LLM_BUDGET_USD", raising=False)
    return {"openai": OPENAI_SENTINEL, "anthropic": ANTHROPIC_SENTINEL}


@pytest.fixture
def server():
    """A fake of both APIs answering GOOD; installed as the SDKs' transport."""
    fake = FakeLLMServer(GOOD, input_tokens=1000, output_tokens=200)
    with use_transport(fake.transport):
        yield fake


@pytest.fixture
def llm_for(data_root, keys, server):
    def build(provider: str, **overrides):
        overrides.setdefault("prices", PRICES)
        overrides.setdefault("max_retries", 2)
        return make_llm(MODELS[provider], data_root, **overrides)

    return build


@pytest.fixture(params=["openai", "anthropic"])
def provider(request):
    return request.param
