"""Keys come only from the environment, a missing one stops work before any request, and
no key value reaches any file the LLM layer writes (cache, log) or any error message."""

from __future__ import annotations

import httpx
import pytest

from pipeline.llm.client import ChatRequest, LLMError, MissingKey, ProviderError, SchemaViolation
from pipeline.llm.errors import redact
from tests.llm.conftest import SCHEMA


def ask(i: int = 0) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": f"q{i}"}], schema=SCHEMA)


VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


@pytest.mark.parametrize("value", [None, "", "   "])
def test_missing_key_names_the_variable_before_any_request(
    llm_for, server, provider, monkeypatch, value
):
    if value is None:
        monkeypatch.delenv(VARS[provider])
    else:
        monkeypatch.setenv(VARS[provider], value)
    llm = llm_for(provider)
    with pytest.raises(MissingKey, match=VARS[provider]):
        llm.check_key()
    with pytest.raises(MissingKey, match=VARS[provider]):
        llm.chat_many([ask(i) for i in range(3)])  # raised up front, not per request
    assert server.requests == []
    assert llm.stats["requests"] == 0


def test_the_other_providers_key_is_not_needed(llm_for, provider, monkeypatch):
    other = "anthropic" if provider == "openai" else "openai"
    monkeypatch.delenv(VARS[other])
    assert llm_for(provider).chat(ask()).data is not None


def test_key_is_sent_only_as_the_auth_header(llm_for, keys, provider):
    seen = []

    def capture(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        from pipeline.llm.fakes import FakeLLMServer

        return FakeLLMServer({"question": "q", "answer": 1}).handler(request)

    from pipeline.llm.transport import use_transport

    with use_transport(httpx.MockTransport(capture)):
        llm_for(provider).chat(ask())
    (request,) = seen
    carrying = [k for k, v in request.headers.items() if keys[provider] in v]
    assert carrying and set(carrying) <= {"authorization", "x-api-key"}
    assert keys[provider].encode() not in request.content


def scan(root, needles) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            hits += [f"{path}: {n[:12]}..." for n in needles if n.encode() in data]
    return hits


def test_no_key_value_in_any_written_file(llm_for, server, provider, keys, data_root, tmp_path):
    llm = llm_for(provider)
    llm.chat_many([ask(i) for i in range(3)])
    llm.chat(ask(0))  # cache hit
    server.answer = "not json"
    with pytest.raises(SchemaViolation):
        llm.chat(ask(5))
    server.fail_next(500, times=3)
    with pytest.raises(ProviderError):
        llm.chat(ask(6))
    # a provider error that echoes the key (as a 401 body does) is redacted everywhere
    server.answer = None
    echo = httpx.MockTransport(
        lambda request: httpx.Response(
            401,
            json={"error": {"message": f"Incorrect API key provided: {keys[provider]}"}},
        )
    )
    from pipeline.llm.transport import use_transport

    with use_transport(echo), pytest.raises(ProviderError) as caught:
        llm.chat(ask(7))
    assert keys[provider] not in str(caught.value) and "[redacted]" in str(caught.value)
    written = sorted(p.name for p in data_root.root.rglob("*") if p.is_file())
    assert "calls.jsonl" in written and len(written) >= 5
    assert scan(tmp_path, list(keys.values())) == []


def test_redaction_of_key_shapes(keys):
    assert redact(f"key {keys['openai']} here") == "key [redacted] here"
    assert "sk-proj" not in redact("Incorrect API key provided: sk-proj-********abcd.")
    assert redact("a normal sentence about skipping") == "a normal sentence about skipping"
    assert keys["anthropic"] not in str(LLMError(f"boom {keys['anthropic']}"))
