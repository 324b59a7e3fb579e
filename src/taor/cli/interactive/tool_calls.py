"""The tool calls among the session's events: a line per running call (with a spinner, in the
live area), then, once it ends, its line with the time it took, notes about it (a rule added,
a rule saved) and its result folded or its diff. A subagent's calls show as one dim line each,
tagged with its id; its permission requests are asked like the session's own.

``ToolCallView`` is the part of ``events.EventView`` that shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from taor.agent.events import (
    Event,
    PermissionDecision,
    PermissionRequest,
    ServerToolUse,
    ToolCallEnd,
    ToolCallOutputDelta,
    ToolCallStart,
)
from taor.cli.interactive.live import Live, RunningCall
from taor.cli.interactive.screen import Screen
from taor.cli.interactive.views import Fold, Folds, call_line, diff_view, folded

if TYPE_CHECKING:
    from taor.cli.interactive.permission import PermissionPrompt


class ToolCallView:
    """The tool-call handlers of ``EventView`` (which sets these attributes)."""

    screen: Screen
    live: Live
    folds: Folds
    asking: PermissionPrompt

    def on_tool_call_start(self, event: ToolCallStart) -> None:
        self.live.calls[event.call_id] = RunningCall(summary=event.summary or event.name)

    def on_tool_call_output_delta(self, event: ToolCallOutputDelta) -> None:
        call = self.live.calls.get(event.call_id)
        if call is not None:
            lines = (call.tail + event.delta).rstrip("\n").splitlines()
            call.tail = lines[-1] if lines else ""

    def on_tool_call_end(self, event: ToolCallEnd) -> None:
        call = self.live.calls.pop(event.call_id, None)
        summary = call.summary if call else event.name
        diff = event.metadata.get("diff")
        if isinstance(diff, str) and diff:
            number = self.folds.add(Fold(title=summary, text=diff, diff=True))
            body = diff_view(diff, number)
        else:
            number = self.folds.add(Fold(title=summary, text=event.output))
            body = folded(event.output, number, style="red" if event.is_error else "")
        line = call_line(summary, failed=event.is_error, seconds=event.duration)
        notes = [Text(f"  ✓ {note}", style="dim") for note in (call.notes if call else [])]
        self.screen.print(line, *notes, body, "")

    def on_server_tool_use(self, event: ServerToolUse) -> None:
        detail = next((str(v) for v in event.input.values() if isinstance(v, str)), "")
        self.screen.print(call_line(f"{event.name}: {detail}" if detail else event.name))

    def note(self, call_id: str, text: str) -> None:
        """A line about a call, under it once it ends (now, when it is not running)."""
        call = self.live.calls.get(call_id)
        if call is None:
            self.screen.line(f"  ✓ {text}", "dim")
        else:
            call.notes.append(text)

    def _child(self, event: Event) -> None:
        if isinstance(event, ToolCallStart):
            self.screen.line(f"  ↳ [{event.agent_id}] {event.summary or event.name}", "dim")
        elif isinstance(event, PermissionRequest):
            self.asking.add(event)
        elif isinstance(event, PermissionDecision):
            self.asking.settled(event)
