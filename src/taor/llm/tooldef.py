"""``ToolDefinition``: a tool offered to the model, checked when it is defined (a bad name or
JSON Schema fails there, not as a provider's 400 in the middle of a session)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.llm.schema_subset import plainly_valid

_TOOL_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]{0,63}$")


@frozen
class ToolDefinition:
    """A tool offered to the model. Checked when defined: a bad name or schema fails here,
    not as a 400 from the provider in the middle of a session."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def __post_init__(self) -> None:
        if not _TOOL_NAME.match(self.name):
            raise ConfigurationError(
                f"invalid tool name {self.name!r}: use a letter followed by up to 63 letters, "
                "digits, '_' or '-'"
            )
        check_tool_schema(self.name, self.parameters)


def check_tool_schema(name: str, schema: Mapping[str, Any]) -> None:
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        raise ConfigurationError(
            f"tool {name!r}: parameters must be a JSON Schema whose root has type 'object'"
        )
    if plainly_valid(schema):
        return  # valid by the meta-schema, seen without importing jsonschema
    try:
        key = json.dumps(schema, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        key = None  # not JSON data: check it every time (and let the check say what is wrong)
    problem = _schema_problem(key) if key is not None else _check_schema(schema)
    if problem is not None:
        raise ConfigurationError(f"tool {name!r}: invalid JSON Schema: {problem}")


@functools.lru_cache(maxsize=512)
def _schema_problem(schema_json: str) -> str | None:
    """The meta-schema check of a schema (by its canonical JSON): about 10 ms, so done once."""
    return _check_schema(json.loads(schema_json))


def _check_schema(schema: Mapping[str, Any]) -> str | None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None
