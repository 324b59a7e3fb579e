"""The core loop, tool execution and error handling, with scripted models."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from taor.agent.events import (
    ErrorEvent,
    LoopDetection,
    ProcessingEnd,
    SessionEnd,
    SessionStart,
    SteeringInjected,
    ToolCallEnd,
    TurnLimit,
    WarningEvent,
)
from taor.agent.record.turns import SteeringTurn, ToolResultsTurn
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.errors import AuthenticationError, ContextLengthError, SessionClosedError
from taor.llm.types import ToolResultPart
from taor.testing import Reply, ScriptedModel, ToolCall, text, tool_calls
from taor.tools.base import ToolContext
from taor.tools.decorator import tool

from .loop_support import assert_valid, collect, config, kinds, limits, of, session


def results_sent(request: Any) -> list[ToolResultPart]:
    """The tool results in the last message of a request."""
    return [p for p in request.messages[-1].parts if isinstance(p, ToolResultPart)]


# --- the core loop ---


async def test_session_is_created_idle_and_announces_itself() -> None:
    """A session built from a model, an environment and tools starts idle."""
    model = ScriptedModel([text("hi")], provider="anthropic", model_id="claude-fable-5-1")
    env = MemoryEnvironment()
    s = Session(model, environment=env, config=config())
    assert s.state == "idle"
    assert "read_file" in s.tools.names()
    events = s.events()
    await s.start()
    first = await anext(events)
    assert isinstance(first, SessionStart)
    assert (first.session_id, first.provider, first.model) == (
        s.id,
        "anthropic",
        "claude-fable-5-1",
    )
    assert s.state == "idle"
    assert "initialize" in [c.operation for c in env.log.calls]
    await s.close()
    await events.aclose()


async def test_input_runs_model_then_tools_until_a_text_answer() -> None:
    """Model stream -> tool execution -> model again, until it answers with text."""
    env = MemoryEnvironment(files={"notes.txt": "draft\n"})
    model = ScriptedModel(
        [
            tool_calls(("read_file", {"path": "notes.txt"})),
            tool_calls(("write_file", {"path": "notes.txt", "content": "final\n"})),
            text("Rewrote notes.txt."),
        ]
    )
    async with session(model, env) as s:
        result = await s.run("Finish the notes.")
    assert result.stop_reason == "completed"
    assert result.text == "Rewrote notes.txt."
    assert (result.turns, result.tool_calls) == (3, 2)
    assert env.files["notes.txt"] == b"final\n"
    assert len(model.requests) == 3
    assert "draft" in results_sent(model.requests[1])[0].text
    assert not results_sent(model.requests[2])[0].is_error
    model.assert_done()


async def test_text_only_answer_ends_the_cycle_and_the_session_is_idle() -> None:
    """A response without tool calls ends the loop; the session is idle again."""
    model = ScriptedModel([text("Nothing to do.")])
    async with session(model) as s:
        events = await collect(s, "Anything?")
        assert s.state == "idle"
    end = events[-1]
    assert isinstance(end, ProcessingEnd)
    assert (end.stop_reason, end.text) == ("completed", "Nothing to do.")
    assert len(model.requests) == 1


async def test_sequential_inputs_share_the_history() -> None:
    """Submit, complete, submit again: the second cycle sees the first."""
    model = ScriptedModel([text("First answer."), text("Second answer.")])
    async with session(model) as s:
        first = await collect(s, "one")
        second = await collect(s, "two")
        assert s.state == "idle"
    ends = [first[-1], second[-1]]
    assert all(isinstance(e, ProcessingEnd) for e in ends)
    assert [(e.cycle, e.text) for e in ends] == [(1, "First answer."), (2, "Second answer.")]  # type: ignore[union-attr]
    texts = [m.text for m in model.requests[1].messages]
    assert texts == ["one", "First answer.", "two"]


async def test_tool_round_limit_stops_the_cycle_with_turn_limit() -> None:
    """When ``max_tool_rounds`` is reached, the loop stops and emits turn_limit."""
    env = MemoryEnvironment(files={"a.txt": "a"})
    model = ScriptedModel(
        [
            tool_calls(("read_file", {"path": "a.txt"})),
            tool_calls(("list_dir", {"path": "."})),
            text("Summary: read a.txt and listed the directory."),
        ]
    )
    async with session(model, env, limits(max_tool_rounds=2)) as s:
        events = await collect(s, "explore")
    (limit,) = of(events, TurnLimit)
    assert (limit.limit, limit.value) == ("tool_rounds", 2)
    assert events[-1].stop_reason == "turn_limit"  # type: ignore[union-attr]
    model.assert_done()


async def test_model_call_limit_counts_across_the_session() -> None:
    """``max_model_calls`` counts per session: the second input hits it (and no summary
    call passes it)."""
    model = ScriptedModel([tool_calls(("list_dir", {})), text("first done")])
    cfg = limits(max_model_calls=2)
    async with session(model, MemoryEnvironment(), cfg) as s:
        first = await s.run("one")
        events = await collect(s, "two")
        assert s.state == "idle"
    assert first.stop_reason == "completed"
    (limit,) = of(events, TurnLimit)
    assert limit.limit == "model_calls"
    assert events[-1].stop_reason == "turn_limit"  # type: ignore[union-attr]
    model.assert_done()


async def test_abort_cancels_the_stream_kills_commands_and_closes() -> None:
    """``close()`` while a command runs: it is cancelled, the session is closed."""
    env = MemoryEnvironment()
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def forever(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    env.script("make build", forever)
    model = ScriptedModel([tool_calls(("shell", {"command": "make build"})), text("unused")])
    s = session(model, env)
    events = s.events()
    cycle = asyncio.ensure_future(collect(s, "build it"))
    await started.wait()
    await s.close()
    seen = [e async for e in events]
    assert cancelled.is_set()
    assert s.state == "closed"
    assert isinstance(seen[-1], SessionEnd)
    assert (await cycle)[-1].stop_reason == "closed"  # type: ignore[union-attr]
    assert_valid(s)
    last = s.history[-2]
    assert isinstance(last, ToolResultsTurn) and last.results[0].is_error
    with pytest.raises(SessionClosedError):
        await s.run("more")


async def test_abort_mid_stream_closes_the_session() -> None:
    """``close()`` while the model is still streaming cancels the stream."""
    asked = asyncio.Event()

    def slow(request: Any) -> Reply:
        asked.set()
        return Reply(text="slow", delay=60)

    s = session(ScriptedModel([slow]))
    cycle = asyncio.ensure_future(collect(s, "go"))
    await asked.wait()
    await s.close()
    events = await cycle
    assert events[-1].stop_reason == "closed"  # type: ignore[union-attr]
    assert s.state == "closed"
    assert_valid(s)


async def test_repeated_calls_inject_a_warning_and_emit_loop_detection() -> None:
    """A repeating pattern over the window: a steering warning and loop_detection."""
    env = MemoryEnvironment(files={"a.txt": "a"})
    read = tool_calls(("read_file", {"path": "a.txt"}))
    model = ScriptedModel([read] * 10 + [text("I will try something else.")])
    async with session(model, env) as s:
        events = await collect(s, "read it")
    (detected,) = of(events, LoopDetection)
    assert (detected.cycle_length, detected.stopped) == (1, False)
    (steering,) = of(events, SteeringInjected)
    assert steering.source == "loop_detection"
    assert next(t for t in s.history if isinstance(t, SteeringTurn)).text == steering.text
    assert steering.text in model.requests[-1].messages[-1].text
    assert events[-1].stop_reason == "completed"  # type: ignore[union-attr]


# --- tool execution ---


async def test_tools_get_their_arguments_and_the_environment() -> None:
    """Calls are dispatched through the registry; the tool gets args and the env."""
    env = MemoryEnvironment()
    seen: list[tuple[str, Any]] = []

    @tool
    async def greet(name: str, context: ToolContext) -> str:
        """Greet someone.

        Args:
            name: Who.
        """
        seen.append((name, context.environment))
        return f"hello {name}"

    model = ScriptedModel([tool_calls(("greet", {"name": "Ada"})), text("ok")])
    async with session(model, env, tools=[greet]) as s:
        await s.run("greet Ada")
    assert seen == [("Ada", env)]
    assert results_sent(model.requests[1])[0].text == "hello Ada"
    assert [d.name for d in model.requests[0].tools] == ["greet"]


async def test_unknown_tool_is_an_error_result_not_an_exception() -> None:
    """An unknown tool name comes back to the model as an is_error result."""
    model = ScriptedModel([tool_calls(("teleport", {"to": "mars"})), text("sorry")])
    async with session(model) as s:
        result = await s.run("go")
    assert result.stop_reason == "completed"
    (sent,) = results_sent(model.requests[1])
    assert sent.is_error and "teleport" in sent.text


async def test_invalid_json_arguments_are_a_validation_error_result() -> None:
    """Unparsable arguments: an error result with the problem and the raw text."""
    bad = Reply(tool_calls=(ToolCall(name="read_file", arguments='{"path": "a.txt"'),))
    wrong = tool_calls(("read_file", {"path": 42}))
    model = ScriptedModel([bad, wrong, text("giving up")])
    async with session(model) as s:
        events = await collect(s, "read")
    (first,) = results_sent(model.requests[1])
    assert first.is_error and '{"path": "a.txt"' in first.text
    (second,) = results_sent(model.requests[2])
    assert second.is_error and "path" in second.text
    assert [e.is_error for e in of(events, ToolCallEnd)] == [True, True]


async def test_a_tool_that_raises_becomes_an_error_result() -> None:
    """An exception in a tool is caught and returned as an error result."""

    @tool
    async def explode() -> str:
        """Always fails."""
        raise RuntimeError("boom: the widget broke")

    model = ScriptedModel([tool_calls(("explode", {})), text("it failed")])
    async with session(model, tools=[explode]) as s:
        result = await s.run("try")
    assert result.stop_reason == "completed"
    (sent,) = results_sent(model.requests[1])
    assert sent.is_error and "boom: the widget broke" in sent.text


# --- error handling ---


async def test_tool_errors_go_to_the_model_which_recovers() -> None:
    """A failing tool call is an error result; the model tries again and succeeds."""
    env = MemoryEnvironment(files={"b.txt": "found it"})
    model = ScriptedModel(
        [
            tool_calls(("read_file", {"path": "a.txt"})),
            tool_calls(("read_file", {"path": "b.txt"})),
            text("b.txt says: found it"),
        ]
    )
    async with session(model, env) as s:
        result = await s.run("find it")
    assert result.stop_reason == "completed"
    assert results_sent(model.requests[1])[0].is_error
    assert "found it" in results_sent(model.requests[2])[0].text


async def test_authentication_error_is_raised_and_closes_the_session() -> None:
    """AuthenticationError surfaces at once (run raises) and the session closes."""
    model = ScriptedModel([AuthenticationError("invalid x-api-key", provider="scripted")])
    s = session(model)
    events = s.events()
    with pytest.raises(AuthenticationError):
        await s.run("hi")
    seen = [e async for e in events]
    (error,) = of(seen, ErrorEvent)
    assert error.fatal and error.error_type == "AuthenticationError"
    assert isinstance(seen[-1], SessionEnd)
    assert s.state == "closed"
    assert len(model.requests) == 1  # not retried


async def test_context_length_error_ends_the_cycle_and_keeps_the_session() -> None:
    """A ContextLengthError ends the cycle with an error event and a ``context_length``
    warning; the session is not closed but stays usable, so the host can compact or start
    over."""
    model = ScriptedModel(
        [ContextLengthError("prompt is too long", provider="scripted"), text("fine now")]
    )
    async with session(model) as s:
        events = await collect(s, "a huge prompt")
        assert s.state == "idle"
        (error,) = of(events, ErrorEvent)
        assert not error.fatal and error.error_type == "ContextLengthError"
        # one message: nothing to compact (the compaction's warning), so no retry
        codes = [w.code for w in of(events, WarningEvent)]
        assert codes == ["compaction", "context_length", "input_refused"]
        assert events[-1].stop_reason == "error"  # type: ignore[union-attr]
        again = await s.run("a small prompt")
    assert (again.stop_reason, again.text) == ("completed", "fine now")
    assert len(model.requests) == 2  # not retried
    assert [m.text for m in model.requests[1].messages] == ["a small prompt"]  # refused: left out


async def test_graceful_shutdown_order(tmp_path: Any) -> None:
    """``close()`` cancels the stream and the commands, writes the synthetic results and
    flushes them, then session_end is the last event and the state is closed."""
    env = MemoryEnvironment()
    started = asyncio.Event()

    async def slow(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        started.set()
        await asyncio.sleep(60)
        return "never"

    env.script("sleep 60", slow)
    model = ScriptedModel([tool_calls(("shell", {"command": "sleep 60"}))])
    path = tmp_path / "session.jsonl"
    s = Session.recorded(path, model, environment=env, config=config())
    events = s.events()
    cycle = asyncio.ensure_future(collect(s, "wait"))
    await started.wait()
    await s.close()
    seen = [e async for e in events]
    await cycle
    order = kinds(seen)
    assert order[-1] == "session_end"
    assert order.index("interrupted") < order.index("processing_end") < order.index("session_end")
    assert s.state == "closed"
    assert env.log.calls[-1].operation == "cleanup"
    assert_valid(s)
    reopened = Session.resume(path, ScriptedModel([]), environment=MemoryEnvironment())
    assert [t.kind for t in reopened.history] == [t.kind for t in s.history]
