"""A host's commands carried out by ``Session.apply`` on a real session (a scripted model, a
real folder and real commands): each does what the method of its name does, acknowledged by
the same events."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from taor.agent.commands import (
    Answer,
    Close,
    FollowUp,
    Interrupt,
    ListCheckpoints,
    Rewind,
    Steer,
    Submit,
)
from taor.agent.config import PermissionConfig
from taor.agent.events import (
    Event,
    FollowUpQueued,
    PermissionRequest,
    ProcessingEnd,
    SessionEnd,
    SteeringInjected,
    ToolCallEnd,
    ToolCallStart,
    UserInput,
)
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.llm.types import Request
from taor.testing import ScriptedModel, text, tool_calls

from .loop_support import config

OnEvent = Callable[[Event], Awaitable[None]]


def session(tmp_path: Path, model: ScriptedModel, **fields: Any) -> Session:
    return Session(model, environment=LocalEnvironment(tmp_path), config=config(**fields))


async def until_end(events: AsyncIterator[Event], on: OnEvent | None = None) -> list[Event]:
    """The events up to the end of a cycle (``on`` sees each as it comes)."""
    seen: list[Event] = []
    async for event in events:
        seen.append(event)
        if on is not None:
            await on(event)
        if isinstance(event, ProcessingEnd) and not event.agent_id:
            return seen
    raise AssertionError(f"the session ended before the cycle did: {seen}")


def sent(request: Request) -> str:
    return repr(request.messages)


async def test_submit_runs_the_input_as_a_cycle(tmp_path: Path) -> None:
    model = ScriptedModel([text("Hello.")])
    async with session(tmp_path, model) as s:
        events = s.events()
        assert await s.apply(Submit(text="hi there")) is None
        seen = await until_end(events)
    assert [e.text for e in seen if isinstance(e, UserInput)] == ["hi there"]
    end = seen[-1]
    assert isinstance(end, ProcessingEnd) and (end.stop_reason, end.text) == ("completed", "Hello.")
    assert "hi there" in sent(model.requests[0])


async def test_steer_reaches_the_model_after_the_tool_round(tmp_path: Path) -> None:
    async def call_and_steer(request: Request) -> Any:
        await s.apply(Steer(text="use tabs, not spaces"))
        return tool_calls(("shell", {"command": "echo ran"}))

    model = ScriptedModel([call_and_steer, text("Used tabs.")])
    async with session(tmp_path, model) as s:
        events = s.events()
        await s.apply(Submit(text="format it"))
        seen = await until_end(events)
    assert [e.text for e in seen if isinstance(e, SteeringInjected)] == ["use tabs, not spaces"]
    assert "use tabs, not spaces" not in sent(model.requests[0])
    assert "use tabs, not spaces" in sent(model.requests[1])


async def test_follow_up_runs_as_a_cycle_of_its_own(tmp_path: Path) -> None:
    model = ScriptedModel([text("First."), text("Then.")])
    async with session(tmp_path, model) as s:
        events = s.events()
        await s.apply(Submit(text="one"))
        await s.apply(FollowUp(text="two"))
        first, second = await until_end(events), await until_end(events)
    assert [e.text for e in first if isinstance(e, FollowUpQueued)] == ["two"]
    assert [e.text for e in second if isinstance(e, UserInput)] == ["two"]
    assert [e.text for e in (first[-1], second[-1]) if isinstance(e, ProcessingEnd)] == [
        "First.",
        "Then.",
    ]


async def test_interrupt_stops_a_running_command(tmp_path: Path) -> None:
    model = ScriptedModel([tool_calls(("shell", {"command": "sleep 60; touch late"}))])
    async with session(tmp_path, model) as s:

        async def interrupt_at_start(event: Event) -> None:
            if isinstance(event, ToolCallStart):
                assert await s.apply(Interrupt()) is None

        events = s.events()
        await s.apply(Submit(text="wait"))
        seen = await until_end(events, interrupt_at_start)
        assert s.state == "idle"  # usable again
    end = seen[-1]
    assert isinstance(end, ProcessingEnd) and end.stop_reason == "interrupted"
    assert not (tmp_path / "late").exists()


@pytest.mark.parametrize(("decision", "made"), [("allow", True), ("deny", False)])
async def test_answer_settles_a_permission_request(
    tmp_path: Path, decision: Any, made: bool
) -> None:
    model = ScriptedModel([tool_calls(("shell", {"command": "touch made"})), text("Done.")])
    asks = PermissionConfig(mode="default", interactive=True)
    async with session(tmp_path, model, permissions=asks) as s:

        async def answer(event: Event) -> None:
            if isinstance(event, PermissionRequest):
                reply = Answer(request_id=event.request_id, decision=decision, message="not now")
                assert await s.apply(reply) is None

        events = s.events()
        await s.apply(Submit(text="make it"))
        seen = await until_end(events, answer)
    (end,) = [e for e in seen if isinstance(e, ToolCallEnd)]
    assert (tmp_path / "made").exists() is made and end.is_error is not made
    assert ("not now" in sent(model.requests[1])) is not made


async def test_checkpoints_and_rewind_reply_with_what_they_found_and_did(tmp_path: Path) -> None:
    write = tool_calls(("write_file", {"path": "new.txt", "content": "one\n"}))
    model = ScriptedModel([write, text("Written.")])
    async with session(tmp_path, model) as s:
        await until_end(s.submit("write it"))
        listed = await s.apply(ListCheckpoints())
        assert listed == s.checkpoints()
        assert isinstance(listed, list) and [f.path for f in listed[0].files] == ["new.txt"]
        done = await s.apply(Rewind(turn=1, conversation=False))
    assert done is not None and not isinstance(done, list) and done.removed == ("new.txt",)
    assert not (tmp_path / "new.txt").exists()


async def test_close_closes_the_session_with_its_reason(tmp_path: Path) -> None:
    s = session(tmp_path, ScriptedModel())
    await s.start()
    events = s.events()
    assert await s.apply(Close(reason="the host is done")) is None
    seen = [event async for event in events]
    assert s.state == "closed"
    end = seen[-1]
    assert isinstance(end, SessionEnd) and end.reason == "the host is done"
