"""Parsing and validating structured output against the caller's JSON Schema.

Providers promise schema-conforming output (OpenAI strict json_schema, Anthropic forced
tool use) but a truncated answer, a refusal or a non-strict schema still yields text that
is not the object wanted; :func:`parse_structured` turns that into :class:`SchemaViolation`
carrying the text so the caller can run a repair round. Validation uses fastjsonschema
(compiled once per schema).
"""

from __future__ import annotations

import json

import fastjsonschema

from pipeline.llm.errors import SchemaViolation

_COMPILED: dict[str, object] = {}


def canonical_json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _validator(schema: dict):
    key = canonical_json(schema)
    if key not in _COMPILED:
        _COMPILED[key] = fastjsonschema.compile(schema)
    return _COMPILED[key]


def validate(data, schema: dict, text: str) -> dict:
    """``data`` if it satisfies ``schema``; else SchemaViolation carrying ``text``."""
    if not isinstance(data, dict):
        raise SchemaViolation(f"output is a {type(data).__name__}, not a JSON object", text)
    try:
        _validator(schema)(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise SchemaViolation(f"output violates the schema: {exc.message}", text) from None
    return data


def parse_structured(text: str, schema: dict) -> dict:
    """The JSON object in ``text`` validated against ``schema``."""
    stripped = text.strip()
    if stripped.startswith("```"):  # tolerate a fenced block from non-strict models
        stripped = stripped.strip("`")
        stripped = stripped[4:] if stripped.startswith("json") else stripped
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise SchemaViolation(f"output is not valid JSON: {exc}", text) from None
    return validate(data, schema, text)


def is_strict_compatible(schema) -> bool:
    """True when OpenAI's strict mode accepts ``schema``: every object closes
    ``additionalProperties`` and requires all its properties."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties", True) is not False:
                return False
            if set(schema.get("required", [])) != set(props):
                return False
        return all(is_strict_compatible(v) for v in schema.values())
    if isinstance(schema, list):
        return all(is_strict_compatible(v) for v in schema)
    return True
