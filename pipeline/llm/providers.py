"""The two provider implementations on the official SDKs.

Each turns a :class:`ChatRequest` into one SDK call and the SDK's answer into a
:class:`Completion` (text, validated data, token counts). Structured output:

- OpenAI: ``chat.completions.create(response_format={"type": "json_schema", ...})``,
  strict when the schema allows it (every object closed and fully required);
- Anthropic: ``messages.create`` with one tool whose ``input_schema`` is the schema and
  ``tool_choice`` forcing that tool; the tool input is the answer.

Retries and backoff (429, 5xx, timeouts, connection errors) are the SDKs' own
(``max_retries``, ``timeout``); what still fails is raised as :class:`ProviderError`.
SDK clients are built inside the running event loop (one per batch) on the injected
transport when tests set one (:mod:`pipeline.llm.transport`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import anthropic
import openai

from pipeline.llm import transport
from pipeline.llm.errors import KEY_VARS, MissingKey, ProviderError, SchemaViolation
from pipeline.llm.schema import is_strict_compatible, parse_structured
from pipeline.llm.spec import ChatRequest, ModelSpec

# OpenAI reasoning models accept only the default temperature.
_NO_TEMPERATURE = ("o1", "o3", "o4", "gpt-5")


@dataclass
class Completion:
    """A paid answer: its text and tokens, and the structured data if it parsed (``violation``
    says why not; the facade raises SchemaViolation after accounting for the tokens)."""

    text: str
    data: dict | None
    input_tokens: int
    output_tokens: int
    model: str
    violation: str | None = None


def structured(text: str, schema: dict | None) -> tuple[dict | None, str | None]:
    """(data, None) when ``text`` satisfies ``schema``, else (None, the reason).
    Used for fresh and for cached answers alike."""
    if schema is None:
        return None, None
    try:
        data = parse_structured(text, schema)
    except SchemaViolation as exc:
        return None, str(exc)
    return data, None


def api_key(provider: str) -> str:
    """The key from the provider's environment variable, or MissingKey naming it."""
    var = KEY_VARS[provider]
    value = os.environ.get(var, "").strip()
    if not value:
        raise MissingKey(
            f"{var} is not set: the {provider} models need an API key in the environment"
            f" variable {var} (keys are read only from the environment)"
        )
    return value


class Provider:
    """One SDK client for the duration of a batch (``async with``)."""

    def __init__(self, spec: ModelSpec, *, max_retries: int, timeout_s: float, http_client_factory):
        self.spec, self.max_retries, self.timeout_s = spec, max_retries, timeout_s
        self.http_client_factory = http_client_factory
        self.client = None

    def _http_client(self):
        if self.http_client_factory is not None:
            return self.http_client_factory()
        return transport.async_http_client(self.timeout_s)

    async def __aenter__(self):
        self.client = self._build(api_key(self.spec.provider), self._http_client())
        return self

    async def __aexit__(self, *exc):
        if self.client is not None:
            await self.client.close()
            self.client = None

    def _build(self, key: str, http_client):
        raise NotImplementedError

    async def complete(self, req: ChatRequest) -> Completion:
        raise NotImplementedError


def _provider_error(exc: Exception, spec: ModelSpec) -> ProviderError:
    status = getattr(exc, "status_code", None)
    what = f"HTTP {status}" if status else type(exc).__name__
    return ProviderError(f"{spec} failed after the SDK's retries ({what}): {exc}", status)


class OpenAIProvider(Provider):
    def _build(self, key, http_client):
        kwargs = dict(api_key=key, max_retries=self.max_retries, timeout=self.timeout_s)
        if http_client is not None:
            kwargs["http_client"] = http_client
        return openai.AsyncOpenAI(**kwargs)

    def params(self, req: ChatRequest) -> dict:
        messages = [{"role": "system", "content": req.system}] if req.system else []
        messages += [{"role": m["role"], "content": m["content"]} for m in req.messages]
        params = dict(
            model=self.spec.model, messages=messages, max_completion_tokens=req.max_tokens
        )
        if not self.spec.model.startswith(_NO_TEMPERATURE):
            params["temperature"] = req.temperature
        if req.schema is not None:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": req.schema_name,
                    "schema": req.schema,
                    "strict": is_strict_compatible(req.schema),
                },
            }
        return params

    async def complete(self, req: ChatRequest) -> Completion:
        try:
            result = await self.client.chat.completions.create(**self.params(req))
        except openai.APIError as exc:
            raise _provider_error(exc, self.spec) from None
        usage = result.usage
        tokens = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        message = result.choices[0].message if result.choices else None
        text = (message.content or "") if message else ""
        model = result.model or self.spec.model
        if message is not None and getattr(message, "refusal", None):
            return Completion(message.refusal, None, *tokens, model, f"refused: {message.refusal}")
        data, violation = structured(text, req.schema)
        return Completion(text, data, *tokens, model, violation)


class AnthropicProvider(Provider):
    def _build(self, key, http_client):
        kwargs = dict(api_key=key, max_retries=self.max_retries, timeout=self.timeout_s)
        if http_client is not None:
            kwargs["http_client"] = http_client
        return anthropic.AsyncAnthropic(**kwargs)

    def params(self, req: ChatRequest) -> dict:
        # The installed anthropic SDK's messages.create has no temperature parameter
        # (current models sample at their fixed default); temperature stays in the cache key.
        params = dict(
            model=self.spec.model,
            max_tokens=req.max_tokens,
            messages=[{"role": m["role"], "content": m["content"]} for m in req.messages],
        )
        if req.system:
            params["system"] = req.system
        if req.schema is not None:
            params["tools"] = [
                {
                    "name": req.schema_name,
                    "description": "Give the answer as this structured object.",
                    "input_schema": req.schema,
                }
            ]
            params["tool_choice"] = {
                "type": "tool",
                "name": req.schema_name,
                "disable_parallel_tool_use": True,
            }
        return params

    async def complete(self, req: ChatRequest) -> Completion:
        try:
            result = await self.client.messages.create(**self.params(req))
        except anthropic.APIError as exc:
            raise _provider_error(exc, self.spec) from None
        usage = result.usage
        tokens = (usage.input_tokens, usage.output_tokens) if usage else (0, 0)
        texts = [b.text for b in result.content if getattr(b, "type", "") == "text"]
        model = result.model or self.spec.model
        if req.schema is None:
            return Completion("".join(texts), None, *tokens, model)
        uses = [
            b
            for b in result.content
            if getattr(b, "type", "") == "tool_use" and b.name == req.schema_name
        ]
        if not uses:
            why = f"no {req.schema_name!r} tool call (stop_reason {result.stop_reason})"
            return Completion("".join(texts), None, *tokens, model, why)
        text = json.dumps(uses[0].input, ensure_ascii=False)
        data, violation = structured(text, req.schema)
        return Completion(text, data, *tokens, model, violation)


def make_provider(spec: ModelSpec, **kwargs) -> Provider:
    cls = OpenAIProvider if spec.provider == "openai" else AnthropicProvider
    return cls(spec, **kwargs)
