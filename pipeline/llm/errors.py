"""Errors of the LLM layer, and the redaction every error message passes through.

Callers catch :class:`LLMError` (and write its message into logs, quarantine reasons or
review queues), so a message must never carry an API key: a provider's 401 body echoes
a masked key, an exception may repeat a header. :func:`redact` removes the values of the
key variables and anything shaped like a key before a message leaves this package.
"""

from __future__ import annotations

import os
import re

KEY_VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

# sk-..., sk-ant-..., sk-proj-..., including masked forms such as sk-proj-****abcd
_KEY_SHAPE = re.compile(r"\b(?:sk|key)-[A-Za-z0-9_\-*]{6,}")


def redact(text: str) -> str:
    """``text`` without any API key value from the environment or anything key-shaped."""
    for var in KEY_VARS.values():
        value = os.environ.get(var, "")
        if len(value) >= 6:
            text = text.replace(value, "[redacted]")
    return _KEY_SHAPE.sub("[redacted]", text)


class LLMError(Exception):
    """Any failure of an LLM call; the message is redacted."""

    def __init__(self, message: str):
        super().__init__(redact(str(message)))


class BudgetExceeded(LLMError):
    """The budget cap is reached: no new paid call is issued."""


class MissingKey(LLMError):
    """The provider's API key variable is not set (the message names it)."""


class SchemaViolation(LLMError):
    """The model's output is not valid JSON for the schema; ``.text`` holds the output and
    ``.response`` (set by the facade) the ChatResponse with its tokens and cost."""

    def __init__(self, message: str, text: str):
        super().__init__(message)
        self.text = redact(text)
        self.response = None


class ProviderError(LLMError):
    """The provider refused the request or stayed unreachable after the SDK's retries."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status
