"""A scripted stand-in for the OpenAI and Anthropic HTTP APIs, for tests and offline demos.

:class:`FakeLLMServer` answers the requests the real SDK clients send (through
:func:`pipeline.llm.transport.use_transport`) with protocol-correct payloads: an OpenAI
``chat.completion`` with ``usage``, an Anthropic ``message`` with a ``tool_use`` block and
``usage``. What it answers comes from ``answer(call)`` — ``call`` is a :class:`FakeCall`
with the provider, model, system prompt, messages, schema and schema name parsed from the
request body — returning a dict (the structured answer) or a str (raw text, e.g. to
provoke a schema violation). ``fail_next(429)`` scripts failures first. It records every
request body (never headers, so never a key) and counts them: ``len(server.requests)``.
No network is touched.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx


@dataclass
class FakeCall:
    provider: str
    model: str
    system: str | None
    messages: list[dict]
    schema: dict | None
    schema_name: str | None
    body: dict = field(repr=False, default_factory=dict)
    retry_count: int = 0

    @property
    def prompt(self) -> str:
        """The last user message's text."""
        users = [m for m in self.messages if m.get("role") == "user"]
        content = users[-1]["content"] if users else ""
        return content if isinstance(content, str) else json.dumps(content)


def openai_payload(content: str, model: str, prompt_tokens: int, completion_tokens: int) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def anthropic_payload(
    answer: dict | str, tool: str | None, model: str, input_tokens: int, output_tokens: int
) -> dict:
    if isinstance(answer, dict) and tool:
        content = [{"type": "tool_use", "id": "toolu_fake", "name": tool, "input": answer}]
        stop = "tool_use"
    else:
        text = answer if isinstance(answer, str) else json.dumps(answer)
        content, stop = [{"type": "text", "text": text}], "end_turn"
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def _parse(request: httpx.Request) -> FakeCall:
    body = json.loads(request.content or b"{}")
    retries = int(request.headers.get("x-stainless-retry-count", "0") or 0)
    if request.url.path.endswith("/messages"):
        tools = body.get("tools") or []
        return FakeCall(
            "anthropic",
            body.get("model", ""),
            body.get("system"),
            body.get("messages", []),
            tools[0]["input_schema"] if tools else None,
            tools[0]["name"] if tools else None,
            body,
            retries,
        )
    messages = body.get("messages", [])
    system = next((m["content"] for m in messages if m.get("role") == "system"), None)
    fmt = (body.get("response_format") or {}).get("json_schema") or {}
    return FakeCall(
        "openai",
        body.get("model", ""),
        system,
        [m for m in messages if m.get("role") != "system"],
        fmt.get("schema"),
        fmt.get("name"),
        body,
        retries,
    )


class FakeLLMServer:
    """Both providers' chat endpoints, scripted. Use ``with use_transport(server.transport)``."""

    def __init__(
        self,
        answer: Callable[[FakeCall], dict | str] | dict | str | None = None,
        *,
        input_tokens: int = 1000,
        output_tokens: int = 200,
    ):
        self.answer = answer if answer is not None else {}
        self.input_tokens, self.output_tokens = input_tokens, output_tokens
        self.requests: list[FakeCall] = []
        self._failures: list[tuple[int, dict]] = []

    def fail_next(self, status: int, times: int = 1, headers: dict | None = None) -> None:
        """The next ``times`` requests get HTTP ``status`` (a fast retry-after by default)."""
        self._failures += [(status, headers or {"retry-after-ms": "1"})] * times

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)

    def handler(self, request: httpx.Request) -> httpx.Response:
        call = _parse(request)
        self.requests.append(call)
        if self._failures:
            status, headers = self._failures.pop(0)
            message = f"fake HTTP {status}"
            error = {"type": "error", "error": {"type": "fake_failure", "message": message}}
            return httpx.Response(status, headers=headers, json=error)
        answer = self.answer(call) if callable(self.answer) else self.answer
        if call.provider == "anthropic":
            payload = anthropic_payload(
                answer, call.schema_name, call.model, self.input_tokens, self.output_tokens
            )
        else:
            text = answer if isinstance(answer, str) else json.dumps(answer)
            payload = openai_payload(text, call.model, self.input_tokens, self.output_tokens)
        return httpx.Response(200, json=payload)
