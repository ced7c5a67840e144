"""What a caller asks for and what it gets back: model choice, request, response.

A model is chosen by a string ``provider:model`` (``openai:gpt-4.1-mini``,
``anthropic:claude-haiku-4-5``) wherever configuration names one; ``template`` and
``none`` are the offline choices and are not models (:func:`is_llm_choice`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.llm.errors import LLMError

PROVIDERS = ("openai", "anthropic")
OFFLINE_CHOICES = ("template", "none", "")


def is_llm_choice(text: str | None) -> bool:
    """True when ``text`` names a model (``provider:model``) rather than template/none."""
    if text is None or text.strip().lower() in OFFLINE_CHOICES:
        return False
    provider, sep, model = text.strip().partition(":")
    return bool(sep) and provider.lower() in PROVIDERS and bool(model.strip())


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str

    @classmethod
    def parse(cls, text: str) -> ModelSpec:
        provider, sep, model = (text or "").strip().partition(":")
        provider = provider.lower()
        if not sep or provider not in PROVIDERS or not model.strip():
            raise LLMError(
                f"not a model choice: {text!r}; expected 'openai:MODEL' or 'anthropic:MODEL'"
                " ('template' and 'none' are handled by the caller)"
            )
        return cls(provider, model.strip())

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


@dataclass
class ChatRequest:
    system: str | None = None
    messages: list[dict] = field(default_factory=list)
    schema: dict | None = None
    schema_name: str = "answer"
    temperature: float = 0.0
    max_tokens: int = 2048
    purpose: str = ""  # for the log only; not part of the cache key

    def key_material(self, spec: ModelSpec) -> dict:
        """Everything that determines the answer, and nothing volatile (the cache key)."""
        return {
            "provider": spec.provider,
            "model": spec.model,
            "system": self.system,
            "messages": [{"role": m["role"], "content": m["content"]} for m in self.messages],
            "schema": self.schema,
            "schema_name": self.schema_name,
            "temperature": float(self.temperature),
            "max_tokens": int(self.max_tokens),
        }


@dataclass
class ChatResponse:
    text: str
    data: dict | None
    input_tokens: int
    output_tokens: int
    cost_usd: float  # money spent by this call: 0.0 for a cache hit
    cached: bool
    latency_s: float
    request_hash: str
    model: str
    provider: str
    cached_cost_usd: float = 0.0  # what a cached response cost when it was bought
