"""Inputs a session takes whatever they hold: text that is not UTF-8 is replaced, with a
warning, and is never sent."""

from __future__ import annotations

from pathlib import Path

from taor.agent.events import ErrorEvent, ProcessingEnd, WarningEvent
from taor.agent.record.codec import to_json, turn_from_json
from taor.agent.record.transcript import Transcript
from taor.agent.session import Session
from taor.env import MemoryEnvironment
from taor.errors import InvalidRequestError
from taor.llm.types import ImagePart, TextPart
from taor.testing import ScriptedModel, text

from .loop_support import collect, config, of, session


def end_of(events: list[object]) -> ProcessingEnd:
    assert isinstance(events[-1], ProcessingEnd)
    return events[-1]


async def test_lone_surrogates_in_an_input_and_in_steering_are_replaced() -> None:
    model = ScriptedModel([text("ok")])
    async with session(model) as s:
        s.steer("and \udcfe too")
        events = await collect(s, "caf\udce9")
    (warning,) = of(events, WarningEvent)
    assert warning.code == "encoding" and "1 character(s)" in warning.message
    sent = model.requests[0].messages
    assert sent[-1].text.startswith("caf\ufffd") and "and \ufffd too" in sent[-1].text
    assert not any("\udce9" in m.text or "\udcfe" in m.text for m in sent)


async def test_an_input_bigger_than_the_window_is_an_error_event_and_not_recorded() -> None:
    model = ScriptedModel([text("fits")])
    async with session(model, cfg=config(context_window=2000)) as s:
        events = await collect(s, "x" * 20_000)
        (error,) = of(events, ErrorEvent)
        assert error.error_type == "InputTooLargeError" and "2,000 tokens" in error.message
        assert end_of(events).stop_reason == "error" and not model.requests
        result = await s.run("small")
        assert result.text == "fits"
        assert "x" * 100 not in model.requests[0].messages[-1].text
        assert len(model.requests[0].messages) == 1


async def test_a_refused_input_is_left_out_of_the_next_requests() -> None:
    model = ScriptedModel([text("first"), InvalidRequestError("bad image"), text("fine")])
    async with session(model) as s:
        await s.run("one")
        events = await collect(s, "REFUSED")
        assert [w.code for w in of(events, WarningEvent)] == ["input_refused"]
        assert (await s.run("two")).text == "fine"
        texts = [m.text for m in model.requests[-1].messages]
        assert texts == ["one", "first", "two"]
        turns = s.history
    reloaded = Transcript(turn_from_json(to_json(turn)) for turn in turns)
    assert [m.text for m in reloaded.messages()] == ["one", "first", "two", "fine"]


async def test_images_go_with_the_input_and_are_kept_in_the_transcript(tmp_path: Path) -> None:
    png = ImagePart(data=b"\x89PNG\r\n\x1a\n" + bytes(32), media_type="image/png")
    model = ScriptedModel([text("a chart"), text("still a chart")])
    path = tmp_path / "s.jsonl"
    async with Session.recorded(path, model, environment=MemoryEnvironment()) as s:
        events = [event async for event in s.submit("what is this?", images=[png])]
    assert end_of(events).stop_reason == "completed"
    (sent,) = [m for m in model.requests[0].messages if m.role == "user"]
    assert sent.parts == (TextPart(text="what is this?"), png)
    async with Session.resume(path, model, environment=MemoryEnvironment()) as s:
        await s.run("and now?")
    first = next(m for m in model.requests[1].messages if m.role == "user")
    assert first.parts[1] == png  # read back from the transcript, bytes and all
