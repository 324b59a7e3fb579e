"""Images named with ``@`` or pasted as a path: attached for a model that takes images, and one
line that says why not for one that does not."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text

from .conftest import Start
from .terminal import PROMPT_READY, needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]

PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


def test_an_image_for_a_model_that_takes_images(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "work" / "shot.png").write_bytes(PNG)
    server.push(text("A screenshot."), text("Again."))
    anthropic = {"ANTHROPIC_API_KEY": "sk-fake", "ANTHROPIC_BASE_URL": server.base_url("anthropic")}
    term = start("--model", "anthropic:claude-sonnet-4-5", env=anthropic)
    term.wait_for(PROMPT_READY)
    term.send("what is in @shot.png?")
    shown = term.wait_for("A screenshot.")
    assert "image: shot.png" in shown and "binary" not in shown
    sent = server.requests[-1].json["messages"][-1]["content"]
    assert "Attached images (named with @): shot.png" in sent[0]["text"]
    assert sent[1]["type"] == "image"  # inline with the message: no tool call to see it
    assert sent[1]["source"]["data"] == base64.b64encode(PNG).decode()
    assert "sent with your message" in shown
    term.ready()
    term.paste(str(tmp_path / "work" / "shot.png"))  # as a terminal pastes a dropped file
    term.wait_for("› @shot.png", whole=False)
    term.send("and now?")
    term.wait_for("Again.")
    assert "shot.png" in str(server.requests[-1].json["messages"][-1]["content"])
    term.keys("C-d")
    assert term.exit_code() == 0


def test_an_image_for_a_model_without_images_says_so(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "work" / "shot.png").write_bytes(PNG)
    server.push(text("No picture."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("look at @shot.png")
    shown = term.wait_for("No picture.")
    assert "⚠ @shot.png: an image, and this model does not take images; not attached" in shown
    term.keys("C-d")
    assert term.exit_code() == 0
