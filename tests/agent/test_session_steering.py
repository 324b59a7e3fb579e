"""Steering, follow-up and parallel execution of read-only tool calls, scripted."""

from __future__ import annotations

import asyncio
from typing import Any

from taor.agent.events import (
    FollowUpQueued,
    ProcessingEnd,
    SteeringInjected,
    SteeringQueued,
    ToolCallEnd,
    ToolCallStart,
    UserInput,
)
from taor.agent.record.turns import SteeringTurn, ToolResultsTurn
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm.types import Request, TextPart, ToolResultPart
from taor.testing import Reply, ScriptedModel, text, tool_calls

from .loop_support import RecordingWriteTool, WaitTool, collect, kinds, of, session

LIST = tool_calls(("list_dir", {}))


def steering_then(s: Session, message: str, reply: Reply) -> Any:
    """A scripted step that steers while the model call runs, then answers ``reply``."""

    def step(request: Request) -> Reply:
        s.steer(message)
        return reply

    return step


async def test_steer_is_injected_after_the_current_tool_round() -> None:
    """Steer() during a round: acknowledged at once, injected after the round."""
    model = ScriptedModel([])
    async with session(model) as s:
        model.push(steering_then(s, "Only look at src/.", LIST), text("ok"))
        events = await collect(s, "explore")
    order = kinds(events)
    assert order.index("steering_queued") < order.index("tool_call_start")
    assert order.index("tool_call_end") < order.index("steering_injected")
    (injected,) = of(events, SteeringInjected)
    assert (injected.text, injected.source) == ("Only look at src/.", "user")
    turns = s.history
    results_at = next(i for i, t in enumerate(turns) if isinstance(t, ToolResultsTurn))
    assert isinstance(turns[results_at + 1], SteeringTurn)


async def test_follow_up_runs_as_a_new_cycle_after_the_current_one() -> None:
    """Follow_up() queues an input; it runs as its own cycle once this one ends."""
    model = ScriptedModel([])
    async with session(model) as s:

        def ask_for_more(request: Request) -> Reply:
            s.follow_up("Now write the tests.")
            return text("Code written.")

        model.push(ask_for_more, text("Tests written."))
        events = s.events()
        first = await collect(s, "Write the code.")
        seen: list[Any] = []
        async for event in events:
            seen.append(event)
            if isinstance(event, ProcessingEnd) and event.cycle == 2:
                break
        await events.aclose()
    assert of(first, FollowUpQueued)[0].text == "Now write the tests."
    assert [(u.text, u.cycle) for u in of(seen, UserInput)] == [
        ("Write the code.", 1),
        ("Now write the tests.", 2),
    ]
    assert [(e.cycle, e.text) for e in of(seen, ProcessingEnd)] == [
        (1, "Code written."),
        (2, "Tests written."),
    ]
    assert [m.text for m in model.requests[1].messages] == [
        "Write the code.",
        "Code written.",
        "Now write the tests.",
    ]


async def test_steering_reaches_the_model_as_user_text_merged_with_results() -> None:
    """A steering turn is a user-role message for the model, merged into the same user
    message as the tool results (results first)."""
    model = ScriptedModel([])
    async with session(model) as s:
        model.push(steering_then(s, "Hurry up.", LIST), text("ok"))
        await s.run("explore")
    second = model.requests[1]
    last = second.messages[-1]
    assert last.role == "user"
    assert [type(p) for p in last.parts] == [ToolResultPart, TextPart]
    assert last.parts[1].text == "Hurry up."  # type: ignore[union-attr]
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]


async def test_steering_is_drained_before_the_first_call_and_after_each_round() -> None:
    """Steering queued before the input reaches the first request (with the prompt);
    steering during each round reaches the request after that round."""
    model = ScriptedModel([])
    async with session(model) as s:
        s.steer("Use tabs.")
        model.push(
            steering_then(s, "Round one note.", LIST),
            steering_then(s, "Round two note.", LIST),
            text("done"),
        )
        events = await collect(s, "Format the code.")
    assert [m.text for m in model.requests[0].messages] == ["Format the code.Use tabs."]
    assert model.requests[1].messages[-1].text.endswith("Round one note.")
    assert model.requests[2].messages[-1].text.endswith("Round two note.")
    assert [e.text for e in of(events, SteeringInjected)] == [
        "Use tabs.",
        "Round one note.",
        "Round two note.",
    ]
    assert [e.text for e in of(events, SteeringQueued)] == ["Round one note.", "Round two note."]


async def test_steering_after_the_last_round_waits_for_the_next_input() -> None:
    model = ScriptedModel([])
    async with session(model) as s:
        model.push(steering_then(s, "Late note.", text("finished")), text("next"))
        first = await collect(s, "go")
        assert not of(first, SteeringInjected)
        second = await collect(s, "again")
    assert [e.text for e in of(second, SteeringInjected)] == ["Late note."]
    assert model.requests[1].messages[-1].text == "againLate note."


# --- parallel tool execution ---


async def test_read_only_calls_of_a_round_run_concurrently() -> None:
    """Each call waits for the other's flag: the round ends only if they overlap."""
    rendezvous = WaitTool()
    model = ScriptedModel(
        [
            tool_calls(
                ("rendezvous", {"set": "a", "wait_for": "b"}),
                ("rendezvous", {"set": "b", "wait_for": "a"}),
            ),
            text("met"),
        ]
    )
    async with session(model, tools=[rendezvous]) as s:
        result = await s.run("meet")
    assert result.stop_reason == "completed"
    assert sorted(rendezvous.finished) == ["a", "b"]
    results = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert [r.text for r in results] == ["a done", "b done"]


async def test_results_keep_call_order_when_a_later_read_finishes_first() -> None:
    rendezvous = WaitTool()
    model = ScriptedModel(
        [
            tool_calls(
                ("rendezvous", {"set": "slow", "wait_for": "fast"}),
                ("rendezvous", {"set": "fast"}),
            ),
            text("ok"),
        ]
    )
    async with session(model, tools=[rendezvous]) as s:
        events = await collect(s, "go")
    assert rendezvous.finished == ["fast", "slow"]
    ends = of(events, ToolCallEnd)
    assert [e.output for e in ends] == ["fast done", "slow done"]  # as they finished
    results = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert [r.text for r in results] == ["slow done", "fast done"]  # in call order
    starts = [e.call_id for e in of(events, ToolCallStart)]
    assert [r.call_id for r in results] == starts


async def test_writing_calls_run_one_at_a_time_in_call_order() -> None:
    log: list[str] = []
    model = ScriptedModel(
        [
            tool_calls(*[("record", {"step": str(n)}) for n in range(1, 5)]),
            text("recorded"),
        ]
    )
    async with session(model, tools=[RecordingWriteTool(log)]) as s:
        await s.run("record")
    assert log == [f"{what} {n}" for n in range(1, 5) for what in ("start", "end")]


async def test_a_read_after_a_write_sees_it_and_reads_around_it_stay_ordered() -> None:
    """read, write, read of one file: the write runs alone between the two reads."""
    env = MemoryEnvironment(files={"f.txt": "old\n"})
    model = ScriptedModel(
        [
            tool_calls(
                ("read_file", {"path": "f.txt"}),
                ("write_file", {"path": "f.txt", "content": "new\n"}),
                ("read_file", {"path": "f.txt"}),
            ),
            text("done"),
        ]
    )
    async with session(model, env) as s:
        await s.run("update")
    results = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert "old" in results[0].text and "new" in results[2].text


async def test_concurrent_reads_then_a_write_in_one_round() -> None:
    rendezvous = WaitTool()
    log: list[str] = []
    model = ScriptedModel(
        [
            tool_calls(
                ("rendezvous", {"set": "a", "wait_for": "b"}),
                ("rendezvous", {"set": "b", "wait_for": "a"}),
                ("record", {"step": "after"}),
            ),
            text("ok"),
        ]
    )
    async with session(model, tools=[rendezvous, RecordingWriteTool(log)]) as s:
        await asyncio.wait_for(s.run("go"), 10)
    assert sorted(rendezvous.finished) == ["a", "b"] and log == ["start after", "end after"]
