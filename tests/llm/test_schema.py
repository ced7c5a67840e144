"""Structured-output parsing and validation, and which schemas OpenAI's strict mode takes."""

from __future__ import annotations

import pytest

from pipeline.llm.errors import SchemaViolation
from pipeline.llm.schema import is_strict_compatible, parse_structured
from tests.llm.conftest import SCHEMA


def test_parse_valid_and_fenced():
    assert parse_structured('{"question": "q", "answer": 1}', SCHEMA) == {
        "question": "q",
        "answer": 1,
    }
    fenced = '```json\n{"question": "q", "answer": 2.5}\n```'
    assert parse_structured(fenced, SCHEMA)["answer"] == 2.5


@pytest.mark.parametrize(
    "text, reason",
    [
        ('{"question": "q"}', "violates the schema"),
        ('{"question": "q", "answer": 1, "extra": true}', "violates the schema"),
        ('["q", 1]', "not a JSON object"),
        ('{"question": "q", "answer": ', "not valid JSON"),
    ],
)
def test_violations_say_why_and_keep_the_text(text, reason):
    with pytest.raises(SchemaViolation, match=reason) as caught:
        parse_structured(text, SCHEMA)
    assert caught.value.text == text


def test_strict_compatibility():
    assert is_strict_compatible(SCHEMA)
    assert not is_strict_compatible({**SCHEMA, "additionalProperties": True})
    assert not is_strict_compatible({**SCHEMA, "required": ["question"]})
    nested = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "object",
                                                             "properties": {"x": {}}}}},
        "required": ["items"],
        "additionalProperties": False,
    }  # fmt: skip
    assert not is_strict_compatible(nested)
    nested["properties"]["items"]["items"] |= {"required": ["x"], "additionalProperties": False}
    assert is_strict_compatible(nested)


def test_openai_gets_strict_only_when_the_schema_allows(llm_for, server):
    from pipeline.llm.client import ChatRequest

    loose = {"type": "object", "properties": {"question": {"type": "string"},
                                              "answer": {"type": "number"}}}  # fmt: skip
    server.answer = {"question": "q", "answer": 1}
    llm_for("openai").chat(ChatRequest(messages=[{"role": "user", "content": "x"}], schema=loose))
    assert server.requests[0].body["response_format"]["json_schema"]["strict"] is False
