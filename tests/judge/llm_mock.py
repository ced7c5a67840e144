"""A mocked provider for LLM tests: an ``httpx.MockTransport`` answering with
protocol-correct OpenAI ``chat.completions`` and Anthropic ``messages`` payloads.

``MockProvider(answer)`` calls ``answer(prompt, request_json)`` for every request (the
prompt is the last user message) and wraps what it returns: a dict becomes the
structured answer (OpenAI message content as JSON text; Anthropic ``tool_use`` input),
a str is sent as is (OpenAI content / Anthropic tool input parsed from it when it is
JSON, else a text block without a tool call). Every request is kept in ``.requests``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx

from pipeline.llm.client import LLM, ModelSpec

PRICES = {
    "openai:gpt-4.1-mini": {"input": 0.40, "output": 1.60},
    "anthropic:claude-haiku-4-5": {"input": 1.00, "output": 5.00},
}
MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-haiku-4-5"}
IN_TOKENS, OUT_TOKENS = 1200, 80


def _openai(model: str, content: str) -> dict:
    return {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": 1_764_600_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": IN_TOKENS,
            "completion_tokens": OUT_TOKENS,
            "total_tokens": IN_TOKENS + OUT_TOKENS,
        },
    }


def _anthropic(model: str, tool: str, answer: dict | str) -> dict:
    if isinstance(answer, str):
        try:
            answer = json.loads(answer)
        except ValueError:
            block = {"type": "text", "text": answer}
            stop = "end_turn"
    if isinstance(answer, dict):
        block = {"type": "tool_use", "id": "toolu_mock", "name": tool, "input": answer}
        stop = "tool_use"
    return {
        "id": "msg_mock",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": IN_TOKENS, "output_tokens": OUT_TOKENS},
    }


def last_user_text(body: dict) -> str:
    user = [m for m in body["messages"] if m["role"] == "user"]
    content = user[-1]["content"]
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content)
    return content


def first_user_text(body: dict) -> str:
    content = next(m for m in body["messages"] if m["role"] == "user")["content"]
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content)
    return content


class MockProvider:
    """The handler of an ``httpx.MockTransport`` for both providers."""

    def __init__(self, answer: Callable[[str, dict], dict | str]) -> None:
        self.answer = answer
        self.requests: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append({"url": str(request.url), "body": body})
        reply = self.answer(last_user_text(body), body)
        if request.url.path.endswith("/chat/completions"):
            content = reply if isinstance(reply, str) else json.dumps(reply)
            return httpx.Response(200, json=_openai(body["model"], content))
        if request.url.path.endswith("/messages"):
            tool = body["tools"][0]["name"] if body.get("tools") else "answer"
            return httpx.Response(200, json=_anthropic(body["model"], tool, reply))
        return httpx.Response(404, json={"error": {"message": f"no mock for {request.url}"}})

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


def make_test_llm(provider: str, tmp: Path, **options) -> LLM:
    """A real :class:`LLM` (cache, ledger, log under ``tmp``) on the test price table."""
    settings = dict(budget_usd=None, concurrency=2, max_retries=0, timeout_s=10)
    settings.update(options)
    return LLM(
        ModelSpec(provider, MODELS[provider]),
        cache_dir=tmp / "cache" / "llm",
        log_path=tmp / "cache" / "llm" / "calls.jsonl",
        prices=PRICES,
        **settings,
    )
