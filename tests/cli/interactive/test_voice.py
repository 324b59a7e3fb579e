"""``/voice`` in the interactive ``taor``, in a tmux pane: espeak-ng's speech in a WAV file,
heard by ``taor voice serve``, sent as the prompt; and a voice server that cannot start."""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

from ...voice.support import HEARD, spoken
from .conftest import Start
from .terminal import PROMPT_READY, needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]


def test_voice_start_file_sends_what_it_hears_as_the_prompt(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    pytest.importorskip("pocketsphinx")
    said = spoken(tmp_path / "work")
    server.push(text("It will be sunny."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send(f"/voice start {said.name}")
    term.wait_for("voice off: the source ended", timeout=120)
    term.wait_for("It will be sunny.")
    # The screen wraps long lines itself (the file's path is long under pytest): each part alone.
    term.wait_for("🎤 listening to")
    term.wait_for(f"🎤 {HEARD}")
    assert server.requests[0].json["messages"][-1]["content"].startswith(HEARD)
    term.send("/voice status")
    term.wait_for("voice is off")
    term.keys("C-d")
    assert term.exit_code() == 0


def test_a_voice_server_that_cannot_start_is_one_line(start: Start) -> None:
    term = start(env={"TAOR_VOICE_COMMAND": "no-such-stt-server"})
    term.wait_for(PROMPT_READY)
    term.send("/voice start")
    term.wait_for("✗ voice.command: 'no-such-stt-server' is not a command found on PATH")
    term.send("/voice bogus")
    term.wait_for("usage: /voice start [microphone|loopback|FILE]")
    term.keys("C-d")
    assert term.exit_code() == 0


def test_what_is_heard_while_the_agent_works_steers_it(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    pytest.importorskip("pocketsphinx")
    said = spoken(tmp_path / "work")
    wait = "until [ -e go ]; do sleep 0.1; done"  # the agent works until the test says go
    server.push(tool_calls(("shell", {"command": wait, "timeout": 120})), text("Noted."))
    term = start("--permission-mode", "bypass")
    term.wait_for(PROMPT_READY)
    term.send("wait a little")
    term.wait_for("until [ -e go ]", whole=False)
    term.send(f"/voice start {said.name}")
    term.wait_for(f"🎤 {HEARD}", timeout=60)
    (tmp_path / "work" / "go").touch()
    term.wait_for("Noted.", timeout=60)
    assert len(server.requests) == 2  # no input of its own: it joined the running one
    assert HEARD in str(server.requests[1].json["messages"][-1])
