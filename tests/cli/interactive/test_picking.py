"""``/model`` with no argument: a list to pick from, with the arrow keys or a number."""

from __future__ import annotations

import pytest

from taor.testing import FakeProviderServer, text

from .conftest import Start
from .terminal import needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]


def test_model_with_no_argument_picks_from_a_list(start: Start, server: FakeProviderServer) -> None:
    server.push(text("From the other model."))
    anthropic = {"ANTHROPIC_API_KEY": "sk-fake", "ANTHROPIC_BASE_URL": server.base_url("anthropic")}
    term = start(env=anthropic)
    term.ready()
    term.send("/model")
    shown = term.wait_for("Enter picks", whole=False)
    assert "❯  1. openai-compat:local  (current)" in shown and "2. anthropic:" in shown
    term.keys("Down", "Up", "Escape")  # moves, then leaves the list
    term.wait_for(lambda s: "Enter picks" not in s, whole=False)
    term.send("/model")
    term.wait_for("Enter picks", whole=False)
    term.keys("Down")
    term.wait_for("❯  2. anthropic:", whole=False)
    term.keys("Enter")
    switched = term.wait_for("from the next call")
    model = switched.split("model: anthropic:", 1)[1].split()[0]
    term.send("hi")
    term.wait_for("From the other model.")
    assert server.requests[-1].json["model"] == model
    term.send("/model")
    term.wait_for("Enter picks", whole=False)
    term.send("3")  # by its number: the current model is the first, then the catalog's
    shown = term.wait_for(lambda s: s.count("from the next call") == 2)
    third = shown.rsplit("model: ", 1)[1].split()[0]
    assert third.startswith("anthropic:") and third != model
    term.keys("C-d")
    assert term.exit_code() == 0
