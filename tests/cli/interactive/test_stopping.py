"""Stopping the interactive ``taor`` as a person does, in a tmux pane against the fake server:
Ctrl-C, signals sent from another terminal (SIGINT, SIGTERM), and the steering a stop leaves
unsent."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from taor.agent.record.store import load
from taor.agent.record.transcript import problems
from taor.testing import FakeProviderServer, Reply, stall, text, tool_calls

from .conftest import Start
from .terminal import PROMPT_READY, needs_tmux, transcripts

pytestmark = [pytest.mark.slow, needs_tmux]

HELD = Reply(text="Partial words that will stall here and never finish.", chunk=6)


def valid(workspace: Path) -> None:
    for path in transcripts(workspace):
        assert problems(load(path).turns) == []


def test_steering_left_unsent_by_ctrl_c_comes_back_to_the_prompt(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    server.push(stall(60, after=8, reply=HELD), text("Docs too."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("explain")
    term.wait_for("Partial words", whole=False)
    term.send("and the docs")
    term.wait_for("and the docs  (queued for the model)", whole=False)
    term.type("draft")  # being typed when the interrupt comes: kept after the steering
    term.keys("C-c")
    shown = term.wait_for("back in the prompt")
    assert "■ interrupted" in shown
    screen = term.wait_for("› and the docs", whole=False)
    assert "(queued for the model)" not in screen and "\ndraft" in screen
    term.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "Enter")
    term.wait_for("Docs too.")
    sent = [m["content"] for m in server.requests[-1].json["messages"] if m["role"] == "user"]
    assert sent == ["explain", "and the docs"]  # sent once, as the person's next input
    term.keys("C-d")
    assert term.exit_code() == 0
    valid(tmp_path / "work")


def test_sigint_from_outside_interrupts_a_cycle_and_at_an_idle_prompt_exits(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    server.push(stall(60, after=8, reply=HELD), text("Back again."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("explain")
    term.wait_for("Partial words", whole=False)
    term.kill(signal.SIGINT)
    shown = term.wait_for("■ interrupted")
    assert "Partial words" in shown.split("■ interrupted")[0]  # the partial text is kept
    term.send("and now?")
    term.wait_for("Back again.")
    term.type("a draft")
    term.wait_for("› a draft", whole=False)
    term.kill(signal.SIGINT)  # idle: leaves, as Ctrl-C at an empty prompt does
    assert term.exit_code() == 0
    assert "saved · taor --resume" in term.history()
    valid(tmp_path / "work")


def test_sigterm_mid_tool_call_closes_the_session_resumable(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    waits = ("shell", {"command": "sleep 30; echo never"})
    server.push(tool_calls(waits), text("Resumed fine."))
    term = start("--permission-mode", "bypass")
    term.wait_for(PROMPT_READY)
    term.send("wait a while")
    term.wait_for("shell: sleep 30", whole=False)  # its spinner line
    term.kill(signal.SIGTERM)
    assert term.exit_code(timeout=15) == 0
    shown = term.history()
    assert "✗ shell: sleep 30" in shown and "saved · taor --resume" in shown
    valid(tmp_path / "work")
    again = start("--continue")
    again.wait_for("1 earlier input(s); the last: › wait a while")
    again.send("go on")
    again.wait_for("Resumed fine.")
    results = [m for m in server.requests[-1].json["messages"] if m["role"] == "tool"]
    assert len(results) == 1 and "never" not in results[0]["content"]
    again.keys("C-d")
    assert again.exit_code() == 0
    valid(tmp_path / "work")
