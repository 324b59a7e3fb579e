"""Events on the screen, fed straight to ``EventView`` (no prompt running: the screen writes to
a file): thinking folded before the answer, text block by block, a retry that voids streamed
text, steering shown queued then sent, an interrupt that stops a running call, a session that
ended on its own."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

from taor.agent.events import (
    AssistantTextDelta,
    AssistantTextEnd,
    Event,
    Interrupted,
    PermissionRequest,
    ProcessingEnd,
    Retry,
    SessionEnd,
    SessionStart,
    SteeringInjected,
    SteeringQueued,
    ThinkingDelta,
    ToolCallStart,
)
from taor.cli.interactive.events import EventView
from taor.cli.interactive.live import Live
from taor.cli.interactive.permission import PermissionPrompt
from taor.cli.interactive.screen import Screen
from taor.cli.interactive.views import Folds


@pytest.fixture
def shown() -> tuple[EventView, io.StringIO]:
    out = io.StringIO()
    repl = SimpleNamespace(redraw=lambda: None)
    asking = PermissionPrompt(repl, Path("config.toml"))  # type: ignore[arg-type]
    view = EventView(Screen(out=out), Live(), Folds(), asking, on_idle=lambda event: None)
    return view, out


def feed(view: EventView, *events: Event) -> None:
    for event in events:
        view.show(event)


def test_thinking_is_folded_before_the_answer_and_text_comes_block_by_block(
    shown: tuple[EventView, io.StringIO],
) -> None:
    view, out = shown
    feed(view, ThinkingDelta(delta="Plan it.\nThen "), ThinkingDelta(delta="do it.\nCheck.\n"))
    assert out.getvalue() == "" and view.live.thinking
    feed(view, AssistantTextDelta(delta="First **block**.\n\nSecond"))
    assert out.getvalue().startswith("✻ thinking\n    Plan it.\n    Then do it.\n    … +1 lines")
    assert out.getvalue().endswith("First block.\n\n") and view.live.text == "Second"
    feed(view, AssistantTextDelta(delta=" block."), AssistantTextEnd(text="..."))
    assert out.getvalue().endswith("Second block.\n\n") and view.live.text == ""


def test_a_retry_voids_the_text_streamed_so_far(shown: tuple[EventView, io.StringIO]) -> None:
    view, out = shown
    feed(view, AssistantTextDelta(delta="half an ans"))
    feed(
        view,
        Retry(attempt=1, delay=2.0, cause="overloaded\nmore", error_type="x", discarded_text=True),
    )
    feed(view, AssistantTextDelta(delta="Whole."), AssistantTextEnd(text="Whole."))
    assert out.getvalue() == "⟳ retrying in 2.0s (attempt 1): overloaded\nWhole.\n\n"


def test_steering_is_queued_then_sent(shown: tuple[EventView, io.StringIO]) -> None:
    view, out = shown
    feed(view, SteeringQueued(text="use tabs"))
    assert view.live.queued == ["use tabs"] and out.getvalue() == ""
    feed(view, SteeringInjected(text="use tabs"))
    assert view.live.queued == [] and out.getvalue() == "» use tabs  (sent to the model)\n"


def test_an_interrupt_shows_the_calls_it_stopped_and_withdraws_questions(
    shown: tuple[EventView, io.StringIO],
) -> None:
    view, out = shown
    call = ToolCallStart(call_id="c1", name="shell", arguments={}, summary="shell: sleep 60")
    ask = PermissionRequest(request_id="p", call_id="c1", name="shell", arguments={}, summary="x")
    feed(view, call, ask)
    assert view.asking.asking
    feed(view, Interrupted(), ProcessingEnd(cycle=1, stop_reason="interrupted"))
    assert out.getvalue() == "✗ shell: sleep 60\n  ⎿ interrupted\n\n■ interrupted\n"
    assert not view.asking.asking and not view.live.calls and view.live.busy_since is None


def test_a_session_that_ends_on_its_own_says_so(shown: tuple[EventView, io.StringIO]) -> None:
    view, out = shown
    feed(view, SessionEnd(reason="closed"))
    assert out.getvalue() == ""
    feed(view, SessionEnd(reason="authentication failed"))
    said = " ".join(out.getvalue().split())  # wrapped to the width
    assert "the session ended: authentication failed; check the key" in said
    assert "the next input starts a new session" in said and "Session" not in said


def test_the_keys_show_with_the_first_session_only(shown: tuple[EventView, io.StringIO]) -> None:
    view, out = shown
    for number in range(2):
        feed(view, SessionStart(session_id=f"{number}" * 12, provider="p", model="m"))
    lines = out.getvalue().splitlines()
    assert lines[0] == "taor · p:m · new session 000000000000" and "Ctrl-D exits" in lines[-2]
    assert lines[-1] == "taor · p:m · new session 111111111111"
