"""Recorded sessions and resume: the JSONL file holds the
header and every turn, a torn last line is skipped, a crash mid-round is repaired with
``interrupted`` results, and the resumed session keeps its id and goes on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from taor.agent.events import Event, SessionStart, WarningEvent
from taor.agent.record.store import JsonlTranscriptStore, TranscriptHeader, load
from taor.agent.record.transcript import problems
from taor.agent.record.turns import AssistantTurn, NoticeTurn, ToolResultsTurn, Turn, UserTurn
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.errors import ModelNotFoundError, TranscriptError
from taor.llm.types import Message, TextPart, ToolCallPart, ToolResultPart
from taor.testing import ScriptedModel, text, tool_calls

from .session_drive import assert_valid, config, result_text


def env() -> MemoryEnvironment:
    return MemoryEnvironment(files={"a.txt": "alpha\n"})


async def recorded_run(path: Path) -> Session:
    model = ScriptedModel(
        [tool_calls(("read_file", {"path": "a.txt"}), text="Reading."), text("It says alpha.")],
        provider="anthropic",
        model_id="claude-test",
    )
    async with Session.recorded(path, model, environment=env(), config=config()) as session:
        await session.run("what is in a.txt?")
    return session


@dataclass(frozen=True, kw_only=True, slots=True)
class Resumed:
    session: Session
    history: list[Turn]  # as resumed, before the next input
    events: list[Event]  # everything published, read through events()
    text: str  # the answer to the next input


async def resume_and_run(path: Path, model: ScriptedModel, prompt: str) -> Resumed:
    """Resume, run one input, close."""
    session = Session.resume(path, model, environment=env(), config=config())
    stream = session.events()
    history = session.history
    await session.start()
    result = await session.run(prompt)
    await session.close()
    events = [event async for event in stream]
    return Resumed(session=session, history=history, events=events, text=result.text)


def opening(events: list[Event]) -> list[Event]:
    """What came before the first input: session_start, any resume warnings, and the ends
    of the calls the repair answered."""
    kinds = [e.kind for e in events]
    return events[: kinds.index("user_input")]


async def test_a_recorded_session_writes_its_header_and_every_turn(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    session = await recorded_run(path)
    loaded = load(path)
    assert loaded.header.session_id == session.id
    assert (loaded.header.provider, loaded.header.model) == ("anthropic", "claude-test")
    assert list(loaded.turns) == session.history
    assert [t.kind for t in loaded.turns] == ["user", "assistant", "tool_results", "assistant"]
    assert loaded.skipped == ()


async def test_recording_over_an_existing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    await recorded_run(path)
    with pytest.raises(TranscriptError, match="already exists"):
        Session.recorded(path, ScriptedModel(), environment=env())


async def test_resume_continues_with_the_same_id_and_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = await recorded_run(path)
    model = ScriptedModel([text("Still alpha.")])
    resumed = await resume_and_run(path, model, "and now?")
    session = resumed.session
    assert session.id == first.id
    start, *warnings = opening(resumed.events)
    assert isinstance(start, SessionStart) and start.resumed and start.session_id == first.id
    assert warnings == []
    assert resumed.events[-1].kind == "session_end"
    assert resumed.history == first.history
    assert resumed.text == "Still alpha."
    sent = model.requests[0].messages
    assert [m.role for m in sent] == ["user", "assistant", "user", "assistant", "user"]
    loaded = load(path)
    assert list(loaded.turns) == session.history and len(loaded.turns) == 6


async def test_an_open_transcript_cannot_be_resumed_twice(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    await recorded_run(path)
    session = Session.resume(path, ScriptedModel(), environment=env())
    with pytest.raises(TranscriptError, match="in use by another session"):
        Session.resume(path, ScriptedModel(), environment=env())
    await session.close()
    Session.resume(path, ScriptedModel(), environment=env())._rt.store.close_sync()  # type: ignore[union-attr]


async def test_a_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = await recorded_run(path)
    with path.open("ab") as file:
        file.write(b'{"kind":"user","timestamp":1.0,"content":[{"kind":"te')
    resumed = await resume_and_run(path, ScriptedModel([text("Resumed fine.")]), "go on")
    _, warning = opening(resumed.events)
    assert isinstance(warning, WarningEvent)
    assert warning.code == "transcript" and "torn" in warning.message
    assert resumed.history == first.history
    assert resumed.text == "Resumed fine."
    loaded = load(path)  # the torn bytes were cut: the file reads cleanly
    assert loaded.skipped == () and list(loaded.turns) == resumed.session.history


def crashed_mid_round(path: Path) -> None:
    """What a process that died while running two tool calls leaves behind."""
    store = JsonlTranscriptStore(path)
    store.create(TranscriptHeader(session_id="crashed-1", provider="scripted", model="m"))
    calls = (
        ToolCallPart(id="c1", name="read_file", arguments={"path": "a.txt"}),
        ToolCallPart(id="c2", name="shell", arguments={"command": "make"}),
    )
    store.append_sync(UserTurn(content=(TextPart(text="build it"),)))
    store.append_sync(
        AssistantTurn(message=Message(role="assistant", parts=(TextPart(text="On it."), *calls)))
    )
    store.close_sync()


async def test_a_crash_mid_round_is_repaired_with_stopped_results(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    crashed_mid_round(path)
    model = ScriptedModel([text("I will check what make did first.")])
    resumed = await resume_and_run(path, model, "did it build?")
    assert resumed.session.id == "crashed-1"
    _, warning, *ended = opening(resumed.events)
    assert isinstance(warning, WarningEvent)
    assert warning.code == "transcript" and "repaired" in warning.message
    assert [(e.kind, e.call_id) for e in ended] == [  # type: ignore[attr-defined]
        ("tool_call_end", "c1"),
        ("tool_call_end", "c2"),
    ]
    assert problems(resumed.history) == []
    repaired = resumed.history[-1]
    assert isinstance(repaired, ToolResultsTurn)
    assert [r.call_id for r in repaired.results] == ["c1", "c2"]
    for result in repaired.results:  # the process ended: nobody interrupted the calls
        assert result.is_error and "process running this session ended" in result_text(result)
        assert "may have run partly" in result_text(result)
        assert "by the user" not in result_text(result)

    assert resumed.text == "I will check what make did first."
    (request,) = model.requests
    last = request.messages[-1]
    assert [p.call_id for p in last.parts if isinstance(p, ToolResultPart)] == ["c1", "c2"]
    assert last.text.endswith("did it build?")
    assert [m.role for m in request.messages] == ["user", "assistant", "user"]
    loaded = load(path)  # the repair was written to the file too
    assert problems(list(loaded.turns)) == []
    assert list(loaded.turns) == resumed.session.history
    assert not any(isinstance(t, NoticeTurn) for t in loaded.turns)


async def test_a_crash_after_earlier_rounds_is_repaired_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = await recorded_run(path)
    call = ToolCallPart(id="c9", name="shell", arguments={"command": "make"})
    with JsonlTranscriptStore(path) as store:
        store.open()
        store.append_sync(UserTurn(content=(TextPart(text="now build"),)))
        store.append_sync(AssistantTurn(message=Message(role="assistant", parts=(call,))))
    session = Session.resume(path, ScriptedModel([text("ok")]), environment=env(), config=config())
    assert session.history[: len(first.history)] == first.history
    assert_valid(session)
    await session.run("go on")
    await session.close()
    loaded = list(load(path).turns)
    assert problems(loaded) == [] and loaded == session.history


async def test_resuming_a_missing_file_is_a_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="no such transcript"):
        Session.resume(tmp_path / "nothing.jsonl", ScriptedModel(), environment=env())


async def test_a_provider_error_that_ends_a_cycle_is_a_notice_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    failing = ScriptedModel([ModelNotFoundError("no such model: claude-x", provider="anthropic")])
    async with Session.recorded(path, failing, environment=env(), config=config()) as session:
        result = await session.run("hello")
    assert result.stop_reason == "error"
    turns = load(path).turns
    assert [t.kind for t in turns] == ["user", "notice"]
    notice = turns[-1]
    assert isinstance(notice, NoticeTurn) and notice.text.startswith("error: ")
    assert "no such model: claude-x" in notice.text
    assert problems(list(turns)) == []  # a notice is never sent: the history stays valid
