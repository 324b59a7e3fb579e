"""A fast proof that a tool's JSON Schema is valid, for the keywords tool schemas use.

Checking a schema against the Draft 2020-12 meta-schema needs ``jsonschema``, whose import
alone is a large part of a command's start-up. Tool schemas almost always use a small set of
keywords (``type``, ``properties``, ``required``, ``description``, numbers' bounds, ...) whose
rules in the meta-schema are simple. ``plainly_valid`` says ``True`` only when every keyword in
the schema is in that set and obeys the meta-schema's rule for it; anything else (an unknown
keyword, a ``pattern`` to compile, a value of the wrong type) says ``False``, and the caller
runs the full meta-schema check, which finds the problem and words it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})


def plainly_valid(schema: object) -> bool:
    """Whether ``schema`` uses only the plain keywords and is valid by the meta-schema."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping):
        return False
    for keyword, value in schema.items():
        rule = _RULES.get(keyword)
        if rule is None or not rule(value):
            return False
    return True


def _is_string(value: object) -> bool:
    return isinstance(value, str)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_any(value: object) -> bool:
    return True


def _is_type(value: object) -> bool:
    if isinstance(value, str):
        return value in _TYPES
    if not isinstance(value, list) or not value:
        return False
    return all(isinstance(item, str) and item in _TYPES for item in value) and len(
        set(value)
    ) == len(value)


def _is_properties(value: object) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(name, str) and plainly_valid(schema) for name, schema in value.items()
    )


def _is_names(value: object) -> bool:
    if not isinstance(value, list):
        return False
    return all(isinstance(item, str) for item in value) and len(set(value)) == len(value)


def _is_list(value: object) -> bool:
    return isinstance(value, list)


_RULES: dict[str, Callable[[Any], bool]] = {
    "type": _is_type,
    "description": _is_string,
    "title": _is_string,
    "properties": _is_properties,
    "additionalProperties": plainly_valid,
    "items": plainly_valid,
    "required": _is_names,
    "enum": _is_list,
    "const": _is_any,
    "default": _is_any,
    "examples": _is_list,
    "minimum": _is_number,
    "maximum": _is_number,
    "exclusiveMinimum": _is_number,
    "exclusiveMaximum": _is_number,
    "multipleOf": lambda value: _is_number(value) and value > 0,
    "minItems": _is_count,
    "maxItems": _is_count,
    "minLength": _is_count,
    "maxLength": _is_count,
    "minProperties": _is_count,
    "maxProperties": _is_count,
    "uniqueItems": lambda value: isinstance(value, bool),
}
