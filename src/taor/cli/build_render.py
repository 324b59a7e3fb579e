"""What ``taor build`` prints. ``text``: the narration as a person reads it, on stdout: each
phase as a heading, the narration's sentences in paragraphs, each milestone set apart, a line
per tool call (and the first line of a failure), the limits, warnings and errors, then where
the report is. Bold and colour only on a terminal (and never with ``NO_COLOR``).
``stream-json``: every event as a JSON line (the library's codec), then the result object;
``json``: the result object alone."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from typing import IO

from taor.agent.events import (
    ErrorEvent,
    LoopDetection,
    ToolCallEnd,
    ToolCallStart,
    TurnLimit,
    WarningEvent,
)
from taor.agent.record.codec import to_json
from taor.build.events import (
    BuildReportReady,
    BuildStreamEvent,
    Narration,
    Phase,
    SectionSummary,
)
from taor.build.report import Report


class BuildRenderer:
    def __init__(self, output_format: str, *, out: IO[str], err: IO[str]) -> None:
        self.format, self.out, self.err = output_format, out, err
        self.terminal = out.isatty()
        self.styled = self.terminal and not os.environ.get("NO_COLOR")
        self.width = min(shutil.get_terminal_size().columns, 100) if self.terminal else 0
        self.column = 0  # on a terminal: where the paragraph being written has got to
        self.path = ""
        self.markdown = ""  # the report: the build's result

    def event(self, event: BuildStreamEvent) -> None:
        if isinstance(event, BuildReportReady):
            self.path, self.markdown = event.path, event.markdown
        if self.format == "stream-json":
            self._write(json.dumps(to_json(event), ensure_ascii=False, separators=(",", ":")))
        elif self.format == "text" and isinstance(event, Narration) and self.terminal:
            self._flow(event)
        elif self.format == "text" and (line := self._line(event)) is not None:
            self._end_paragraph()
            self._write(line)

    def final(self, report: Report | None, session_id: str) -> None:
        result = {
            "type": "result",
            "complete": bool(report and report.complete),
            "why": report.why if report else "",
            "report": self.path,
            "result": self.markdown,
            "files": [path for path, _ in report.files] if report else [],
            "session_id": session_id,
        }
        self._end_paragraph()
        if self.format != "text":
            self._write(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
        elif report is not None:
            state = "complete" if report.complete else f"incomplete ({report.why})"
            self._write(f"\n{self._bold('Build ' + state)}: the report is in {self.path}")
            if not report.complete:
                self._write("Go on with: taor build --continue")

    def problem(self, message: str) -> None:
        self.err.write(f"taor build: {message}\n")
        self.err.flush()

    def _line(self, event: BuildStreamEvent) -> str | None:
        if event.agent_id:
            return None
        if isinstance(event, Phase):
            return f"\n{self._bold('## ' + event.name)}"
        if isinstance(event, Narration):
            return f"\n{event.text}" if event.new_paragraph else event.text
        if isinstance(event, SectionSummary):
            lines = [f"✓ Milestone: {event.text.splitlines()[0]}", *event.text.splitlines()[1:]]
            if self.width:
                lines = [textwrap.fill(line, self.width, subsequent_indent="  ") for line in lines]
            head, *rest = lines
            return "\n" + "\n".join([self._green(head), *(f"  {line}" for line in rest)])
        if isinstance(event, ToolCallStart):
            line = f"  ▸ {event.summary or event.name}"
            if self.width and len(line) > self.width:
                line = line[: self.width - 1] + "…"
            return self._dim(line)
        if isinstance(event, ToolCallEnd) and event.is_error:
            first = event.output.strip().splitlines()[0][:160] if event.output.strip() else ""
            return self._dim(f"    ✗ {first or 'failed'}")
        if isinstance(event, TurnLimit | LoopDetection | WarningEvent | ErrorEvent):
            return f"[{event.kind}: {event.message}]"
        return None

    def _flow(self, event: Narration) -> None:
        """On a terminal, a paragraph's sentences run on, wrapped to the width."""
        if event.new_paragraph or not self.column:
            self._end_paragraph()
            if event.new_paragraph:
                self._put("\n")
        for word in event.text.split():
            if self.column and self.column + 1 + len(word) > self.width:
                self._put("\n")
                self.column = 0
            self._put(f"{' ' if self.column else ''}{word}")
            self.column += len(word) + (1 if self.column else 0)

    def _end_paragraph(self) -> None:
        if self.column:
            self._put("\n")
            self.column = 0

    def _put(self, text: str) -> None:
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.out.fileno())

    def _bold(self, text: str) -> str:
        return f"\033[1m{text}\033[0m" if self.styled else text

    def _dim(self, text: str) -> str:
        return f"\033[2m{text}\033[0m" if self.styled else text

    def _green(self, text: str) -> str:
        return f"\033[32m{text}\033[0m" if self.styled else text

    def _write(self, line: str) -> None:
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.out.fileno())
