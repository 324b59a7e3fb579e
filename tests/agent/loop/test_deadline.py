"""The wall-time limit is a deadline: what is in flight when it passes is stopped (a stalled
model stream through the real SDK, a running command), the cycle ends with ``turn_limit`` and a
summary that is itself bounded in tokens and time. Each test is also bounded by a generous
``asyncio.timeout``: before the deadline existed, these cycles ran for minutes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from taor.agent.config import Limits, PermissionConfig, SessionConfig
from taor.agent.events import (
    Event,
    Interrupted,
    ProcessingEnd,
    ToolCallEnd,
    TurnLimit,
    WarningEvent,
)
from taor.agent.record.turns import AssistantTurn, NoticeTurn, ToolResultsTurn
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.llm import Timeouts, connect
from taor.testing import FakeProviderServer, Reply, ScriptedModel, stall, text, tool_calls

from ..loop_support import FAST_RETRY, assert_valid, of

SUMMARY = "Started the answer; the rest is still to do."
GUARD = 60  # seconds: far beyond the limits below, far below the stalls


def config(**limits: float) -> SessionConfig:
    return SessionConfig(
        permissions=PermissionConfig(mode="bypass"),
        retry=FAST_RETRY,
        timeouts=Timeouts(idle=600),  # only the deadline can stop a stalled stream here
        limits=Limits(**limits),  # type: ignore[arg-type]
    )


async def run(session: Session, prompt: str) -> list[Event]:
    async with asyncio.timeout(GUARD):
        return [event async for event in session.submit(prompt)]


async def test_a_model_call_in_flight_at_the_deadline_is_stopped_and_its_text_kept(
    tmp_path: Path, fake_server: FakeProviderServer
) -> None:
    slow = Reply(text="Let me think about this slowly and carefully", chunk=5)
    fake_server.push(stall(300, after=4, reply=slow), Reply(text=SUMMARY))
    model = connect(
        "openai-compat:slow-local", api_key="x", base_url=fake_server.base_url("openai-compat")
    )
    env = LocalEnvironment(tmp_path)
    async with Session(model, environment=env, config=config(max_wall_time=1.0)) as session:
        events = await run(session, "explain")
        (limit,) = of(events, TurnLimit)
        assert limit.limit == "wall_time" and limit.value >= 1.0
        assert not of(events, Interrupted)  # the host did not interrupt: the limit stopped it
        end = events[-1]
        assert isinstance(end, ProcessingEnd)
        assert (end.stop_reason, end.text) == ("turn_limit", SUMMARY)
        partial = [t for t in session.history if isinstance(t, AssistantTurn) and t.partial]
        assert partial and partial[0].message.text.startswith("Let me think")
        notices = [t.text for t in session.history if isinstance(t, NoticeTurn)]
        assert "stopped at the time limit" in notices
        summary_request = fake_server.requests[-1].json
        assert summary_request.get("tool_choice") == "none"
        assert summary_request["max_tokens"] <= Limits().summary_tokens
        assert_valid(session)
    await model.aclose()


async def test_a_command_running_at_the_deadline_is_ended_and_answered(tmp_path: Path) -> None:
    marker = tmp_path / "late"
    model = ScriptedModel(
        [tool_calls(("shell", {"command": f"sleep 120; touch {marker}"})), text(SUMMARY)]
    )
    async with Session(
        model, environment=LocalEnvironment(tmp_path), config=config(max_wall_time=1.0)
    ) as s:
        events = await run(s, "wait")
        (end,) = of(events, ToolCallEnd)
        assert end.is_error and "time limit" in end.output
        results = [t for t in s.history if isinstance(t, ToolResultsTurn)]
        assert "Stopped at the time limit" in results[-1].results[0].text
        assert events[-1].stop_reason == "turn_limit"  # type: ignore[attr-defined]
        assert_valid(s)
        model.push(text("fine"))
        assert (await s.run("go on")).text == "fine"  # the session is usable
    await asyncio.sleep(0.2)
    assert not marker.exists()


async def test_the_summary_after_a_limit_is_cut_at_its_own_time_bound(
    tmp_path: Path, fake_server: FakeProviderServer
) -> None:
    listing = Reply(tool_calls=tool_calls(("list_dir", {"path": "."})).tool_calls)
    rambling = Reply(text="Here is a long summary that never ends", chunk=4)
    fake_server.push(listing, stall(300, after=4, reply=rambling))
    model = connect(
        "openai-compat:slow", api_key="x", base_url=fake_server.base_url("openai-compat")
    )
    cfg = config(max_tool_rounds=1, summary_time=1.0)
    async with Session(model, environment=LocalEnvironment(tmp_path), config=cfg) as session:
        events = await run(session, "explore")
        assert of(events, TurnLimit)[0].limit == "tool_rounds"
        warnings = [w.message for w in of(events, WarningEvent) if w.code == "limit"]
        assert warnings == ["The summary after the limit was cut off after 1 seconds."]
        end = events[-1]
        assert isinstance(end, ProcessingEnd) and end.stop_reason == "turn_limit"
        assert end.text.startswith("Here is")  # what the summary said before the cut
        assert_valid(session)
    await model.aclose()


async def test_the_host_can_interrupt_the_summary(tmp_path: Path) -> None:
    model = ScriptedModel([tool_calls(("list_dir", {"path": "."})), Reply(text=SUMMARY, delay=120)])
    cfg = config(max_tool_rounds=1)
    async with Session(model, environment=LocalEnvironment(tmp_path), config=cfg) as session:
        events: list[Event] = []
        async with asyncio.timeout(GUARD):
            async for event in session.submit("explore"):
                events.append(event)
                if event.kind == "steering_injected":
                    session.interrupt()
        assert of(events, TurnLimit) and of(events, Interrupted)
        assert events[-1].stop_reason == "turn_limit"  # type: ignore[attr-defined]
        assert_valid(session)
