"""JSON Schema from Python annotations, and parameter docs from Google-style docstrings.

Used by ``@tool``. Understood: ``str``, ``int``, ``float``, ``bool``, ``None``, ``Any``,
``X | None`` / ``Optional[X]`` (null allowed), other unions (``anyOf``), ``Literal[...]`` and
``enum.Enum`` subclasses (``enum`` of the values), ``list[X]`` / ``Sequence[X]`` / ``set[X]`` /
``tuple[X, ...]`` (arrays), ``dict[str, X]`` / ``Mapping[str, X]`` (objects), and
``Annotated[X, "description"]``. Anything else raises ``TypeError``.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from taor.errors import ConfigurationError

Converter = Callable[[Any], Any]

_SCALARS: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}
_ARRAYS = (list, tuple, set, frozenset, Sequence)
_OBJECTS = (dict, Mapping)
_SECTION = re.compile(r"^[A-Z][A-Za-z ]*:$")
_ARGS_SECTIONS = ("Args:", "Arguments:", "Parameters:")
_PARAM_LINE = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def json_schema_for(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of values of type ``annotation``."""
    if annotation is Any:
        return {}
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_schema([member.value for member in annotation])
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        notes = [note for note in annotation.__metadata__ if isinstance(note, str)]
        schema = json_schema_for(args[0])
        return {**schema, "description": notes[0]} if notes else schema
    if origin is Literal:
        return _enum_schema(list(args))
    if origin in (Union, types.UnionType):
        return _union_schema(args)
    if annotation in _ARRAYS or origin in _ARRAYS:
        items = [arg for arg in args if arg is not Ellipsis]
        return {"type": "array", **({"items": json_schema_for(items[0])} if items else {})}
    if annotation in _OBJECTS or origin in _OBJECTS:
        if args and args[0] is not str:
            raise ConfigurationError(f"JSON object keys are strings, not {args[0]!r}")
        values = {"additionalProperties": json_schema_for(args[1])} if args else {}
        return {"type": "object", **values}
    raise ConfigurationError(f"no JSON Schema for the type {annotation!r}")


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    kinds = list(dict.fromkeys(_SCALARS.get(type(value), "") for value in values))
    if "" in kinds:
        raise ConfigurationError(f"enum values must be str, int, float, bool or None: {values!r}")
    return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": values}


def _union_schema(args: tuple[Any, ...]) -> dict[str, Any]:
    options = [arg for arg in args if arg is not type(None)]
    nullable = len(options) < len(args)
    if len(options) == 1 and nullable:
        return _nullable(json_schema_for(options[0]))
    schemas = [json_schema_for(option) for option in options]
    return {"anyOf": [*schemas, {"type": "null"}] if nullable else schemas}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if not isinstance(kind, str) or set(schema) - {"type", "enum", "items", "description"}:
        return {"anyOf": [schema, {"type": "null"}]}
    nullable = {**schema, "type": [kind, "null"]}
    if "enum" in schema:
        nullable["enum"] = [*schema["enum"], None]
    return nullable


def converter_for(annotation: Any) -> Converter | None:
    """How to turn a JSON value into ``annotation`` (enums only; other values pass as they are)."""
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return annotation
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return converter_for(args[0])
    if origin in (Union, types.UnionType):
        options = [arg for arg in args if arg is not type(None)]
        inner = converter_for(options[0]) if len(options) == 1 else None
        return None if inner is None else (lambda v: None if v is None else inner(v))
    if origin in (list, Sequence) and args:
        item = converter_for(args[0])
        return None if item is None else (lambda v: [item(x) for x in v])
    return None


def parse_docstring(docstring: str | None) -> tuple[str, dict[str, str]]:
    """The first paragraph (lines joined) and the ``Args:`` descriptions by parameter name."""
    text = inspect.cleandoc(docstring or "")
    first = text.split("\n\n", 1)[0]
    summary = "" if _SECTION.match(first.split("\n", 1)[0]) else " ".join(first.split())
    return summary, _args_section(text.splitlines())


def _args_section(lines: list[str]) -> dict[str, str]:
    docs: dict[str, str] = {}
    in_args, indent, current = False, 0, ""
    for line in lines:
        stripped, level = line.strip(), len(line) - len(line.lstrip())
        if not stripped:
            continue
        if level == 0:
            in_args, indent, current = stripped in _ARGS_SECTIONS, 0, ""
            continue
        if not in_args:
            continue
        match = _PARAM_LINE.match(stripped)
        if match and (indent == 0 or level == indent):
            indent, current = level, match[1]
            docs[current] = match[2].strip()
        elif current:
            docs[current] = f"{docs[current]} {stripped}".strip()
    return docs
