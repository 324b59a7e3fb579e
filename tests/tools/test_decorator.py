from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from taor.errors import ConfigurationError
from taor.llm.types import ImagePart, ToolCallPart
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.decorator import FunctionTool, as_output, tool
from taor.tools.function_schema import json_schema_for, parse_docstring
from taor.tools.registry import ToolRegistry


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@tool(read_only=True)
async def search(
    pattern: str,
    context: ToolContext,
    limit: int = 20,
    path: str | None = None,
    mode: Literal["content", "count"] = "content",
    colour: Colour = Colour.RED,
    globs: list[str] | None = None,
) -> dict[str, Any]:
    """Search files for a pattern.

    Lines after the first paragraph are not part of the description.

    Args:
        pattern: A regular expression,
            matched per line.
        limit (int): At most this many matches.
        colour: Highlight colour.

    Returns:
        The matches.
    """
    context.on_output(f"searching {pattern}")
    return {
        "pattern": pattern,
        "limit": limit,
        "path": path,
        "mode": mode,
        "colour": colour.name,
        "globs": globs,
        "call_id": context.call_id,
    }


def test_the_decorated_function_is_a_tool_with_a_schema_from_the_signature() -> None:
    assert isinstance(search, FunctionTool) and isinstance(search, Tool)
    assert search.name == "search" and search.read_only
    assert search.description == "Search files for a pattern."
    assert search.parameters == {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "A regular expression, matched per line."},
            "limit": {
                "type": "integer",
                "description": "At most this many matches.",
                "default": 20,
            },
            "path": {"type": ["string", "null"], "default": None},
            "mode": {"type": "string", "enum": ["content", "count"], "default": "content"},
            "colour": {
                "type": "string",
                "enum": ["red", "blue"],
                "description": "Highlight colour.",
                "default": "red",
            },
            "globs": {"type": ["array", "null"], "items": {"type": "string"}, "default": None},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    Draft202012Validator.check_schema(search.parameters)


async def test_execute_injects_the_context_converts_enums_and_returns_json() -> None:
    chunks: list[str] = []
    call = ToolCallPart(
        id="c7", name="search", raw_arguments='{"pattern": "é", "colour": "blue", "limit": 3}'
    )
    output = await ToolRegistry([search]).execute(call, ToolContext(on_output=chunks.append))
    assert not output.is_error
    assert output.text == (
        '{"pattern": "é", "limit": 3, "path": null, "mode": "content", "colour": "BLUE", '
        '"globs": null, "call_id": "c7"}'
    )
    assert chunks == ["searching é"]


async def test_schema_violations_never_reach_the_function() -> None:
    call = ToolCallPart(id="c", name="search", raw_arguments='{"pattern": "a", "mode": "all"}')
    output = await ToolRegistry([search]).execute(call, ToolContext())
    assert output.is_error and "'all' is not one of ['content', 'count'] (at $.mode)" in output.text


async def test_bare_decorator_name_override_and_return_values() -> None:
    @tool
    async def plain() -> str:
        return "hi"

    @tool(name="shot", description="Take a picture.")
    async def screenshot() -> ToolOutput:
        """Ignored."""
        return ToolOutput.of([ImagePart(data=b"png")])

    assert plain.name == "plain" and plain.description == "" and not plain.read_only
    assert plain.parameters == {"type": "object", "properties": {}, "additionalProperties": False}
    assert await plain.execute({}, ToolContext()) == ToolOutput.of("hi")
    assert screenshot.name == "shot" and screenshot.description == "Take a picture."
    assert (await screenshot.execute({}, ToolContext())).content == (ImagePart(data=b"png"),)


def test_as_output() -> None:
    out = ToolOutput.error("x")
    assert as_output(out) is out
    assert as_output("text") == ToolOutput.of("text")
    assert as_output([1, "a", None]) == ToolOutput.of('[1, "a", null]')
    with pytest.raises(TypeError):
        as_output(object())


async def test_an_exception_in_the_function_is_an_error_result() -> None:
    @tool
    async def divide(a: float, b: float) -> float:
        return a / b

    call = ToolCallPart(id="c", name="divide", arguments={"a": 1, "b": 0})
    output = await ToolRegistry([divide]).execute(call, ToolContext())
    assert output == ToolOutput.error("Tool error (divide): ZeroDivisionError: division by zero")


@pytest.mark.parametrize(
    ("annotation", "schema"),
    [
        (str, {"type": "string"}),
        (bool, {"type": "boolean"}),
        (float, {"type": "number"}),
        (Any, {}),
        (Optional[int], {"type": ["integer", "null"]}),  # noqa: UP045 - Optional is supported too
        (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
        (Literal["a"] | None, {"type": ["string", "null"], "enum": ["a", None]}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (Sequence[str], {"type": "array", "items": {"type": "string"}}),
        (tuple[str, ...], {"type": "array", "items": {"type": "string"}}),
        (list, {"type": "array"}),
        (dict, {"type": "object"}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Annotated[str, "A path."], {"type": "string", "description": "A path."}),
        (
            dict[str, int] | None,
            {
                "anyOf": [
                    {"type": "object", "additionalProperties": {"type": "integer"}},
                    {"type": "null"},
                ]
            },
        ),
    ],
)
def test_json_schema_for(annotation: Any, schema: dict[str, Any]) -> None:
    assert json_schema_for(annotation) == schema
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("annotation", [bytes, dict[int, str], Literal[b"x"], object])
def test_unsupported_types_are_refused(annotation: Any) -> None:
    with pytest.raises(ConfigurationError):
        json_schema_for(annotation)


def test_mistakes_fail_at_decoration_time() -> None:
    def sync(a: str) -> str:
        return a

    async def variadic(*args: str) -> str:
        return ""

    async def unannotated(a) -> str:  # type: ignore[no-untyped-def]
        return ""

    async def unsupported(a: bytes) -> str:
        return ""

    with pytest.raises(ConfigurationError, match="async function"):
        tool(sync)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"\*args"):
        tool(variadic)
    with pytest.raises(ConfigurationError, match="'a': add a type annotation"):
        tool(unannotated)
    with pytest.raises(ConfigurationError, match="'a': no JSON Schema for the type"):
        tool(unsupported)
    with pytest.raises(ConfigurationError, match="invalid tool name"):
        tool(name="bad name")(_ok)


async def _ok() -> str:
    return ""


def test_docstring_sections() -> None:
    summary, args = parse_docstring(
        """Read a file.
        Really.

        Args:
            path (str): Where it is.
            *extra: Ignored extras,
                on two lines.
        Raises:
            OSError: when it cannot.
        """
    )
    assert summary == "Read a file. Really."
    assert args == {"path": "Where it is.", "extra": "Ignored extras, on two lines."}
    assert parse_docstring(None) == ("", {})
    assert parse_docstring("\n    Args:\n        a: b\n    ") == ("", {"a": "b"})


LINE_TEXT = st.text(st.characters(blacklist_categories=("Cc", "Zl", "Zp", "Cs")), max_size=30)


@given(st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), LINE_TEXT))
def test_arg_descriptions_round_trip(descriptions: dict[str, str]) -> None:
    lines = [f"    {name}: {text}" for name, text in descriptions.items()]
    _, parsed = parse_docstring("Summary.\n\nArgs:\n" + "\n".join(lines))
    assert parsed == {name: text.strip() for name, text in descriptions.items()}


async def test_enums_inside_optional_and_lists_are_converted() -> None:
    @tool
    async def paint(colours: list[Colour], accent: Colour | None = None) -> str:
        return ",".join(c.name for c in colours) + f";{accent and accent.name}"

    output = await paint.execute({"colours": ["red", "blue"], "accent": "blue"}, ToolContext())
    assert output.text == "RED,BLUE;BLUE"
    assert (await paint.execute({"colours": [], "accent": None}, ToolContext())).text == ";None"
