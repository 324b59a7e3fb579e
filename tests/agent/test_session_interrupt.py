"""Interrupting a running tool call: the host sees every started call end, the model sees an
``interrupted`` result, and the next input runs normally."""

from __future__ import annotations

import asyncio

from taor.agent.events import Interrupted, ProcessingEnd, ToolCallEnd, ToolCallStart
from taor.env.memory import MemoryEnvironment
from taor.testing import ScriptedModel, text, tool_calls

from .loop_support import assert_valid, of, session


async def test_an_interrupted_tool_call_still_ends_for_the_host() -> None:
    env = MemoryEnvironment()
    started = asyncio.Event()

    async def slow(command: str, cwd: str, env_vars: object) -> str:
        started.set()
        await asyncio.sleep(30)
        return "never"

    env.script("make", slow)
    model = ScriptedModel([tool_calls(("shell", {"command": "make"})), text("next")])
    async with session(model, env) as s:
        events = []

        async def read() -> None:
            async for event in s.submit("build"):
                events.append(event)

        reader = asyncio.create_task(read())
        await started.wait()
        s.interrupt()
        await reader
        (start,) = of(events, ToolCallStart)
        (end,) = of(events, ToolCallEnd)
        assert end.call_id == start.call_id and end.is_error
        assert "Interrupted" in end.output
        assert of(events, Interrupted) and isinstance(events[-1], ProcessingEnd)
        assert events[-1].stop_reason == "interrupted"
        assert_valid(s)
        assert (await s.run("go on")).text == "next"


async def test_an_input_interrupted_before_its_first_step_is_still_recorded() -> None:
    model = ScriptedModel([text("answered")])
    async with session(model, MemoryEnvironment()) as s:
        stream = s.submit("first thing")
        s.interrupt()  # before the driver ran a step of it
        events = [event async for event in stream]
        assert [e.kind for e in events] == ["user_input", "interrupted", "processing_end"]
        assert [t.kind for t in s.history] == ["user"]
        assert (await s.run("second thing")).text == "answered"
        assert_valid(s)
    (request,) = model.requests
    assert "first thing" in request.messages[0].text and "second thing" in request.messages[0].text
