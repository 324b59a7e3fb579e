"""Permission questions as a person meets them, in a tmux pane against the fake server: one that
pops up while they are typing a message (their keys do not answer it), and an edit's question
that shows the diff it would make, folded to fit an 80x24 terminal."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

from .conftest import Start
from .terminal import KEYS_SHOWN, PROMPT_READY, needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]

ASKED = "? allow shell: touch made?"
EARLY = "(keys typed as it appeared went to your message, not to the question)"


def test_keys_typed_as_a_question_appears_go_to_the_draft_and_do_not_answer_it(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    server.push(tool_calls(("shell", {"command": "touch made"}), delay=1.0), text("Made."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("make it")
    deadline = time.monotonic() + 20
    while ASKED not in (screen := term.screen()):  # typing "a" (allow always) meanwhile
        assert time.monotonic() < deadline, screen
        term.type("a")
        time.sleep(0.05)  # a person's pace: the draft stays on one line
    assert KEYS_SHOWN not in screen  # seen as it appeared
    term.type("ays")  # so these land just after it appeared
    screen = term.wait_for(lambda s: EARLY in s and KEYS_SHOWN in s, whole=False)
    assert ASKED in screen  # still asked: no key answered it
    draft = screen.split(EARLY, 1)[1].strip().splitlines()[0]
    assert draft.startswith("› aa") and draft.endswith("aays")  # every key, in the draft
    assert not (tmp_path / "work" / "made").exists()
    term.answer("y", ASKED)  # once its keys show, a key answers it
    shown = term.wait_for("Made.")
    assert "● shell: touch made" in shown and "allowed from now on" not in shown
    assert (tmp_path / "work" / "made").exists()
    screen = term.wait_for("› aa", whole=False)
    assert [line for line in screen.splitlines() if line.startswith("› aa")] == [draft]  # kept
    term.keys("C-u", "C-d")  # the draft cleared, then leave
    assert term.exit_code() == 0


def test_an_edit_s_question_shows_its_diff_folded_to_the_screen_and_ctrl_o_shows_all(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    content = "".join(f"line {n}\n" for n in range(60))
    server.push(tool_calls(("write_file", {"path": "big.txt", "content": content})))
    server.push(text("Written."))
    term = start(width=80, height=24)
    term.wait_for(PROMPT_READY)
    term.send("write it")
    screen = term.asked("? allow write_file: big.txt?")
    lines = screen.rstrip("\n").splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    question = screen.split("? allow write_file: big.txt?\n", 1)[1]
    assert question.startswith("    --- /dev/null\n    +++ b/big.txt\n    @@ -0,0 +1,60 @@\n")
    assert "    +line 0\n    +line 1\n" in question
    assert "    … +51 lines of the diff (ctrl-o shows it all)\n" in question
    assert "  always allows: write_file(./big.txt)\n" in question
    coloured = term.screen(colors=True)
    assert "\x1b[32m    +line 0" in coloured and "\x1b[36m    @@ -0,0 +1,60 @@" in coloured
    assert not (tmp_path / "work" / "big.txt").exists()  # only shown, not written
    term.keys("C-o")
    term.wait_for("    +line 59")  # the whole diff, above the question
    term.answer("y", "? allow write_file: big.txt?")
    term.wait_for("Written.")
    assert (tmp_path / "work" / "big.txt").read_text() == content
    term.keys("C-d")
    assert term.exit_code() == 0
