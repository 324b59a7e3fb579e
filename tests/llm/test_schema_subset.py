"""The fast schema check never calls valid what the meta-schema refuses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from taor.errors import ConfigurationError
from taor.llm import ToolDefinition
from taor.llm.schema_subset import plainly_valid

# Values of every JSON kind, right and wrong for each keyword.
_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.floats(min_value=-2, max_value=2, allow_nan=False),
    st.sampled_from(["string", "object", "integer", "array", "nope", "", "x"]),
)
_values = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
_keywords = st.sampled_from(
    [
        "type", "description", "properties", "required", "additionalProperties", "items",
        "enum", "minimum", "maximum", "exclusiveMinimum", "minItems", "maxLength",
        "multipleOf", "uniqueItems", "const", "pattern", "$ref", "format",
    ]
)  # fmt: skip


def _schemas() -> st.SearchStrategy[Any]:
    return st.recursive(
        st.dictionaries(_keywords, _values, max_size=4) | st.booleans(),
        lambda inner: st.dictionaries(
            _keywords,
            st.one_of(_values, inner, st.dictionaries(st.text(max_size=3), inner, max_size=3)),
            max_size=4,
        ),
        max_leaves=8,
    )


def _meta_valid(schema: Any) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


@settings(max_examples=600, deadline=None)
@given(_schemas())
def test_what_it_calls_valid_the_meta_schema_calls_valid(schema: Any) -> None:
    if plainly_valid(schema):
        assert _meta_valid(schema), schema


def test_typical_tool_schemas_need_no_meta_schema_check() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "A file."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "paths": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "either": {"type": ["string", "null"]},
        },
        "required": ["path"],
        "additionalProperties": False,
    }
    assert plainly_valid(schema) and _meta_valid(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "strin"}}},
        {"type": "object", "required": "a"},
        {"type": "object", "required": ["a", "a"]},
        {"type": "object", "properties": {"a": {"minimum": "1"}}},
        {"type": "object", "properties": {"a": {"minItems": -1}}},
        {"type": "object", "properties": {"a": {"type": []}}},
        {"type": "object", "properties": {"a": {"multipleOf": 0}}},
    ],
)
def test_a_broken_schema_is_refused_with_the_meta_schemas_words(schema: dict[str, Any]) -> None:
    assert not plainly_valid(schema)
    with pytest.raises(ConfigurationError, match="invalid JSON Schema"):
        ToolDefinition(name="t", description="d", parameters=schema)


def test_keywords_outside_the_plain_set_go_to_the_full_check() -> None:
    pattern = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^a+$"}}}
    assert not plainly_valid(pattern)
    ToolDefinition(name="t", description="d", parameters=pattern)  # valid: the full check says so
    with pytest.raises(ConfigurationError, match="invalid JSON Schema"):
        ToolDefinition(
            name="t",
            description="d",
            parameters={"type": "object", "properties": {"a": {"pattern": "("}}},
        )
