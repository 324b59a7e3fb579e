"""The interactive ``taor`` in an 80x24 terminal and in a narrow one, in a tmux pane against the
fake server: the lines a person must read whole (the status line, a tool call's line and result,
a permission question with all its keys) are whole, shown once, and without colour when
``NO_COLOR`` is set."""

from __future__ import annotations

import re

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

from .conftest import Start
from .terminal import COLOUR, EXITED, PROMPT_READY, Terminal, needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]

KEYS = ("y yes", "a always", "s always, saved to project", "n no", "r no, with a reason")
KEYS_LINE = "  y yes · a always · s always, saved to project · n no · r no, with a reason"
LONG = (
    "cd build && make -j8 all && echo this is a fairly long command line && "
    "ls -la /tmp/somewhere/far && rm -rf ./danger-at-the-end"
)


def status(term: Terminal) -> str:
    """The status line: the last line of the screen."""
    return term.screen().rstrip("\n").splitlines()[-1]


def joined(screen: str) -> str:
    """The screen's words in one line (what wraps at the edge joined again)."""
    return " ".join(screen.split())


def test_an_80x24_terminal_shows_every_essential_line_whole(
    start: Start, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "seq 1 5; echo standard size"})), text("Done."))
    term = start(width=80, height=24)
    term.wait_for(PROMPT_READY)
    term.ready()
    unpriced = r" openai-compat:local · effort default · context \d+% of 32k · price not known"
    assert re.fullmatch(unpriced, status(term))  # known before the first call
    term.send("go")
    screen = term.asked("? allow shell: seq 1 5; echo standard size?")
    assert screen.count("? allow shell: seq 1 5; echo standard size?") == 1  # drawn once
    assert "  always allows: shell(seq 1 5), shell(echo standard size)\n" in screen
    assert KEYS_LINE in screen.splitlines()  # one line of 80 columns
    assert COLOUR.search(term.screen(colors=True))  # the question in colour
    term.keys("y")
    shown = term.wait_for("Done.")
    assert "● shell: seq 1 5; echo standard size" in shown
    assert "  ⎿ 1\n    2\n    3\n    … +3 lines (ctrl-o or /expand 1)" in shown
    term.wait_for(lambda _: re.fullmatch(unpriced, status(term)) is not None, whole=False)
    term.send("/cost")
    shown = term.wait_for("in this run")
    assert "cost: price not known · 2 model calls in this run" in shown
    assert "(taor's model catalog has no prices for openai-compat:local)" in shown
    term.keys("C-d")
    assert term.exit_code() == 0
    left = [line.rstrip() for line in term.screen().splitlines()]
    assert "›" not in left and "saved · taor --resume" in left[left.index(f"{EXITED} 0") - 1]


def test_a_narrow_terminal_without_colour_shows_a_long_command_whole(
    start: Start, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": LONG})), text("Not run, then."))
    term = start(width=50, height=24, env={"NO_COLOR": "1"})
    term.wait_for(PROMPT_READY)
    term.ready()
    assert re.fullmatch(r" openai-compat:local · context \d+% of 32k", status(term))
    term.send("build")
    screen = term.asked("? allow shell?")
    assert screen.count("? allow shell?") == 1
    asked = screen.split("? allow shell?")[1].split("shell is not read-only")[0]
    assert joined(asked) == LONG  # all of it, its dangerous end too, wrapped at the edge
    assert all(len(line) <= 50 for line in screen.splitlines())
    words = joined(screen)
    assert "the permission mode default asks before it runs." in words
    assert "always allows: shell(cd build), shell(make -j8 all)," in words
    assert "shell(rm -rf ./danger-at-the-end)" in words
    assert all(key in words for key in KEYS)
    assert not COLOUR.search(term.screen(colors=True))
    term.keys("n")
    shown = term.wait_for("Not run, then.")
    call = next(line for line in shown.splitlines() if line.startswith("✗ shell: "))
    assert call.startswith("✗ shell: cd build && make") and call.endswith("…")  # cut, marked
    assert not COLOUR.search(term.screen(colors=True))
    assert re.fullmatch(r" openai-compat:local · context \d+% of 32k", status(term))
    term.keys("C-d")
    assert term.exit_code() == 0
