"""How a cycle ended, for a host: its result object (the command's final ``json`` /
``stream-json`` line) and its exit code, from its events. The command uses it for one input
(``taor.cli.headless``) and for one result per input (``taor.cli.stream_run``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from taor.agent.events import Event

# The exit codes (``taor --help`` and the README list them). This module imports the library
# only when a run starts, so that ``--help`` stays fast.
EXIT_DONE, EXIT_ERROR, EXIT_USAGE, EXIT_LIMIT, EXIT_DENIED, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130


class Outcome:
    """Feed it one cycle's events (a subagent's are skipped); then ``summary`` and
    ``exit_code``. ``denied``: a call was denied because no one could answer its request."""

    def __init__(self) -> None:
        from taor.agent.result import ResultBuilder

        self._builder = ResultBuilder()
        self._started = time.monotonic()
        self.denials: list[dict[str, str]] = []  # calls no one could allow: tool and call id
        self.stopped_by = ""  # the limit's or the loop detection's message, when one stopped it
        self.limit = ""  # the limit's name (``TurnLimit.limit``) when a limit stopped it
        self.refused = False  # the input was refused before it was sent (too large)
        self.input_refused = False  # the provider refused it: it is left out from now on

    @property
    def denied(self) -> bool:
        return bool(self.denials)

    def deny(self, name: str, call_id: str) -> None:
        self.denials.append({"tool": name, "call_id": call_id})

    def feed(self, event: Event) -> None:
        if event.agent_id:
            return
        self._builder.feed(event)
        if event.kind == "error" and event.error_type == "InputTooLargeError":
            self.refused = True
        if event.kind == "warning" and event.code == "input_refused":
            self.input_refused = True
        if event.kind == "turn_limit":
            self.stopped_by, self.limit = event.message, event.limit
        elif event.kind == "loop_detection" and event.stopped:
            self.stopped_by = event.message
        if event.kind == "permission_decision" and (event.decision, event.source) == (
            "deny",
            "default",
        ):
            self.deny(event.name, event.call_id)

    def summary(self, session_id: str) -> dict[str, Any]:
        result = self._builder.result()
        usage = result.usage
        return {
            "result": result.text,
            "stop_reason": result.stop_reason,
            "session_id": session_id,
            "error": result.error,
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
            "cost_usd": result.cost,
            "model_calls": result.turns,
            "tool_calls": result.tool_calls,
            "duration_s": round(time.monotonic() - self._started, 3),
            "permission_denials": self.denials,
        }

    def exit_code(self) -> int:
        stop = self._builder.result().stop_reason
        if stop == "interrupted" or stop == "closed":
            return EXIT_INTERRUPTED
        if stop == "error":
            return EXIT_USAGE if self.refused else EXIT_ERROR
        if stop == "turn_limit" or stop == "loop_detected":
            return EXIT_LIMIT
        return EXIT_DENIED if self.denied else EXIT_DONE
