"""A run's events as progress lines for an MCP client: whole sentences of the model's text (not
tokens), one line per tool call it makes and per tool that fails, and what stopped it."""

from __future__ import annotations

import re

from taor.agent.events import (
    AssistantTextDelta,
    AssistantTextEnd,
    ErrorEvent,
    Event,
    LoopDetection,
    ToolCallEnd,
    ToolCallStart,
    TurnLimit,
    WarningEvent,
)

LONGEST = 300  # characters: a line longer than this is cut, with an ellipsis
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


class Lines:
    """Feed it a session's events; each call returns the progress lines they complete."""

    def __init__(self) -> None:
        self._text = ""

    def feed(self, event: Event) -> list[str]:
        match event:
            case AssistantTextDelta():
                self._text += event.delta
                return self._sentences(final=False)
            case AssistantTextEnd():
                return self._sentences(final=True)
            case ToolCallStart():
                return [_cut(event.summary or event.name)]
            case ToolCallEnd(is_error=True):
                first = event.output.strip().splitlines()[:1]
                return [_cut(f"{event.name} failed" + (f": {first[0]}" if first else ""))]
            case TurnLimit() | WarningEvent() | LoopDetection():
                return [_cut(event.message)]
            case ErrorEvent():
                return [_cut(f"error: {event.message}")]
        return []

    def _sentences(self, *, final: bool) -> list[str]:
        parts = _SENTENCE_END.split(self._text)
        self._text = "" if final else parts.pop()
        return [_cut(part.strip()) for part in parts if part.strip()]


def _cut(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= LONGEST else line[: LONGEST - 1] + "…"
