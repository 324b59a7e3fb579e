"""``taor voice serve`` driven by the ``mcp`` SDK's client over stdio, on real speech."""

from __future__ import annotations

import sys
import wave
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from .support import HEARD, spoken

pytest.importorskip("pocketsphinx")


def voice_server(tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "taor", "voice", "serve"], cwd=tmp_path
    )


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def test_a_spoken_sentence_comes_back_as_partials_then_one_final(tmp_path: Path) -> None:
    said = spoken(tmp_path)
    events: list[dict[str, str]] = []
    async with Client(voice_server(tmp_path)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == {"stt_start_session", "stt_get_updates", "stt_stop_session"}
        started = await call(client, "stt_start_session", source=str(said), speed=0)
        session = started["session_id"]
        with anyio.fail_after(60):
            while True:
                update = await call(client, "stt_get_updates", session_id=session)
                events += update["events"]
                assert update["error"] is None
                if not update["active"]:
                    break
        stopped = await call(client, "stt_stop_session", session_id=session)
    events += stopped["events"]
    finals = [e["text"] for e in events if e["type"] == "utterance_final"]
    assert len(finals) == 1 and finals[0].startswith(HEARD)
    assert events[-1]["type"] == "utterance_final"
    assert any(e["type"] == "utterance_partial" for e in events)


async def test_what_cannot_be_heard_is_a_clear_tool_error(tmp_path: Path) -> None:
    (tmp_path / "notes.wav").write_text("not audio")
    with wave.open(str(tmp_path / "silence.wav"), "wb") as silence:
        silence.setnchannels(2)
        silence.setsampwidth(2)
        silence.setframerate(44100)
        silence.writeframes(bytes(4 * 44100))
    async with Client(voice_server(tmp_path)) as client:
        missing = await client.call_tool("stt_start_session", {"source": "nowhere.wav"})
        assert missing.is_error and "microphone, loopback or a WAV file" in str(missing.content)
        bad = await client.call_tool("stt_start_session", {"source": "notes.wav"})
        assert bad.is_error and "not a PCM WAV file" in str(bad.content)
        unknown = await client.call_tool("stt_get_updates", {"session_id": "nope"})
        assert unknown.is_error and "no session 'nope'" in str(unknown.content)
        quiet = await call(client, "stt_start_session", source="silence.wav", speed=0)
        with anyio.fail_after(60):
            while (update := await call(client, "stt_get_updates", session_id=quiet["session_id"]))[
                "active"
            ]:
                assert update["events"] == []
        assert update == {"events": [], "active": False, "error": None}


async def test_no_microphone_and_no_sound_server_are_clear_errors(tmp_path: Path) -> None:
    """On a machine without them (this one, and CI: no sound card, no PulseAudio)."""
    params = voice_server(tmp_path)
    params.env = {"PATH": str(Path(sys.executable).parent)}  # no pactl, whatever is installed
    async with Client(params) as client:
        microphone = await client.call_tool("stt_start_session", {"source": "microphone"})
        loopback = await client.call_tool("stt_start_session", {"source": "loopback"})
    if not microphone.is_error:
        pytest.skip("this machine has a microphone")
    assert "microphone" in str(microphone.content)  # no PortAudio, or no input device
    assert loopback.is_error
    assert "loopback needs PulseAudio or PipeWire (pactl and parec)" in str(loopback.content)
