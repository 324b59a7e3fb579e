"""Replies with more in them, in a tmux pane against the fake server: several calls that each
need permission, and thinking."""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.agent.record.store import load
from taor.agent.record.transcript import problems
from taor.testing import FakeProviderServer, Reply, text, tool_calls

from .conftest import Start
from .terminal import PROMPT_READY, needs_tmux, transcripts

pytestmark = [pytest.mark.slow, needs_tmux]


def anthropic(server: FakeProviderServer) -> list[str]:
    """A provider whose profile lets one reply make several calls (a compatible server's
    does not)."""
    return ["--model", "anthropic:claude-sonnet-4-5", "--base-url", server.base_url("anthropic")]


def test_calls_of_one_reply_are_asked_one_at_a_time_and_ctrl_c_denies_the_rest(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    both = tool_calls(("shell", {"command": "touch one"}), ("shell", {"command": "touch two"}))
    again = tool_calls(("shell", {"command": "touch three"}), ("shell", {"command": "touch four"}))
    server.push(both, text("One of two."), again, text("Still here."))
    term = start(*anthropic(server), env={"ANTHROPIC_API_KEY": "sk-test"})
    term.wait_for(PROMPT_READY)
    term.send("make two files")
    screen = term.answer("y", "allow shell: touch one?")
    assert "touch two" not in screen  # the second is asked once the first is answered
    screen = term.answer("n", "allow shell: touch two?")
    assert "allow shell: touch one?" not in screen
    shown = term.wait_for("One of two.")
    assert "● shell: touch one" in shown and "✗ shell: touch two" in shown
    term.send("two more")
    term.wait_for("allow shell: touch three?", whole=False)
    term.keys("C-c")  # denies this one and interrupts: the other is never asked
    shown = term.wait_for("■ interrupted")
    assert "allow shell: touch four?" not in shown and "✗ shell: touch three" in shown
    term.send("still there?")
    term.wait_for("Still here.")
    term.keys("C-d")
    assert term.exit_code() == 0
    assert sorted(p.name for p in workspace.iterdir()) == ["one"]
    (path,) = transcripts(workspace)
    assert problems(load(path).turns) == []


def test_thinking_is_shown_dimmed_and_folded_and_expands(
    start: Start, server: FakeProviderServer
) -> None:
    steps = "\n".join(f"Step {n}: weigh option {n}." for n in range(1, 7))
    server.push(Reply(thinking=f"Let me think.\n{steps}", text="Option 4 it is.", chunk=8))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("choose")
    shown = term.wait_for("Option 4 it is.")
    assert "✻ thinking\n    Let me think.\n    Step 1: weigh option 1.\n" in shown
    assert "… +5 lines (/expand 1)" in shown and "Step 6" not in shown
    assert "\x1b[2;3m✻ thinking" in term.screen(colors=True)  # dim and italic
    term.send("/expand 1")
    term.wait_for("Step 6: weigh option 6.")
    term.keys("C-d")
    assert term.exit_code() == 0
