"""Event numbers: every event a session publishes carries ``seq``, unique and increasing across
cycles, the same for every reader; a slow reader's merged delta has the number of its last
delta; a subagent's events take the parent's numbers in the parent's stream; the transcript
keeps the numbers, so a resumed session numbers on from its last event (after a crash, from its
last record), and a transcript written before numbers still loads."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from taor.agent.events import AssistantTextDelta, Event, PermissionRequest, SessionEnd
from taor.agent.record.codec import event_from_json, to_json
from taor.agent.record.store import load
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.testing import Reply, ScriptedModel, text, tool_calls

from .session_drive import config
from .test_session_subagents import PARENT, TASK, Agents, with_subagents

READ = ("read_file", {"path": "a.txt"})


def env() -> MemoryEnvironment:
    return MemoryEnvironment(files={"a.txt": "alpha\n"})


def numbers(events: list[Event]) -> list[int]:
    return [event.seq for event in events]


async def read_all(session: Session) -> list[Event]:
    return [event async for event in session.events()]


async def test_every_event_is_numbered_once_in_order_across_cycles() -> None:
    model = ScriptedModel([tool_calls(READ), text("alpha"), text("again")])
    session = Session(model, environment=env(), config=config())
    reader = asyncio.create_task(read_all(session))
    await asyncio.sleep(0)  # the reader subscribes before anything is published
    first = [event async for event in session.submit("read it")]
    second = [event async for event in session.submit("once more")]
    await session.close()
    everything = await reader
    assert numbers(everything) == list(range(1, len(everything) + 1))
    assert isinstance(everything[-1], SessionEnd)
    seen = {event.seq: event for event in everything}
    for event in first + second:  # another reader sees the same events with the same numbers
        assert seen[event.seq] == event
    assert numbers(first + second) == sorted(set(numbers(first + second)))


async def test_a_reader_that_falls_behind_gets_merged_deltas_numbered_by_their_last() -> None:
    model = ScriptedModel([Reply(text="x" * 200, chunk=1)])
    async with Session(model, environment=env(), tools=[], config=config()) as session:
        slow = session.events()  # read only once the cycle is over
        fast = [event async for event in session.submit("go")]
    behind = [event async for event in slow]
    fast_deltas = [e for e in fast if isinstance(e, AssistantTextDelta)]
    slow_deltas = [e for e in behind if isinstance(e, AssistantTextDelta)]
    assert len(slow_deltas) < len(fast_deltas) == 200  # the slow reader's were merged
    assert "".join(e.delta for e in slow_deltas) == "x" * 200
    assert slow_deltas[-1].seq == fast_deltas[-1].seq
    assert numbers(behind) == sorted(set(numbers(behind)))
    for merged in slow_deltas:  # each holds the deltas up to the one whose number it has
        upto = [e.delta for e in fast_deltas if e.seq <= merged.seq]
        assert "".join(upto).endswith(merged.delta)


async def test_a_subagents_events_take_the_parents_numbers_in_its_stream() -> None:
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("done"),
            ],
            TASK: [text("3")],
        }
    )
    session = Session(agents.model(), environment=MemoryEnvironment(), config=with_subagents())
    reader = asyncio.create_task(read_all(session))
    await asyncio.sleep(0)
    await session.run(PARENT)
    await session.close()
    everything = await reader
    child = [event for event in everything if event.agent_id == "agent-1"]
    assert child and child[0].kind == "session_start"
    assert numbers(everything) == list(range(1, len(everything) + 1))


async def recorded(path: Path) -> list[Event]:
    """A recorded session with one tool round, closed; every event it published."""
    model = ScriptedModel([tool_calls(READ), text("alpha")])
    session = Session.recorded(path, model, environment=env(), config=config())
    reader = asyncio.create_task(read_all(session))
    await asyncio.sleep(0)
    await session.run("read it")
    await session.close()
    return await reader


async def resumed(path: Path) -> list[Event]:
    session = Session.resume(path, ScriptedModel([text("more")]), environment=env())
    reader = asyncio.create_task(read_all(session))
    await asyncio.sleep(0)
    await session.run("go on")
    await session.close()
    return await reader


async def test_a_resumed_session_numbers_on_from_its_last_event(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    before = await recorded(path)
    last = before[-1].seq
    loaded = load(path)
    assert loaded.last_seq == last  # session_end's number, recorded as the session closed
    stamps = [turn.seq for turn in loaded.turns]
    assert all(isinstance(s, int) for s in stamps) and stamps == sorted(stamps)
    assert 0 < stamps[-1] < last
    after = await resumed(path)
    assert numbers(after) == list(range(last + 1, last + 1 + len(after)))
    assert load(path).last_seq == after[-1].seq


async def test_after_a_crash_numbers_go_on_after_the_last_record(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    await recorded(path)
    lines = path.read_text().splitlines(keepends=True)
    crashed = tmp_path / "crashed.jsonl"
    crashed.write_text("".join(lines[:-1]))  # a process that died never marks its last event
    stamps = [turn.seq or 0 for turn in load(crashed).turns]
    after = await resumed(crashed)
    assert after[0].kind == "session_start" and after[0].seq == max(stamps) + 1
    assert numbers(after) == sorted(set(numbers(after)))


async def test_a_transcript_written_before_numbers_still_loads_and_resumes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    await recorded(path)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    old = [{k: v for k, v in r.items() if k != "seq"} for r in records if r.get("text") != ""]
    path.write_text("".join(json.dumps(r) + "\n" for r in old))
    loaded = load(path)
    assert loaded.last_seq == 0 and all(turn.seq is None for turn in loaded.turns)
    after = await resumed(path)
    assert numbers(after) == list(range(1, len(after) + 1))
    new = load(path).turns[len(loaded.turns) :]
    assert new and all(turn.seq is not None and 0 < turn.seq < after[-1].seq for turn in new)


def test_the_codec_round_trips_the_number_and_reads_events_without_one() -> None:
    request = PermissionRequest(
        request_id="perm_1", call_id="c1", name="shell", arguments={}, summary="shell", seq=41
    )
    encoded = to_json(request)
    assert encoded["seq"] == 41
    assert event_from_json(json.loads(json.dumps(encoded))) == request
    del encoded["seq"]
    assert event_from_json(encoded).seq == 0


async def test_a_call_a_crash_cut_short_is_ended_for_followers_when_resumed(
    tmp_path: Path,
) -> None:
    """A follower saw the call start before the crash; the resumed session ends it (with the
    result the repair gave it), after its start and warnings, before anything else."""
    path = tmp_path / "s.jsonl"
    before = await recorded(path)
    [started] = [e for e in before if e.kind == "tool_call_start"]
    lines = path.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "tool_results")
    crashed = tmp_path / "crashed.jsonl"
    crashed.write_text("".join(lines[:cut]))  # died while the call ran
    after = await resumed(crashed)
    kinds = [e.kind for e in after]
    assert kinds[:3] == ["session_start", "warning", "tool_call_end"]
    ended = after[2]
    assert ended.call_id == started.call_id and ended.name == "read_file"  # type: ignore[attr-defined]
    assert ended.is_error and "the process running this session ended" in ended.output.lower()  # type: ignore[attr-defined]
    assert kinds.count("tool_call_end") == 1  # the recorded rounds are not ended again
