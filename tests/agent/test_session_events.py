"""Event delivery: session_start first and session_end last, a reader
that stops never stalls the loop, deltas coalesce under backpressure while tool, permission and
lifecycle events all arrive in order, every subscriber sees the same stream, and misuse of the
API fails clearly."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from taor.agent.events import AssistantTextDelta, Event, PermissionRequest
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.errors import SessionClosedError
from taor.testing import Reply, ScriptedModel, text, tool_calls

from .session_drive import assert_valid, config, kinds, of_kind

LONG = "".join(f"word{n} " for n in range(150))


def env() -> MemoryEnvironment:
    environment = MemoryEnvironment(files={"a.txt": "alpha\n", "b.txt": "beta\n"})
    environment.script("make", "built\n")
    return environment


def busy_script() -> ScriptedModel:
    """Long text streamed a character at a time, read-only and shell rounds, a final answer."""
    return ScriptedModel(
        [
            Reply(
                text=LONG,
                chunk=1,
                tool_calls=tool_calls(("read_file", {"path": "a.txt"})).tool_calls,
            ),
            tool_calls(("read_file", {"path": "b.txt"}), ("shell", {"command": "make"})),
            Reply(text=LONG, chunk=1),
        ]
    )


async def collect(stream: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in stream]


def without_deltas(events: list[Event]) -> list[Event]:
    return [e for e in events if not e.kind.endswith("_delta")]


async def test_events_starts_with_session_start_and_ends_with_session_end() -> None:
    async with Session(ScriptedModel([text("hi")]), environment=env(), config=config()) as session:
        stream = session.events()  # subscribed after the session started
        await session.run("hello")
    events = await collect(stream)
    assert events[0].kind == "session_start" and events[-1].kind == "session_end"
    assert kinds(events).count("session_start") == 1
    assert kinds(events)[1:3] == ["user_input", "assistant_text_start"]


async def test_events_before_start_sees_session_start_once() -> None:
    session = Session(ScriptedModel([text("hi")]), environment=env(), config=config())
    stream = session.events()
    await session.run("hello")  # starts the session
    await session.close()
    events = await collect(stream)
    assert kinds(events).count("session_start") == 1 and events[0].kind == "session_start"
    assert events[-1].kind == "session_end"


async def test_events_after_close_ends_at_once() -> None:
    session = Session(ScriptedModel([text("hi")]), environment=env(), config=config())
    await session.run("hello")
    await session.close()
    events = await asyncio.wait_for(collect(session.events()), 5)
    assert kinds(events) in ([], ["session_end"])


async def test_a_reader_that_stops_does_not_stall_the_loop() -> None:
    environment = env()
    async with Session(busy_script(), environment=environment, config=config()) as session:
        stuck = session.events()  # subscribed, never read while the session works
        result = await session.run("go")
        assert (result.stop_reason, result.tool_calls) == ("completed", 3)
        assert len(environment.calls_of("run")) == 1
    late = await collect(stuck)
    assert late[-1].kind == "session_end"
    assert len(of_kind(late, "tool_call_end")) == 3


async def test_backpressure_coalesces_text_deltas_but_keeps_every_other_event() -> None:
    def allow(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            session.decide(event.request_id, "allow")

    async with Session(busy_script(), environment=env(), config=config("default")) as session:
        slow = session.events()  # read only after everything happened
        live: list[Event] = []
        async for event in session.submit("go"):
            live.append(event)
            allow(event)
        session.steer("one more thing")
        session.interrupt()  # nothing to interrupt: still acknowledged
    lagged = await collect(slow)
    end = kinds(lagged).index("processing_end") + 1
    lagged_cycle = lagged[1:end]
    assert without_deltas(lagged_cycle) == without_deltas(live)
    assert [e.kind for e in lagged[end:]] == [
        "steering_queued",
        "interrupted",
        "session_end",
    ]
    live_deltas = [e for e in live if isinstance(e, AssistantTextDelta)]
    lagged_deltas = [e for e in lagged_cycle if isinstance(e, AssistantTextDelta)]
    assert "".join(e.delta for e in live_deltas) == 2 * LONG
    # One character per delta streamed; the reader that was behind got them merged (the live
    # reader may be merged a little too when the machine is busy: it is not asserted exact).
    assert len(lagged_deltas) < 2 * len(LONG)
    assert "".join(e.delta for e in lagged_deltas) == 2 * LONG
    assert [e.kind for e in of_kind(live, "permission_request")] == ["permission_request"]
    starts_and_ends = [
        e.kind for e in lagged if e.kind.startswith("tool_call_") and "delta" not in e.kind
    ]
    assert starts_and_ends == ["tool_call_start", "tool_call_end"] * 3


async def test_two_subscribers_see_the_same_sequence() -> None:
    async with Session(busy_script(), environment=env(), config=config()) as session:
        first, second = session.events(), session.events()
        readers = asyncio.gather(collect(first), collect(second))
        await session.run("go")
    one, two = await readers
    assert one == two
    assert one[-1].kind == "session_end"


async def test_an_abandoned_submit_iterator_does_not_break_the_session() -> None:
    model = busy_script()
    model.push(text("second answer"))
    async with Session(model, environment=env(), config=config()) as session:
        async for event in session.submit("go"):
            if event.kind == "tool_call_start":
                break  # the host lost interest
        result = await session.run("and then?")
        assert result.text == "second answer"
        assert_valid(session)
        assert [t.kind for t in session.history].count("user") == 2


async def test_submit_iterators_of_queued_inputs_each_end_at_their_own_cycle() -> None:
    model = ScriptedModel([text("one"), text("two")])
    async with Session(model, environment=env(), config=config()) as session:
        first, second = session.submit("1"), session.submit("2")
        a, b = await asyncio.gather(collect(first), collect(second))
    assert a[-1].kind == b[-1].kind == "processing_end"
    assert (a[-1].text, b[-1].text) == ("one", "two")  # type: ignore[union-attr]
    assert "processing_end" not in kinds(a[:-1])


def test_run_sync_works_from_plain_code() -> None:
    session = Session(ScriptedModel([text("sync answer")]), environment=env(), config=config())
    result = session.run_sync("hello")
    assert (result.text, result.stop_reason, result.turns) == ("sync answer", "completed", 1)
    assert session.state == "closed"


async def test_a_closed_session_refuses_commands() -> None:
    session = Session(ScriptedModel([text("hi")]), environment=env(), config=config())
    await session.run("hello")
    await session.close()
    await session.close()  # idempotent
    assert session.state == "closed"
    for command in (
        lambda: session.submit("x"),
        lambda: session.follow_up("x"),
        lambda: session.steer("x"),
        lambda: session.configure(reasoning_effort="high"),
    ):
        with pytest.raises(SessionClosedError, match="closed"):
            command()
    with pytest.raises(SessionClosedError):
        await session.run("x")


@pytest.mark.parametrize("empty", ["", "   ", "\n\t"])
async def test_empty_input_is_refused_clearly(empty: str) -> None:
    async with Session(ScriptedModel([text("hi")]), environment=env(), config=config()) as session:
        with pytest.raises(ValueError, match="input is empty"):
            session.submit(empty)
        with pytest.raises(ValueError, match="input is empty"):
            await session.run(empty)
        assert (await session.run("real input")).text == "hi"
