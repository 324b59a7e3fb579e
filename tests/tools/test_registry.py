from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.env import MemoryEnvironment
from taor.errors import ConfigurationError
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import ImagePart, TextPart, ToolCallPart
from taor.tools.base import Tool, ToolContext, ToolError, ToolOutput
from taor.tools.registry import RAW_ARGUMENTS_QUOTE_LIMIT, ToolRegistry

ECHO_SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "times": {"type": "integer", "minimum": 1},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["text"],
    "additionalProperties": False,
}


@dataclass(frozen=True, kw_only=True)
class EchoTool:
    name: str = "echo"
    description: str = "Echo the text."
    parameters: Mapping[str, Any] = field(default_factory=lambda: ECHO_SCHEMA)
    read_only: bool = True
    seen: list[tuple[dict[str, Any], str]] = field(default_factory=list)

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        self.seen.append((dict(arguments), context.call_id))
        context.on_output(arguments["text"])
        return ToolOutput.of(arguments["text"] * arguments.get("times", 1))


@dataclass(frozen=True, kw_only=True)
class RaisingTool:
    exc: BaseException
    name: str = "boom"
    description: str = "Fails."
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})
    read_only: bool = False

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        raise self.exc


def call(name: str, raw: str = "", **arguments: Any) -> ToolCallPart:
    raw = raw or (json.dumps(arguments) if arguments else "")
    return ToolCallPart(id="call_1", name=name, arguments=arguments, raw_arguments=raw)


async def run(registry: ToolRegistry, part: ToolCallPart) -> ToolOutput:
    return await registry.execute(part, ToolContext())


def test_a_dataclass_with_the_fields_is_a_tool() -> None:
    assert isinstance(EchoTool(), Tool)


def test_register_get_unregister_and_definitions() -> None:
    registry = ToolRegistry([EchoTool(), RaisingTool(exc=ValueError())])
    assert registry.names() == ["echo", "boom"]
    assert "echo" in registry and len(registry) == 2
    assert registry.definitions()[0] == ToolDefinition(
        name="echo", description="Echo the text.", parameters=ECHO_SCHEMA
    )
    boom = registry.get("boom")
    assert registry.unregister("boom") is boom
    assert registry.unregister("boom") is None
    assert registry.get("boom") is None
    assert [t.name for t in registry] == ["echo"]


def test_register_replaces_a_same_named_tool() -> None:
    first, second = EchoTool(description="first"), EchoTool(description="second")
    registry = ToolRegistry([first])
    registry.register(second)
    assert registry.get("echo") is second
    assert [d.description for d in registry.definitions()] == ["second"]


def test_a_bad_schema_or_name_is_refused_at_register() -> None:
    registry = ToolRegistry()
    with pytest.raises(ConfigurationError, match="invalid JSON Schema"):
        registry.register(EchoTool(parameters={"type": "object", "properties": {"a": 3}}))
    with pytest.raises(ConfigurationError, match="invalid tool name"):
        registry.register(EchoTool(name="has space"))
    assert len(registry) == 0


async def test_execute_runs_the_tool_with_parsed_arguments_and_the_call_id() -> None:
    tool = EchoTool()
    chunks: list[str] = []
    output = await ToolRegistry([tool]).execute(
        call("echo", text="ab", times=2), ToolContext(on_output=chunks.append)
    )
    assert output == ToolOutput.of("abab")
    assert tool.seen == [({"text": "ab", "times": 2}, "call_1")]
    assert chunks == ["ab"]


async def test_arguments_without_raw_text_are_used_as_given() -> None:
    part = ToolCallPart(id="c", name="echo", arguments={"text": "x"})
    assert (await run(ToolRegistry([EchoTool()]), part)).text == "x"


async def test_unknown_tool_lists_the_available_ones() -> None:
    output = await run(ToolRegistry([EchoTool(), RaisingTool(exc=ValueError())]), call("ecko"))
    assert output.is_error
    assert output.text == "Unknown tool: ecko. Available tools: boom, echo."


async def test_invalid_json_quotes_the_raw_arguments() -> None:
    tool = EchoTool()
    output = await run(ToolRegistry([tool]), call("echo", raw='{"text": "a",'))
    assert output.is_error
    assert "Invalid arguments for tool echo: not valid JSON" in output.text
    assert output.text.endswith('Raw arguments: {"text": "a",')
    assert tool.seen == []


async def test_json_that_is_not_an_object_is_refused() -> None:
    output = await run(ToolRegistry([EchoTool()]), call("echo", raw='["a"]'))
    assert output.is_error
    assert "expected a JSON object, got list" in output.text


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, "'text' is a required property"),
        ({"text": 3}, "3 is not of type 'string' (at $.text)"),
        ({"text": "a", "times": 0}, "0 is less than the minimum of 1 (at $.times)"),
        ({"text": "a", "tags": ["x", 2]}, "2 is not of type 'string' (at $.tags[1])"),
        ({"text": "a", "colour": "red"}, "Additional properties are not allowed"),
    ],
)
async def test_schema_violations_quote_the_validator_and_the_raw_arguments(
    arguments: dict[str, Any], expected: str
) -> None:
    tool = EchoTool()
    raw = json.dumps(arguments)
    output = await run(ToolRegistry([tool]), call("echo", raw=raw or "{}"))
    assert output.is_error
    assert output.text.startswith("Invalid arguments for tool echo: ")
    assert expected in output.text
    assert output.text.endswith(f"Raw arguments: {raw}")
    assert tool.seen == []


async def test_very_long_raw_arguments_are_quoted_with_a_cut() -> None:
    raw = json.dumps({"text": 1, "pad": "x" * 10_000})
    output = await run(ToolRegistry([EchoTool()]), call("echo", raw=raw))
    quoted = output.text.split("Raw arguments: ", 1)[1]
    assert quoted.startswith(raw[:RAW_ARGUMENTS_QUOTE_LIMIT])
    assert quoted.endswith(f"[{len(raw) - RAW_ARGUMENTS_QUOTE_LIMIT} more characters]")


async def test_an_exception_becomes_an_error_with_its_type_and_message() -> None:
    output = await run(ToolRegistry([RaisingTool(exc=KeyError("missing"))]), call("boom"))
    assert output == ToolOutput.error("Tool error (boom): KeyError: 'missing'")
    assert "Traceback" not in output.text


async def test_a_tool_error_reaches_the_model_as_its_message() -> None:
    tool = RaisingTool(exc=ToolError("file not found: a.py"))
    assert await run(ToolRegistry([tool]), call("boom")) == ToolOutput.error("file not found: a.py")


async def test_a_tool_returning_something_else_is_an_error() -> None:
    @dataclass(frozen=True, kw_only=True)
    class Sloppy(EchoTool):
        async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> Any:
            return "plain string"

    output = await run(ToolRegistry([Sloppy()]), call("echo", text="a"))
    assert output.is_error and "returned str, not ToolOutput" in output.text


async def test_cancellation_propagates() -> None:
    tool = RaisingTool(exc=asyncio.CancelledError())
    with pytest.raises(asyncio.CancelledError):
        await run(ToolRegistry([tool]), call("boom"))


async def test_cancelling_the_task_cancels_the_tool() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    @dataclass(frozen=True, kw_only=True)
    class Slow(EchoTool):
        async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
            started.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return ToolOutput.of("late")

    task = asyncio.create_task(run(ToolRegistry([Slow()]), call("echo", text="a")))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cancelled.is_set()


def test_output_to_result_keeps_parts_and_error_flag() -> None:
    image = ImagePart(data=b"\x89PNG")
    output = ToolOutput.of([TextPart(text="see"), image], metadata={"bytes": 4})
    result = output.to_result("call_9", name="shot")
    assert result.call_id == "call_9" and result.name == "shot"
    assert result.content == (TextPart(text="see"), image)
    assert not result.is_error
    assert ToolOutput.error("bad").to_result("c").is_error
    assert output.text == "see" and output.metadata == {"bytes": 4}


@given(st.text(max_size=200))
def test_execute_never_raises_on_any_raw_arguments(raw: str) -> None:
    output = asyncio.run(run(ToolRegistry([EchoTool()]), call("echo", raw=raw)))
    assert isinstance(output, ToolOutput)
    if output.is_error:
        assert output.text.startswith("Invalid arguments for tool echo")


async def test_every_call_is_recorded_by_an_environment_that_intercepts_tools() -> None:
    env = MemoryEnvironment()
    registry = ToolRegistry([EchoTool(), RaisingTool(exc=KeyError("k"))])
    context = ToolContext(environment=env)
    assert (await registry.execute(call("echo", text="a"), context)).text == "a"
    failed = await registry.execute(call("boom"), context)
    assert failed.is_error and failed.text == "Tool error (boom): KeyError: 'k'"
    await registry.execute(call("echo", text=3), context)  # invalid: never reaches the tool
    await registry.execute(call("nope"), context)
    echo, boom = env.calls
    assert (echo.operation, echo.arguments, echo.result) == (
        "tool:echo",
        {"text": "a"},
        ToolOutput.of("a"),
    )
    assert boom.operation == "tool:boom" and isinstance(boom.error, KeyError)
    assert not echo.injected and not boom.injected


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (TimeoutError, "Tool error (echo): TimeoutError: "),
        (OSError("disk gone"), "Tool error (echo): OSError: disk gone"),
        (ToolError("try later"), "try later"),
    ],
)
async def test_an_injected_error_is_an_error_output_like_an_exception(
    error: BaseException | type[BaseException], expected: str
) -> None:
    env, tool = MemoryEnvironment(), EchoTool()
    env.fail_tool("echo", nth=2, error=error)
    context = ToolContext(environment=env)
    first = await ToolRegistry([tool]).execute(call("echo", text="a"), context)
    second = await ToolRegistry([tool]).execute(call("echo", text="b"), context)
    assert not first.is_error
    assert second == ToolOutput.error(expected)
    assert [args for args, _ in tool.seen] == [{"text": "a"}]  # the second call did not run
    assert [c.injected for c in env.calls_of("tool:echo")] == [False, True]


async def test_an_injected_result_replaces_the_call() -> None:
    env, tool = MemoryEnvironment(), EchoTool()
    registry, context = ToolRegistry([tool]), ToolContext(environment=env)
    canned = ToolOutput.of([TextPart(text="canned")], metadata={"simulated": True})
    env.fail_tool("echo", result=canned)
    assert await registry.execute(call("echo", text="a"), context) is canned
    env.fail_tool("echo", result="as text")
    assert await registry.execute(call("echo", text="a"), context) == ToolOutput.of("as text")
    env.fail_tool("echo", result=42)
    wrong = await registry.execute(call("echo", text="a"), context)
    assert wrong.is_error and "returned int, not ToolOutput" in wrong.text
    assert tool.seen == []
    assert [c.result for c in env.calls_of("tool:echo")] == [canned, "as text", 42]


async def test_a_tool_returning_a_str_through_an_interceptor_is_still_an_error() -> None:
    @dataclass(frozen=True, kw_only=True)
    class Sloppy(EchoTool):
        async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
            return "plain"  # type: ignore[return-value]

    context = ToolContext(environment=MemoryEnvironment())
    output = await ToolRegistry([Sloppy()]).execute(call("echo", text="a"), context)
    assert output.is_error and "returned str, not ToolOutput" in output.text


async def test_cancellation_propagates_through_an_interceptor() -> None:
    env = MemoryEnvironment()
    registry, context = ToolRegistry([EchoTool()]), ToolContext(environment=env)
    env.fail_tool("echo", error=asyncio.CancelledError)
    with pytest.raises(asyncio.CancelledError):
        await registry.execute(call("echo", text="a"), context)
    raising = ToolRegistry([RaisingTool(exc=asyncio.CancelledError())])
    with pytest.raises(asyncio.CancelledError):
        await raising.execute(call("boom"), context)
    assert [type(c.error) for c in env.calls] == [asyncio.CancelledError] * 2
