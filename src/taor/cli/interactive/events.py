"""The session's events on the screen, one method per kind (``on_<kind>``): text streamed into
the live area and printed as markdown block by block, thinking folded, a line per tool call (a
spinner while it runs) then its result folded or its diff, and errors, retries, limits and
interrupts as one readable line each.

A subagent's events show as its tool calls, tagged with its id; its permission requests are
asked like the session's own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from taor.agent.events import (
    AssistantTextDelta,
    AssistantTextEnd,
    Compaction,
    ErrorEvent,
    Event,
    FollowUpQueued,
    Interrupted,
    LoopDetection,
    PermissionDecision,
    PermissionRequest,
    ProcessingEnd,
    Retry,
    SessionEnd,
    SessionStart,
    SteeringInjected,
    SteeringQueued,
    ThinkingDelta,
    TurnLimit,
    UserInput,
    WarningEvent,
)
from taor.cli.interactive.blocks import BlockSplitter
from taor.cli.interactive.live import Live
from taor.cli.interactive.question import joined
from taor.cli.interactive.screen import Screen
from taor.cli.interactive.tool_calls import ToolCallView
from taor.cli.interactive.views import (
    Fold,
    Folds,
    call_line,
    folded,
    thinking_view,
)

HINT = (
    "Enter sends",
    "Ctrl-J new line",
    "@path attaches a file",
    "/help",
    "Ctrl-C interrupts",
    "Ctrl-D exits",
)

if TYPE_CHECKING:
    from taor.cli.interactive.permission import PermissionPrompt


class EventView(ToolCallView):
    """Shows each event; ``on_idle`` runs when a cycle ends (the prompt is free again)."""

    def __init__(
        self,
        screen: Screen,
        live: Live,
        folds: Folds,
        asking: PermissionPrompt,
        on_idle: Callable[[ProcessingEnd], None],
    ) -> None:
        self.screen, self.live, self.folds, self.asking = screen, live, folds, asking
        self.on_idle = on_idle
        self.blocks = BlockSplitter()
        self.typed: list[str] = []  # inputs typed at the prompt (already on the screen)
        self.opened = asyncio.Event()  # set once the session's start is on the screen

    def show(self, event: Event) -> None:
        if event.agent_id:
            self._child(event)
            return
        handler = getattr(self, f"on_{event.kind}", None)  # on_tool_call_end, ...
        if handler is not None:
            handler(event)

    # --- the model's text and thinking ---

    def on_session_start(self, event: SessionStart) -> None:
        how = "resumed session" if event.resumed else "new session"
        self.screen.line(f"taor · {event.provider}:{event.model} · {how} {event.session_id[:12]}")
        if not self.opened.is_set():  # the keys once, not again for each new session
            self.screen.line("\n".join(joined(HINT, self.screen.width())), "dim")
        self.opened.set()

    def on_user_input(self, event: UserInput) -> None:
        self.live.busy_since = self.live.busy_since or time.monotonic()
        self.live.cycle = True
        if event.text in self.typed:
            self.typed.remove(event.text)
        else:  # the first prompt from the command line, or a follow-up: not echoed yet
            self.screen.line(f"› {event.text}", "bold")

    def on_assistant_text_delta(self, event: AssistantTextDelta) -> None:
        self._thinking_done()
        self.live.heard = time.monotonic()
        for block in self.blocks.feed(event.delta):
            self.screen.markdown(block, gap=True)
        self.live.text = self.blocks.pending

    def on_assistant_text_end(self, event: AssistantTextEnd) -> None:
        self._thinking_done()
        rest = self.blocks.finish()
        self.live.text = ""
        if rest:
            self.screen.markdown(rest, gap=True)
        if event.partial:
            self.screen.line("  (cut short)", "dim")

    def on_thinking_delta(self, event: ThinkingDelta) -> None:
        self.live.thinking += event.delta
        self.live.heard = time.monotonic()

    def _thinking_done(self) -> None:
        if self.live.thinking.strip():
            number = self.folds.add(Fold(title="thinking", text=self.live.thinking))
            self.screen.print(thinking_view(self.live.thinking, number))
        self.live.thinking = ""

    # --- the host's side: permission, steering, interrupts ---

    def on_permission_request(self, event: PermissionRequest) -> None:
        self.asking.add(event)

    def on_permission_decision(self, event: PermissionDecision) -> None:
        self.asking.settled(event)
        if event.rules and event.source == "host":
            self.note(event.call_id, f"allowed from now on: {', '.join(event.rules)}")

    def on_steering_queued(self, event: SteeringQueued) -> None:
        self.live.queued.append(event.text)

    def on_steering_injected(self, event: SteeringInjected) -> None:
        if event.text in self.live.queued:
            self.live.queued.remove(event.text)
        if event.source == "user":
            self.screen.print(
                Text.assemble(
                    ("» ", "bold magenta"),
                    (event.text, "magenta"),
                    ("  (sent to the model)", "dim"),
                )
            )
        else:
            self.screen.line(f"» [{event.source}] {event.text}", "dim")

    def on_follow_up_queued(self, event: FollowUpQueued) -> None:
        self.screen.line(f"» queued as the next input: {event.text}", "dim")

    def on_interrupted(self, event: Interrupted) -> None:
        for call in self.live.calls.values():  # stopped: the model is told they were
            self.screen.print(call_line(call.summary, failed=True), folded("interrupted", 0), "")
        self.live.clear()
        reason = "interrupted" if event.reason == Interrupted().reason else event.reason
        self.screen.line(f"■ {reason}", "bold yellow")

    def on_processing_end(self, event: ProcessingEnd) -> None:
        self.on_assistant_text_end(AssistantTextEnd(text=""))
        self.live.clear()
        self.live.busy_since, self.live.cycle = None, False
        self.asking.clear(agent_id="")
        self.on_idle(event)

    # --- one line each ---

    def on_turn_limit(self, event: TurnLimit) -> None:
        self.screen.line(f"■ {event.message}", "bold yellow")

    def on_loop_detection(self, event: LoopDetection) -> None:
        self.screen.line(f"⚠ {event.message}", "yellow")

    def on_compaction(self, event: Compaction) -> None:
        self._compacted()
        line = f"⟳ compacted: {event.tokens_before:,} → {event.tokens_after:,} tokens"
        self.screen.line(line + (f" ({event.message})" if event.message else ""), "cyan")

    def on_retry(self, event: Retry) -> None:
        if event.discarded_text:
            self.blocks.finish()
            self.live.text = ""
        cause = event.cause.strip().splitlines()[0] if event.cause.strip() else event.error_type
        self.screen.line(
            f"⟳ retrying in {event.delay:.1f}s (attempt {event.attempt}): {cause}", "yellow"
        )

    def on_mcp_server_status(self, event: Event) -> None:
        """A server that failed, exited or came back: one line (connecting ones stay quiet)."""
        from taor.cli.interactive.commands.mcp import status_line

        line = status_line(event)
        if line is not None:
            self.screen.line(*line)

    def on_warning(self, event: WarningEvent) -> None:
        if event.code == "compaction":
            self._compacted()
        self.screen.line(f"⚠ {event.message}", "yellow")

    def _compacted(self) -> None:
        """A ``/compact`` asked while idle has made the prompt busy until it is done."""
        if self.live.compacting and not self.live.cycle:
            self.live.busy_since = None
        self.live.compacting = False

    def on_session_end(self, event: SessionEnd) -> None:
        self.live.clear()
        self.live.busy_since, self.live.cycle = None, False
        if event.reason == "authentication failed":
            self.screen.line(
                "■ the session ended: authentication failed; check the key (set its variable and"
                " restart taor, or /model for another provider); the next input starts a new"
                " session",
                "red",
            )
        elif event.reason != "closed":  # it ended on its own
            self.screen.line(
                f"■ the session ended: {event.reason}; the next input starts a new one", "red"
            )

    def on_error(self, event: ErrorEvent) -> None:
        self.screen.line(f"✗ {event.message}", "bold red")
