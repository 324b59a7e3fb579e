"""Hooks through a running session: before_tool changes, denies or answers a call
(changed arguments are validated and permission-checked again), after_tool replaces the output,
on_user_prompt rewrites the prompt, on_stop continues the loop, and a failing hook is an error
event plus a clear tool error, never a crash."""

from __future__ import annotations

from typing import Any

import pytest

from taor.agent.policy.hooks import (
    AnswerCall,
    BeforeToolResult,
    ChangeArguments,
    DenyCall,
    Hooks,
    ToolCallInfo,
)
from taor.agent.record.turns import SteeringTurn, UserTurn
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm.types import TextPart
from taor.testing import ScriptedModel, text, tool_calls
from taor.tools.base import ToolOutput

from .session_drive import (
    assert_valid,
    config,
    drive,
    last_results,
    of_kind,
    result_text,
    sent_results,
)

READ_A = ("read_file", {"path": "a.txt"})


def files() -> MemoryEnvironment:
    return MemoryEnvironment(files={"a.txt": "alpha\n", "b.txt": "beta\n"})


def session_with(hooks: Hooks, model: ScriptedModel, env: MemoryEnvironment, **kw: Any) -> Session:
    return Session(model, environment=env, config=kw.pop("settings", config()), hooks=hooks, **kw)


async def test_before_tool_changes_the_arguments() -> None:
    async def to_b(call: ToolCallInfo) -> BeforeToolResult | None:
        return ChangeArguments(arguments={**call.arguments, "path": "b.txt"})

    env, model = files(), ScriptedModel([tool_calls(READ_A), text("done")])
    async with session_with(Hooks(before_tool=(to_b,)), model, env) as session:
        events = await drive(session, "go")
    (start,) = of_kind(events, "tool_call_start")
    (end,) = of_kind(events, "tool_call_end")
    assert start.arguments == {"path": "a.txt"}  # what the model asked for
    assert "beta" in end.output and not end.is_error
    assert [c.arguments["path"] for c in env.calls_of("read_text")] == ["b.txt"]


async def test_changed_arguments_are_validated_again() -> None:
    async def broken(call: ToolCallInfo) -> BeforeToolResult | None:
        return ChangeArguments(arguments={"path": 5})

    env, model = files(), ScriptedModel([tool_calls(READ_A), text("done")])
    async with session_with(Hooks(before_tool=(broken,)), model, env) as session:
        await drive(session, "go")
    (result,) = last_results(session)
    assert result.is_error and "path" in result_text(result)
    assert env.calls_of("tool:read_file") == []


async def test_changed_arguments_go_through_the_permission_rules() -> None:
    async def sneaky(call: ToolCallInfo) -> BeforeToolResult | None:
        return ChangeArguments(arguments={"command": "rm -rf build"})

    env = files()
    env.script("ls", "a.txt\n")
    model = ScriptedModel([tool_calls(("shell", {"command": "ls"})), text("done")])
    settings = config("bypass", deny=("shell(rm *)",))
    async with session_with(Hooks(before_tool=(sneaky,)), model, env, settings=settings) as s:
        await drive(s, "go")
    (result,) = last_results(s)
    assert result.is_error and "shell(rm *)" in result_text(result)
    assert env.calls_of("run") == []


async def test_before_tool_denies_with_a_message_for_the_model() -> None:
    async def no_reads(call: ToolCallInfo) -> BeforeToolResult | None:
        return DenyCall(message="reading a.txt is not allowed today")

    env, model = files(), ScriptedModel([tool_calls(READ_A), text("done")])
    async with session_with(Hooks(before_tool=(no_reads,)), model, env) as session:
        await drive(session, "go")
    (sent,) = sent_results(model.requests[1])
    assert sent.is_error and "reading a.txt is not allowed today" in result_text(sent)
    assert env.calls_of("tool:read_file") == []


async def test_before_tool_answers_in_place_of_the_tool() -> None:
    async def cached(call: ToolCallInfo) -> BeforeToolResult | None:
        return AnswerCall(output=ToolOutput.of("cached contents"))

    env, model = files(), ScriptedModel([tool_calls(READ_A), text("done")])
    async with session_with(Hooks(before_tool=(cached,)), model, env) as session:
        events = await drive(session, "go")
    assert of_kind(events, "tool_call_end")[0].output == "cached contents"
    assert result_text(sent_results(model.requests[1])[0]) == "cached contents"
    assert env.calls_of("tool:read_file") == []


async def test_after_tool_replaces_the_output() -> None:
    seen: list[str] = []

    async def redact(call: ToolCallInfo, output: ToolOutput) -> ToolOutput | None:
        seen.append(output.text)
        return ToolOutput.of(output.text.replace("alpha", "[redacted]"))

    env, model = files(), ScriptedModel([tool_calls(READ_A), text("done")])
    async with session_with(Hooks(after_tool=(redact,)), model, env) as session:
        events = await drive(session, "go")
    assert "alpha" in seen[0]
    sent = result_text(sent_results(model.requests[1])[0])
    assert "[redacted]" in sent and "alpha" not in sent
    assert "[redacted]" in of_kind(events, "tool_call_end")[0].output


async def test_on_user_prompt_rewrites_the_prompt() -> None:
    async def expand(prompt: str) -> str | None:
        return prompt + " (answer in French)"

    model = ScriptedModel([text("bonjour")])
    async with session_with(Hooks(on_user_prompt=(expand,)), model, files()) as session:
        events = await drive(session, "say hi")
    assert of_kind(events, "user_input")[0].text == "say hi (answer in French)"
    assert model.requests[0].messages[0].parts == (TextPart(text="say hi (answer in French)"),)
    first = session.history[0]
    assert isinstance(first, UserTurn) and first.text == "say hi (answer in French)"


async def test_on_stop_continues_the_loop_once() -> None:
    stops: list[str] = []

    async def check_tests(final_text: str) -> str | None:
        stops.append(final_text)
        return "Run the tests before you finish." if len(stops) == 1 else None

    model = ScriptedModel([text("all done"), text("tests pass, done")])
    async with session_with(Hooks(on_stop=(check_tests,)), model, files()) as session:
        events = await drive(session, "go")
    assert stops == ["all done", "tests pass, done"]
    (injected,) = of_kind(events, "steering_injected")
    assert (injected.source, injected.text) == ("hook", "Run the tests before you finish.")
    assert model.requests[1].messages[-1].text == "Run the tests before you finish."
    assert any(isinstance(t, SteeringTurn) and t.source == "hook" for t in session.history)
    end = of_kind(events, "processing_end")[0]
    assert (end.stop_reason, end.text) == ("completed", "tests pass, done")
    assert_valid(session)


async def _boom_before(call: ToolCallInfo) -> BeforeToolResult | None:
    raise RuntimeError("before boom")


async def _boom_after(call: ToolCallInfo, output: ToolOutput) -> ToolOutput | None:
    raise RuntimeError("after boom")


async def _wrong_type(call: ToolCallInfo) -> Any:
    return "not a hook result"


@pytest.mark.parametrize(
    ("hooks", "says", "ran"),
    [
        (Hooks(before_tool=(_boom_before,)), "before boom", False),
        (Hooks(after_tool=(_boom_after,)), "after boom", True),
        (Hooks(before_tool=(_wrong_type,)), "returned str", False),
    ],
)
async def test_a_failing_tool_hook_is_an_error_event_and_an_error_result(
    hooks: Hooks, says: str, ran: bool
) -> None:
    env = files()
    model = ScriptedModel([tool_calls(READ_A), text("noted"), text("again")])
    async with session_with(hooks, model, env) as session:
        events = await drive(session, "go")
        (error,) = of_kind(events, "error")
        assert says in error.message and not error.fatal
        (result,) = last_results(session)
        assert result.is_error and "hook" in result_text(result) and says in result_text(result)
        assert len(env.calls_of("tool:read_file")) == (1 if ran else 0)
        assert of_kind(events, "processing_end")[0].stop_reason == "completed"
        assert (await session.run("and now?")).text == "again"
        assert_valid(session)


async def test_a_failing_prompt_hook_keeps_the_prompt_and_reports_it() -> None:
    async def boom(prompt: str) -> str | None:
        raise ValueError("prompt boom")

    model = ScriptedModel([text("fine")])
    async with session_with(Hooks(on_user_prompt=(boom,)), model, files()) as session:
        events = await drive(session, "original prompt")
    assert "prompt boom" in of_kind(events, "error")[0].message
    assert model.requests[0].messages[0].text == "original prompt"
    assert of_kind(events, "processing_end")[0].text == "fine"


async def test_a_failing_stop_hook_ends_the_cycle_as_it_would_have() -> None:
    async def boom(final_text: str) -> str | None:
        raise ValueError("stop boom")

    model = ScriptedModel([text("done"), text("still here")])
    async with session_with(Hooks(on_stop=(boom,)), model, files()) as session:
        events = await drive(session, "go")
        assert "stop boom" in of_kind(events, "error")[0].message
        end = of_kind(events, "processing_end")[0]
        assert (end.stop_reason, end.text) == ("completed", "done")
        assert len(model.requests) == 1
        assert (await session.run("more")).text == "still here"
