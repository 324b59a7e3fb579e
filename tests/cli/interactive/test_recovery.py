"""After an error that ends the session (a bad key, say) the prompt goes on in a new session,
and Ctrl-C gives the prompt back in every state."""

from __future__ import annotations

import pytest

from taor.testing import FakeProviderServer, text, unauthorized

from .conftest import Start
from .terminal import PROMPT_READY, needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]


def test_after_an_error_that_ends_the_session_the_next_prompt_works_in_a_new_one(
    start: Start, server: FakeProviderServer
) -> None:
    server.push(unauthorized(), text("Working again."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("hello")
    ended = term.wait_for("the session ended")
    assert "check the key" in ended
    term.wait_for(lambda s: "working…" not in s, whole=False)  # no spinner left running
    term.send("try again")
    shown = term.wait_for("Working again.")
    assert "start a new Session" not in shown and "api_key=" not in shown
    assert shown.count("new session, same settings") == 1
    assert server.requests[-1].json["messages"][-1]["content"] == "try again"
    term.keys("C-d")
    assert term.exit_code() == 0


def test_ctrl_c_after_an_error_gives_the_prompt_back(
    start: Start, server: FakeProviderServer
) -> None:
    server.push(unauthorized(), text("Fine."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("hello")
    term.wait_for("the session ended")
    term.send("/model openai-compat:other")  # applies to the new session
    term.wait_for("model: openai-compat:other")
    term.type("draft")
    term.wait_for("› draft", whole=False)
    term.keys("C-c")  # clears the draft: the prompt is idle, not stuck
    term.wait_for(lambda s: "› draft" not in s, whole=False)
    term.send("/clear")
    term.wait_for("new session, same settings")
    term.send("again")
    term.wait_for("Fine.")
    assert server.requests[-1].json["model"] == "other"
    term.keys("C-d")
    assert term.exit_code() == 0


def test_a_model_without_its_key_says_what_to_set(start: Start) -> None:
    term = start()
    term.ready()
    term.send("/model anthropic:claude-sonnet-4-5")
    shown = term.wait_for("no API key for anthropic")
    assert "set ANTHROPIC_API_KEY" in shown and "api_key=" not in shown
    term.keys("C-d")
    assert term.exit_code() == 0
