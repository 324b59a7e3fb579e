"""What a headless run prints. ``text``: the final answer on stdout, progress (a line per tool
call, retries, warnings, errors) on stderr when stderr is a terminal or ``--verbose``;
``json``: one final object; ``stream-json``: every event as a JSON line (the library's codec),
then the final object as the last line."""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

from taor.agent.events import (
    ErrorEvent,
    Event,
    Retry,
    ToolCallEnd,
    ToolCallStart,
    WarningEvent,
)
from taor.agent.record.codec import to_json


class Renderer:
    def __init__(self, output_format: str, *, progress: bool, out: IO[str], err: IO[str]):
        self.format, self.progress, self.out, self.err = output_format, progress, out, err

    def event(self, event: Event) -> None:
        if self.format == "stream-json":
            self._line(to_json(event))
        elif self.format == "text" and (line := mcp_problem(event)):
            self.problem(line)
        elif self.format == "text" and self.progress:
            line = progress_line(event)
            if line:
                self._write(self.err, line)

    def final(self, summary: dict[str, Any]) -> None:
        if self.format == "text":
            text = summary["result"]
            if text:
                self._write(self.out, text)
            if summary.get("error") and not self.progress:  # else it was shown as it happened
                self.problem(summary["error"])
            if summary.get("permission_denials"):
                self.problem(denials_hint(summary["permission_denials"]))
        else:
            self._line({"type": "result", **summary})

    def say(self, line: str) -> None:
        """A line of what the run did, on stdout (for a run whose output that is)."""
        self._write(self.out, line)

    def note(self, line: str) -> None:
        """A line about the run, on stderr (stdout is the answer's)."""
        self._write(self.err, line)

    def result(self, data: dict[str, Any]) -> None:
        """An object on stdout, as a JSON line."""
        self._line(data)

    def problem(self, message: str) -> None:
        """A usage, configuration or provider problem: one line on stderr."""
        self._write(self.err, f"taor: {message}")

    def _line(self, data: dict[str, Any]) -> None:
        self._write(self.out, json.dumps(data, ensure_ascii=False, separators=(",", ":")))

    @staticmethod
    def _write(stream: IO[str], line: str) -> None:
        """A reader that went away (``taor -p ... | head -1``) does not stop the work: what is
        left to print goes nowhere, and the run goes on to its end and its transcript."""
        try:
            stream.write(line + "\n")
            stream.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def denials_hint(denials: list[dict[str, str]]) -> str:
    tools = ", ".join(dict.fromkeys(d["tool"] for d in denials))
    return (
        f"{len(denials)} tool call(s) denied ({tools}): no one could allow them here. Allow them "
        "with --permission-mode accept_edits|bypass, --allow RULE (e.g. --allow 'shell(pytest*)'), "
        "or [permissions] in .taor/config.toml"
    )


def progress_line(event: Event) -> str | None:
    if event.agent_id:
        return None
    if isinstance(event, ToolCallStart):
        return f"- {event.summary or event.name}"
    if isinstance(event, ToolCallEnd) and event.is_error:
        first = event.output.strip().splitlines()[0] if event.output.strip() else "failed"
        return f"  ! {event.name}: {first[:200]}"
    if isinstance(event, Retry):
        return f"  retrying in {event.delay:.1f} s ({event.error_type})"
    if isinstance(event, WarningEvent):
        return f"warning: {event.message}"
    if isinstance(event, ErrorEvent):
        return f"error: {event.message}"
    return None


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def mcp_problem(event: Event) -> str | None:
    """The one line for an MCP server that failed (shown whatever the verbosity)."""
    if event.kind != "mcp_server_status" or event.status != "failed":
        return None
    return f"MCP server {event.server} {event.message}; going on without it"
