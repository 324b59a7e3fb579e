"""The event system through a rich scripted session: every event kind, its order,
``async for`` delivery, JSON round trips; full tool output to the host, a truncated copy to the
model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from taor.agent.config import Limits, LoopDetectionConfig, PermissionConfig
from taor.agent.events import (
    EVENT_TYPES,
    Event,
    PermissionRequest,
    ProcessingEnd,
    SessionEnd,
    SessionStart,
    ToolCallEnd,
    ToolCallOutputDelta,
    ToolCallStart,
)
from taor.agent.record.codec import event_from_json, to_json
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.errors import ContextLengthError, RateLimitError
from taor.llm.types import Request, ToolResultPart
from taor.testing import Reply, ScriptedModel, text, tool_calls, web_search

from .loop_support import assert_valid, collect, config, kinds, of, session

# These need compaction, a profile, an MCP server (tests/tools/mcp has mcp_server_status).
NOT_YET_EMITTED = {"compaction", "system_prompt_changed", "mcp_server_status"}


async def rich_session() -> tuple[list[Event], Session]:
    """One session that emits every kind of event, answering permission requests."""
    env = MemoryEnvironment(files={"a.txt": "alpha\n"})
    env.script("make", "building\nbuilt\n")
    model = ScriptedModel([])
    cfg = config(
        permissions=PermissionConfig(mode="default"),
        loop_detection=LoopDetectionConfig(window=2),
        context_window=1000,
    )
    s = Session(model, environment=env, config=cfg)
    read = ("read_file", {"path": "a.txt"})

    def steer_and_call(request: Request) -> Reply:
        s.steer("Also run make.")
        return Reply(
            thinking="Let me look.",
            server_tools=(web_search("a.txt", ("A", "https://example.com/a")),),
            text="Reading.",
            tool_calls=tool_calls(read, read).tool_calls,
        )

    model.push(
        steer_and_call,
        RateLimitError("slow down", provider="scripted", status=429),
        tool_calls(("shell", {"command": "make"})),
        text("All built."),
        ContextLengthError("too long", provider="scripted"),
        tool_calls(("list_dir", {})),
        text("Summary: listed."),
    )
    seen: list[Event] = []

    async def consume() -> None:
        async for event in s.events():
            seen.append(event)
            if isinstance(event, PermissionRequest):
                s.decide(event.request_id, "allow")

    consumer = asyncio.create_task(consume())
    await s.start()
    await collect(s, "Build it. " + "x" * 3400)  # above 80% of the window: a warning
    await collect(s, "What now?")
    s.configure(limits=Limits(max_tool_rounds=1))
    s.follow_up("List the files.")
    events = s.events()
    async for event in events:
        if isinstance(event, ProcessingEnd) and event.cycle == 3:
            break
    await events.aclose()
    s.interrupt()  # nothing to interrupt: acknowledged anyway
    await s.close()
    await consumer
    model.assert_done()
    return seen, s


async def test_every_event_kind_is_emitted_in_a_rich_session() -> None:
    """The whole vocabulary but the events of compaction and of a profile's system prompt."""
    events, s = await rich_session()
    emitted = set(kinds(events))
    every = {t.__dataclass_fields__["kind"].default for t in EVENT_TYPES}
    assert emitted == every - NOT_YET_EMITTED
    assert s.state == "closed"
    assert_valid(s)


async def test_events_come_at_the_right_times() -> None:
    events, _ = await rich_session()
    order = kinds(events)
    for start in of(events, ToolCallStart):
        own = [
            i
            for i, e in enumerate(events)
            if getattr(e, "call_id", None) == start.call_id
            and isinstance(e, ToolCallStart | ToolCallOutputDelta | ToolCallEnd)
        ]
        assert isinstance(events[own[0]], ToolCallStart)
        assert isinstance(events[own[-1]], ToolCallEnd)
    ends = of(events, ProcessingEnd)
    assert [(e.cycle, e.stop_reason) for e in ends] == [
        (1, "completed"),
        (2, "error"),
        (3, "turn_limit"),
    ]
    first = order[: order.index("processing_end")]
    assert first.index("user_input") < first.index("warning") < first.index("thinking_delta")
    assert first.index("thinking_delta") < first.index("assistant_text_start")
    assert first.index("assistant_text_end") < first.index("usage") < first.index("tool_call_start")
    assert first.index("loop_detection") < first.index("retry")
    assert first.index("permission_request") < first.index("permission_decision")
    assert order.index("steering_queued") < order.index("steering_injected")
    assert order.index("follow_up_queued") < order.index("turn_limit")


async def test_events_are_an_async_iterable() -> None:
    """``submit`` and ``events`` are consumed with ``async for``."""
    model = ScriptedModel([text("one"), text("two")])
    async with session(model) as s:
        everything = s.events()
        assert hasattr(everything, "__aiter__") and hasattr(everything, "__anext__")
        cycle = [e async for e in s.submit("hi")]
        await s.run("again")
    seen = [e async for e in everything]
    assert kinds(cycle) == [k for k in kinds(seen) if k != "session_start"][: len(cycle)]
    assert isinstance(seen[-1], SessionEnd)


async def test_tool_call_end_has_the_full_output_the_model_a_truncated_copy() -> None:
    """A 60k-character shell output of 1000 lines reaches the host whole; the model
    gets at most 30k characters and 256 lines with the marker saying what was cut (the tool's
    own marker: the session does not cut a cut output again)."""
    output = "".join(f"line {n:05d} " + "y" * 48 + "\n" for n in range(1000))
    env = MemoryEnvironment()
    env.script("cat big.log", output)
    model = ScriptedModel([tool_calls(("shell", {"command": "cat big.log"})), text("seen")])
    async with session(model, env) as s:
        events = await collect(s, "show the log")
    (end,) = of(events, ToolCallEnd)
    assert end.output == output and len(output) == 60_000
    assert "full_output" not in end.metadata
    assert "".join(d.delta for d in of(events, ToolCallOutputDelta)) == output
    (sent,) = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert len(sent.text) < 31_000
    assert "WARNING" in sent.text and "744 whole lines" in sent.text
    assert "line 00000" in sent.text and "line 00999" in sent.text
    assert len(sent.text.splitlines()) <= 256 + 4  # the header and the marker
    assert "line 00500" not in sent.text


async def test_per_tool_limits_come_from_the_config() -> None:
    output = "z" * 5000
    env = MemoryEnvironment()
    env.script("cat", output)
    model = ScriptedModel([tool_calls(("shell", {"command": "cat"})), text("ok")])
    cfg = config(tool_output_limits={"shell": 1000})
    async with session(model, env, cfg) as s:
        events = await collect(s, "cat")
    assert of(events, ToolCallEnd)[0].output == output
    (sent,) = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert sent.text.count("z") < 1000 and "WARNING" in sent.text


async def test_session_start_and_session_end_bracket_the_session() -> None:
    """The first event is session_start, the last session_end, nothing after it."""
    events, s = await rich_session()
    assert isinstance(events[0], SessionStart) and events[0].session_id == s.id
    assert isinstance(events[-1], SessionEnd)
    assert kinds(events).count("session_start") == kinds(events).count("session_end") == 1


async def test_every_event_of_a_rich_session_survives_json() -> None:
    """Each event becomes a JSON object (through json.dumps) and back, equal to itself."""
    events, _ = await rich_session()
    for event in events:
        data: Any = json.loads(json.dumps(to_json(event)))
        assert data["kind"] == event.kind
        assert event_from_json(data) == event


def file_text(path: str) -> str:
    with open(path) as f:
        return f.read()


def exists(path: Path) -> bool:
    return path.exists()


async def test_output_beyond_the_capture_is_spilled_whole_beside_the_transcript(
    tmp_path: Path,
) -> None:
    """A command printing 3.4 MB (more than the 1 MiB head + 1 MiB tail kept in memory): the
    host gets the bounded output plus the path of a file beside the JSONL transcript that holds
    every byte; the event survives the JSON codec with its path."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    expected = "".join(f"{n}\n" for n in range(1, 500_001))
    model = ScriptedModel([tool_calls(("shell", {"command": "seq 1 500000"})), text("seen")])
    path = tmp_path / "sessions" / "s1.jsonl"
    async with Session.recorded(
        path, model, environment=LocalEnvironment(workspace), config=config()
    ) as s:
        events = await collect(s, "count")
    (end,) = of(events, ToolCallEnd)
    assert end.output_file is not None and "output_file" not in end.metadata
    assert Path(end.output_file).parent == tmp_path / "sessions" / "s1.outputs"
    assert file_text(end.output_file) == expected  # kept after close: it goes with the transcript
    assert len(end.output) < 2 * (1 << 20) + 200 and "dropped here" in end.output
    assert event_from_json(json.loads(json.dumps(to_json(end)))) == end


async def test_without_a_transcript_the_spill_goes_to_a_scratch_dir_removed_at_close(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([tool_calls(("shell", {"command": "seq 1 500000"})), text("seen")])
    async with Session(model, environment=LocalEnvironment(tmp_path), config=config()) as s:
        events = await collect(s, "count")
        (end,) = of(events, ToolCallEnd)
        assert end.output_file is not None
        spilled = Path(end.output_file)
        assert file_text(end.output_file) == "".join(f"{n}\n" for n in range(1, 500_001))
        assert not spilled.is_relative_to(tmp_path)  # not in the workspace
    assert not exists(spilled.parent)


async def test_output_that_fits_has_no_output_file(tmp_path: Path) -> None:
    model = ScriptedModel([tool_calls(("shell", {"command": "seq 1 10"})), text("seen")])
    async with Session(model, environment=LocalEnvironment(tmp_path), config=config()) as s:
        events = await collect(s, "count")
    (end,) = of(events, ToolCallEnd)
    assert end.output_file is None and end.output.endswith("9\n10\n")
