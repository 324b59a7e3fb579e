"""Keys as a person presses them: Esc stops the agent, a stall shows a spinner under the text,
Ctrl-C twice to leave, Shift-Tab through the permission modes, ``!command`` run at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, Reply, stall, text

from .conftest import Start
from .terminal import PROMPT_READY, needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]


def test_a_stall_mid_stream_shows_a_spinner_and_esc_interrupts(
    start: Start, server: FakeProviderServer
) -> None:
    held = Reply(text="First words of an answer that stops", chunk=6)
    server.push(stall(60, after=3, reply=held), text("Back."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("go")
    term.wait_for(lambda s: "First words" in s and "waiting for the model…" in s, whole=False)
    term.keys("Escape")
    term.wait_for("■ interrupted")
    term.send("again")
    term.wait_for("Back.")
    term.keys("C-d")
    assert term.exit_code() == 0


def test_ctrl_c_at_an_empty_prompt_asks_for_a_second_press(start: Start) -> None:
    term = start()
    term.ready()
    term.keys("C-c")
    term.wait_for("press Ctrl-C again to exit", whole=False)
    term.type("x")  # any key: asked again from the start
    term.wait_for(lambda s: "press Ctrl-C again" not in s, whole=False)
    term.keys("C-c")  # clears the draft
    term.keys("C-c")
    term.wait_for("press Ctrl-C again to exit", whole=False)
    term.wait_for(lambda s: "press Ctrl-C again" not in s, whole=False)  # the time is up
    term.keys("C-c")
    term.wait_for("press Ctrl-C again to exit", whole=False)
    term.keys("C-c")
    assert term.exit_code() == 0


def test_shift_tab_cycles_the_permission_modes(start: Start) -> None:
    term = start()
    term.ready()
    term.wait_for("· default mode", whole=False)
    term.keys("BTab")
    term.wait_for("· accept_edits mode", whole=False)
    term.keys("BTab")
    term.wait_for("· plan mode", whole=False)
    term.send("/permissions")
    term.wait_for("permission mode: plan")
    term.keys("BTab")
    term.wait_for("· default mode", whole=False)
    term.keys("C-d")
    assert term.exit_code() == 0


def test_a_bang_command_runs_in_the_project_and_goes_with_the_next_input(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "work" / "notes.txt").write_text("alpha\nbeta\n")
    server.push(text("I see the notes."))
    term = start()
    term.ready()
    term.send("!cat notes.txt && pwd")
    shown = term.wait_for("! cat notes.txt && pwd")
    term.wait_for("(the model gets this with your next input)")
    assert server.requests == []  # not sent to the model yet
    term.send("what do you see?")
    term.wait_for("I see the notes.")
    sent = server.requests[-1].json["messages"][-1]["content"]
    assert "`cat notes.txt && pwd`" in sent and "alpha\nbeta" in sent
    assert str(tmp_path / "work") in sent and sent.endswith("what do you see?")
    assert "! cat notes.txt" in shown
    term.send("!sleep 60")
    term.wait_for("! sleep 60", whole=False)
    term.keys("C-c")  # stops it
    term.wait_for("stopped")
    term.keys("C-d")
    assert term.exit_code() == 0


def test_esc_with_the_completion_menu_open_closes_the_menu_and_the_agent_goes_on(
    start: Start, server: FakeProviderServer
) -> None:
    held = Reply(text="First words then the rest of the answer", chunk=6)
    server.push(stall(4, after=3, reply=held))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("go")
    term.wait_for(lambda s: "First words" in s and "waiting for the model…" in s, whole=False)
    term.type("/he")
    term.wait_for(lambda s: "/help" in s.replace("/he\n", ""), whole=False)  # the menu
    term.keys("Escape")
    term.wait_for("the rest of the answer")
    assert "interrupted" not in term.screen()
    term.keys("C-u", "C-d")
    assert term.exit_code() == 0


def test_tab_pressed_at_once_after_typing_completes(start: Start) -> None:
    term = start()
    term.ready()
    term.type("/con")
    term.keys("Tab")  # no wait for the menu typing opens: a fast typist's Tab
    term.wait_for("› /context", whole=False)
    term.keys("C-u")
    term.type("/ex")
    term.keys("Tab")  # two commands: the menu lists both (the first chosen if it was open)
    term.wait_for(lambda s: "close the session" in s and "show a folded" in s, whole=False)
    term.keys("Escape", "C-u", "C-d")
    assert term.exit_code() == 0
