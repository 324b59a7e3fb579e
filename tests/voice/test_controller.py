"""The voice controller against real MCP servers over stdio: ``taor voice serve`` on espeak-ng
speech, whose final utterance a scripted model receives as its prompt; and a fake server that
dies, hears nothing, answers garbage, refuses, or names its tools otherwise."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.testing import ScriptedModel, text
from taor.voice.client import ClientTools, connect
from taor.voice.controller import Connect, Voice, VoiceTools
from taor.voice.sources import VoiceError

from .fake_stt import build
from .support import HEARD, spoken

FAKE = Path(__file__).with_name("fake_stt.py")


class Heard:
    """A front end's listener: keeps what it is given; ``send`` gets each final utterance."""

    def __init__(self, send: object = None) -> None:
        self.partials: list[str] = []
        self.finals: list[str] = []
        self.end: tuple[str, bool] | None = None
        self.done = asyncio.Event()
        self._send = send

    def partial(self, text: str) -> None:
        self.partials.append(text)

    async def final(self, text: str) -> None:
        self.finals.append(text)
        if self._send is not None:
            await self._send(text)  # type: ignore[operator]

    def ended(self, reason: str, *, failed: bool) -> None:
        self.end = (reason, failed)
        self.done.set()


def fake(mode: str) -> Connect:
    """The fake server in this process (the SDK's in-memory transport); ``dies`` in a process
    of its own, which exits."""
    if mode == "dies":
        return connect(f"{sys.executable} {FAKE} {mode}")

    @contextlib.asynccontextmanager
    async def connected() -> AsyncIterator[ClientTools]:
        async with Client(build(mode)) as client:
            yield ClientTools(client)

    return connected


async def test_speech_from_a_file_reaches_the_model_as_a_prompt(tmp_path: Path) -> None:
    pytest.importorskip("pocketsphinx")
    said = spoken(tmp_path)
    model = ScriptedModel([text("It is sunny.")])
    async with Session(model, environment=MemoryEnvironment()) as session:
        heard = Heard(send=session.run)
        voice = Voice(connect("taor voice serve"), heard)
        assert await voice.start(str(said)) == str(said)
        assert voice.on and "listening to" in voice.status
        await asyncio.wait_for(heard.done.wait(), 120)
    (final,) = heard.finals
    assert final.startswith(HEARD) and heard.partials
    assert heard.end == ("the source ended", False)
    assert model.requests[0].messages[-1].text == final
    assert not voice.on and "voice is off" in voice.status


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("dies", "the speech-to-text server failed"),
        ("garbage", "the speech-to-text server sent {'type': 'utterance_final'}"),
        ("silent", "the source ended (no speech heard)"),
    ],
)
async def test_a_server_that_misbehaves_ends_voice_mode_with_one_message(
    mode: str, reason: str
) -> None:
    heard = Heard()
    voice = Voice(fake(mode), heard)
    assert await voice.start("microphone") == "fake microphone"
    await asyncio.wait_for(heard.done.wait(), 60)
    assert heard.end is not None
    assert heard.end[0].startswith(reason)
    assert heard.end[1] == (mode != "silent")
    assert heard.finals == [] and not voice.on


async def test_a_refused_start_is_an_error_and_voice_stays_off() -> None:
    heard = Heard()
    voice = Voice(fake("refuses"), heard)
    with pytest.raises(VoiceError, match="no such device: the fake refuses"):
        await voice.start("microphone")
    assert not voice.on and heard.end is None


async def test_stop_ends_it() -> None:
    heard = Heard()
    voice = Voice(fake("endless"), heard)
    await voice.start("microphone")
    assert voice.on
    await voice.stop()
    assert heard.end == ("stopped", False) and not voice.on


async def test_the_tool_names_are_settings() -> None:
    heard = Heard()
    tools = VoiceTools(start="listen", updates="heard", stop="hush")
    voice = Voice(fake("renamed"), heard, tools)
    await voice.start("loopback")
    await asyncio.wait_for(heard.done.wait(), 60)
    assert heard.partials == ["hello"] and heard.finals == ["hello there"]
    with pytest.raises(VoiceError, match="not a command found on PATH"):
        connect("no-such-stt-server --flag")
