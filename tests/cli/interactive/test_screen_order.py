"""What goes where on the screen: a line typed while the model writes shows after its text."""

from __future__ import annotations

import pytest

from taor.testing import FakeProviderServer, stall, text, tool_calls

from .conftest import Start
from .terminal import PROMPT_READY, needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]


def test_steering_typed_while_text_streams_shows_after_that_text(
    start: Start, server: FakeProviderServer
) -> None:
    streamed = tool_calls(
        ("shell", {"command": "echo ran"}), text="Looking at the files first, then", chunk=6
    )
    server.push(stall(5, after=3, reply=streamed), text("Steered."))
    term = start("--permission-mode", "bypass")
    term.wait_for(PROMPT_READY)
    term.send("go")
    term.wait_for("waiting for the model…", whole=False)  # the text has stopped midway
    term.send("also check the docs")
    term.wait_for("also check the docs  (queued for the model)", whole=False)
    shown = term.wait_for("Steered.")
    assert shown.index("Looking at the files first") < shown.index("also check the docs")
    assert "» also check the docs  (sent to the model)" in shown
    assert "› also check the docs" not in shown  # shown once, where it went to the model
    term.keys("C-d")
    assert term.exit_code() == 0
