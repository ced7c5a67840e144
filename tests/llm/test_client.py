"""The facade driving the real openai / anthropic SDK clients through a mocked transport:
structured calls, SDK retries on 429 / 500 / timeouts, schema violations, batches."""

from __future__ import annotations

import httpx
import pytest

from pipeline.llm.client import (
    ChatRequest,
    LLMError,
    ModelSpec,
    ProviderError,
    SchemaViolation,
    is_llm_choice,
    make_llm,
)
from tests.llm.conftest import GOOD, SCHEMA


def ask(text: str = "Draft a question.", **kw) -> ChatRequest:
    return ChatRequest(
        system="You write finance questions.",
        messages=[{"role": "user", "content": text}],
        schema=SCHEMA,
        schema_name="draft",
        purpose="drafter",
        **kw,
    )


def test_model_choice_parsing():
    assert ModelSpec.parse("openai:gpt-4.1-mini") == ModelSpec("openai", "gpt-4.1-mini")
    assert ModelSpec.parse("Anthropic:claude-haiku-4-5").provider == "anthropic"
    assert is_llm_choice("openai:gpt-4.1-mini") and is_llm_choice("anthropic:claude-x")
    for offline in ("template", "none", "", None, "openai:", "mistral:large", "gpt-4"):
        assert not is_llm_choice(offline)
    with pytest.raises(LLMError, match="openai:MODEL"):
        ModelSpec.parse("template")
    assert make_llm("template", None) is None and make_llm("none", None) is None


def test_structured_call(llm_for, server, provider):
    llm = llm_for(provider)
    response = llm.chat(ask())
    assert response.data == GOOD
    assert (response.input_tokens, response.output_tokens) == (1000, 200)
    assert response.provider == provider and not response.cached
    assert len(response.request_hash) == 64
    (call,) = server.requests
    assert call.provider == provider and call.schema == SCHEMA and call.schema_name == "draft"
    assert call.system == "You write finance questions."
    assert call.messages == [{"role": "user", "content": "Draft a question."}]
    if provider == "openai":
        fmt = call.body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert call.body["max_completion_tokens"] == 2048
    else:
        assert call.body["tool_choice"]["type"] == "tool"
        assert call.body["tool_choice"]["name"] == "draft"
        assert call.body["tools"][0]["input_schema"] == SCHEMA
        assert call.body["max_tokens"] == 2048


def test_plain_text_call(llm_for, server, provider):
    server.answer = "Just words."
    response = llm_for(provider).chat(
        ChatRequest(messages=[{"role": "user", "content": "Say something."}])
    )
    assert response.text == "Just words." and response.data is None


@pytest.mark.parametrize("status", [429, 500, 503])
def test_sdk_retries_then_succeeds(llm_for, server, provider, status):
    server.fail_next(status, headers={"retry-after": "0", "retry-after-ms": "1"})
    llm = llm_for(provider)
    response = llm.chat(ask())
    assert response.data == GOOD
    assert len(server.requests) == 2  # one failure, one retry by the SDK
    assert [c.retry_count for c in server.requests] == [0, 1]
    assert llm.stats["requests"] == 1 and llm.stats["errors"] == 0


def test_timeout_retried_by_the_sdk(llm_for, server, provider):
    attempts = []

    def slow_then_fine(call):
        attempts.append(call)
        if len(attempts) == 1:
            raise httpx.ReadTimeout("fake timeout")
        return GOOD

    server.answer = slow_then_fine
    assert llm_for(provider).chat(ask()).data == GOOD
    assert len(attempts) == 2


def test_retries_exhausted_is_a_provider_error_not_cached(llm_for, server, provider):
    server.fail_next(500, times=3)
    llm = llm_for(provider, max_retries=2)
    with pytest.raises(ProviderError, match="HTTP 500") as caught:
        llm.chat(ask())
    assert caught.value.status == 500
    assert len(server.requests) == 3  # first try + 2 SDK retries
    assert len(llm.cache) == 0  # errors are never cached
    assert llm.chat(ask()).data == GOOD  # so the next run buys it
    assert len(server.requests) == 4


def test_client_error_is_not_retried(llm_for, server, provider):
    server.fail_next(400)
    with pytest.raises(ProviderError, match="HTTP 400"):
        llm_for(provider).chat(ask())
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "bad",
    [
        '{"question": "What?"}',  # missing a required key
        '{"question": "What?", "answer": "lots"}',  # wrong type
        "The answer is 12.",  # not JSON at all
    ],
)
def test_schema_violation_carries_the_text(llm_for, server, provider, bad):
    import json

    server.answer = bad
    if provider == "anthropic" and bad.startswith("{"):
        server.answer = json.loads(bad)  # a tool call whose input violates the schema
    llm = llm_for(provider)
    with pytest.raises(SchemaViolation) as caught:
        llm.chat(ask())
    violation = caught.value
    assert violation.text  # the model's output, for the repair round
    if bad.startswith("{"):
        assert json.loads(violation.text) == json.loads(bad)
    # the paid tokens are accounted for and reported
    assert violation.response.input_tokens == 1000 and violation.response.cost_usd > 0
    assert llm.stats["requests"] == 1 and llm.stats["errors"] == 1
    # a repair round is a different request, so it is bought
    server.answer = GOOD
    repair = ask()
    repair.messages += [
        {"role": "assistant", "content": violation.text},
        {"role": "user", "content": f"Invalid: {violation}. Answer again."},
    ]
    assert llm.chat(repair).data == GOOD
    assert len(server.requests) == 2


def test_chat_many_keeps_order_and_bounds_concurrency(llm_for, server, provider):
    import asyncio

    in_flight, peak = [0], [0]

    async def answer_slowly(call):
        in_flight[0] += 1
        peak[0] = max(peak[0], in_flight[0])
        await asyncio.sleep(0.02)
        in_flight[0] -= 1
        return {"question": call.prompt, "answer": float(len(call.prompt))}

    server.answer = None
    llm = llm_for(provider, concurrency=3)
    # an async handler: MockTransport awaits it inside the SDK's event loop
    with_handler = httpx.MockTransport(server_async_handler(server, answer_slowly))
    from pipeline.llm.transport import use_transport

    seen = []
    with use_transport(with_handler):
        results = llm.chat_many([ask(f"q{i}" * (i + 1)) for i in range(10)], progress=seen.append)
    assert [r.data["question"] for r in results] == [f"q{i}" * (i + 1) for i in range(10)]
    assert 1 < peak[0] <= 3
    assert [p.done for p in seen] == list(range(1, 11)) and seen[-1].total == 10
    assert "10/10 done, 10 requests" in str(seen[-1])


def server_async_handler(server, answer):
    """An async MockTransport handler with the fake server's payloads."""
    from pipeline.llm.fakes import _parse, anthropic_payload, openai_payload

    async def handler(request):
        import json

        call = _parse(request)
        server.requests.append(call)
        data = await answer(call)
        if call.provider == "anthropic":
            payload = anthropic_payload(data, call.schema_name, call.model, 10, 5)
        else:
            payload = openai_payload(json.dumps(data), call.model, 10, 5)
        return httpx.Response(200, json=payload)

    return handler


def test_chat_inside_a_running_event_loop(llm_for, provider):
    import asyncio

    llm = llm_for(provider)

    async def caller():
        return llm.chat(ask())  # sync API from async code: runs in a worker thread

    assert asyncio.run(caller()).data == GOOD
