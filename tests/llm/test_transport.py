"""Transport injection: httpx2 transports pass through, classic httpx transports are bridged
(requests, responses and timeouts), and the context manager restores what was set."""

from __future__ import annotations

import json

import httpx
import httpx2
import openai

from pipeline.llm import transport
from pipeline.llm.fakes import FakeLLMServer, openai_payload
from pipeline.llm.transport import LegacyBridge, use_transport


def test_context_manager_and_setter_restore():
    assert transport.current_transport() is None
    assert transport.async_http_client() is None and transport.sync_http_client() is None
    outer = httpx.MockTransport(lambda r: httpx.Response(200))
    inner = httpx2.MockTransport(lambda r: httpx2.Response(200))
    with use_transport(outer):
        with use_transport(inner) as chosen:
            assert chosen is inner and transport.current_transport() is inner
            assert isinstance(transport.async_http_client(), httpx2.AsyncClient)
        assert transport.current_transport() is outer
    assert transport.current_transport() is None
    use_transport(inner)  # the setter form
    try:
        assert transport.current_transport() is inner
    finally:
        use_transport(None)


def test_httpx2_transport_is_used_as_is(llm_for, provider):
    bodies = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        bodies.append(body)
        fake = FakeLLMServer({"question": "q", "answer": 2})
        legacy = fake.handler(httpx.Request("POST", str(request.url), content=request.content))
        return httpx2.Response(legacy.status_code, content=legacy.content,
                               headers={"content-type": "application/json"})  # fmt: skip

    from pipeline.llm.client import ChatRequest
    from tests.llm.conftest import SCHEMA

    with use_transport(httpx2.MockTransport(handler)):
        response = llm_for(provider).chat(
            ChatRequest(messages=[{"role": "user", "content": "hi"}], schema=SCHEMA)
        )
    assert response.data == {"question": "q", "answer": 2} and len(bodies) == 1


def test_bridge_drives_a_sync_sdk_client(keys):
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json=openai_payload('{"a": 1}', "m", 3, 4))

    with use_transport(httpx.MockTransport(handler)):
        client = openai.OpenAI(api_key=keys["openai"], http_client=transport.sync_http_client())
        messages = [{"role": "user", "content": "x"}]
        result = client.chat.completions.create(model="m", messages=messages)
    assert result.choices[0].message.content == '{"a": 1}' and result.usage.total_tokens == 7
    assert seen[0]["model"] == "m"


def test_bridge_maps_timeouts():
    def handler(request):
        raise httpx.ConnectTimeout("slow")

    bridge = LegacyBridge(httpx.MockTransport(handler))
    request = httpx2.Request("POST", "https://api.example/v1", content=b"{}")
    try:
        bridge.handle_request(request)
    except httpx2.TimeoutException as exc:
        assert "slow" in str(exc)
    else:
        raise AssertionError("a timeout must reach the SDK as an httpx2 timeout")


CALLS_FROM_ENV: list = []


def env_factory():
    """Named by LEDGERFORGE_LLM_TRANSPORT in the test below."""
    server = FakeLLMServer({"question": "from env", "answer": 3})
    CALLS_FROM_ENV.append(server)
    return server.transport


def test_transport_named_by_environment(llm_for, provider, monkeypatch):
    from pipeline.llm.client import ChatRequest, LLMError
    from tests.llm.conftest import SCHEMA

    monkeypatch.setattr(transport, "_FROM_ENV", {})
    monkeypatch.setenv("LEDGERFORGE_LLM_TRANSPORT", "tests.llm.test_transport:env_factory")
    CALLS_FROM_ENV.clear()
    llm = llm_for(provider)
    with use_transport(None):  # nothing set in code
        for i in range(2):
            req = ChatRequest(messages=[{"role": "user", "content": f"q{i}"}], schema=SCHEMA)
            assert llm.chat(req).data["question"] == "from env"
    (server,) = CALLS_FROM_ENV  # built once per process
    assert len(server.requests) == 2
    monkeypatch.setattr(transport, "_FROM_ENV", {})
    monkeypatch.setenv("LEDGERFORGE_LLM_TRANSPORT", "tests.llm.nowhere:factory")
    try:
        with use_transport(None):
            transport.current_transport()
    except LLMError as exc:
        assert "LEDGERFORGE_LLM_TRANSPORT" in str(exc)
    else:
        raise AssertionError("an unloadable factory must be a clear error")


def test_no_transport_leaks_between_tests():
    assert transport._CURRENT is None
