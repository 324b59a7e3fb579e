"""Small builders for the JSON Schemas of profile tools (one spelling, fewer braces)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def obj(
    properties: dict[str, dict[str, Any]], required: Sequence[str] = (), *, extra: bool = False
) -> dict[str, Any]:
    """An object schema; ``extra`` allows (and the tool then ignores) unknown properties."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": extra,
    }


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def integer(
    description: str, *, minimum: int | None = None, maximum: int | None = None
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def number(description: str) -> dict[str, Any]:
    return {"type": "number", "exclusiveMinimum": 0, "description": description}


def boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": description}


def choice(description: str, options: Sequence[str]) -> dict[str, Any]:
    return {"type": "string", "enum": list(options), "description": description}
