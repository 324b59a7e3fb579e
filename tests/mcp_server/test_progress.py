"""A run's events as progress lines: whole sentences however the text is cut into deltas."""

from __future__ import annotations

from taor.agent.events import AssistantTextDelta, AssistantTextEnd, ToolCallEnd, TurnLimit
from taor.mcp_server.progress import LONGEST, Lines


def test_sentences_come_whole_however_the_tokens_fall() -> None:
    lines = Lines()
    text = "Reading the file. It has 3.5 lines: one, two!\nNext, the tests"
    seen = [line for piece in text for line in lines.feed(AssistantTextDelta(delta=piece))]
    assert seen == ["Reading the file.", "It has 3.5 lines: one, two!"]
    assert lines.feed(AssistantTextEnd(text=text)) == ["Next, the tests"]


def test_failures_and_limits_are_lines_and_a_long_line_is_cut() -> None:
    lines = Lines()
    failed = ToolCallEnd(
        call_id="c", name="shell", output="\nboom: no such file\nmore", is_error=True
    )
    assert lines.feed(failed) == ["shell failed: boom: no such file"]
    assert lines.feed(TurnLimit.reached("model_calls", 2, 2))[0].startswith("Limit reached")
    (cut,) = lines.feed(AssistantTextDelta(delta="x" * 1000 + ". "))
    assert len(cut) == LONGEST and cut.endswith("…")
