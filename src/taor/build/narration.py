"""``Narrator``: the model's streamed text as narration, phases and milestones.

The session streams text deltas of a few characters; a person reads sentences. The narrator
keeps what has arrived and hands out a piece once it is a whole sentence (or a whole line: a
list item, a heading), so the stream carries one event per sentence, not per token nor per
turn. Two kinds of line are structure rather than narration, and are recognised in the forms
small models write too:

- a phase: a line that is only a bold name (``**Scaffolding**``, ``**Phase 2: Tests**:``), a
  markdown heading (``## Scaffolding``) or a step named by its number (``Step 2: Tests``);
- a section summary: a line that starts with ``Summary:`` (or ``**Summary:**``,
  ``## Section summary``, ``Milestone:``, ...) and the lines after it up to a blank line, a
  phase or the end of the text.

Whatever is left when the model's text ends (a sentence with no full stop) is handed out then.
"""

from __future__ import annotations

import re

from taor.agent.events import (
    AssistantTextDelta,
    AssistantTextEnd,
    AssistantTextStart,
    Event,
    Retry,
)
from taor.build.events import BuildEvent, Narration, Phase, SectionSummary

_SUMMARY = re.compile(
    r"^\s*(?:>\s*)?(?:#{1,4}\s*)?(?:\*\*|__)?\s*(?:section\s+|milestone\s+)?"
    r"(?:summary|milestone)\s*(?:\*\*|__)?\s*[:.\-—]?\s*(?:\*\*|__)?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_PHASE = re.compile(
    r"^\s*(?:#{1,4}\s+(?P<heading>.+?)|(?:\*\*|__)(?P<bold>[^*_].*?)(?:\*\*|__):?"
    r"|(?P<step>(?:step|phase|stage)\s+\d+\s*[:.\-—]\s*[^.!?]+))\s*:?\s*$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:[)\"'`*_]*)\s+(?=\S)")
_MAX_PHASE = 80  # characters: a longer bold line is emphasis, not a phase name


def phase_name(line: str) -> str | None:
    """The phase a line names, or None."""
    found = _PHASE.match(line)
    if found is None or _SUMMARY.match(line):
        return None
    name = (found.group("heading") or found.group("bold") or found.group("step") or "").strip(
        " *_:#"
    )
    return name if 0 < len(name) <= _MAX_PHASE else None


def summary_start(line: str) -> str | None:
    """The text on a line that opens a summary (may be empty), or None."""
    found = _SUMMARY.match(line)
    return found.group("rest").strip(" *_") if found is not None else None


class Narrator:
    """Feed it the session's events in order; it returns the build events each one completes."""

    def __init__(self) -> None:
        self._buffer = ""  # text of the current line not handed out yet
        self._summary: list[str] | None = None  # the lines of an open summary
        self._blank = False  # a blank line came before the next piece
        self.phase = ""  # the phase the work is in
        self.structured = True  # False: the report is written: no phases nor milestones
        self._report_began = False  # the report's first heading came: the rest is the report

    def feed(self, event: Event) -> list[BuildEvent]:
        if event.agent_id:  # a subagent's text is its own
            return []
        if isinstance(event, AssistantTextStart):
            return self.flush()
        if isinstance(event, AssistantTextDelta):
            return self._text(event.delta)
        if isinstance(event, AssistantTextEnd):
            return self.flush()
        if isinstance(event, Retry) and event.discarded_text:
            self._buffer, self._summary = "", None  # void: it is streamed again
        return []

    def flush(self) -> list[BuildEvent]:
        """Everything held: the last line, an open summary."""
        out: list[BuildEvent] = []
        held, self._buffer = self._buffer, ""
        if held.strip():
            out.extend(self._line(held))
        out.extend(self._close_summary())
        self._blank = True
        return out

    def _text(self, delta: str) -> list[BuildEvent]:
        self._buffer += delta
        out: list[BuildEvent] = []
        while "\n" in self._buffer:
            line, self._buffer = self._buffer.split("\n", 1)
            out.extend(self._line(line))
        if self._summary is None and not (self.structured and _maybe_structure(self._buffer)):
            whole, self._buffer = self._sentences(self._buffer)
            out.extend(whole)
        return out

    def _line(self, line: str) -> list[BuildEvent]:
        if not line.strip():
            self._blank = True
            return self._close_summary() if self._summary else []
        if not self.structured:
            return self._report_line(line)
        if (name := phase_name(line)) is not None:
            out = self._close_summary()
            self.phase = name
            self._blank = True
            return [*out, Phase(name=name)]
        if (rest := summary_start(line)) is not None:
            out = self._close_summary()
            self._summary = [rest] if rest else []
            return out
        if self._summary is not None:
            self._summary.append(line.rstrip())
            return []
        return self._sentences(line, final=True)[0]

    def _report_line(self, line: str) -> list[BuildEvent]:
        """While the report is written, what comes before its first heading (a handoff) is
        narration; the report itself is the ``build_report`` event's."""
        self._report_began = self._report_began or phase_name(line) is not None
        return [] if self._report_began else self._sentences(line, final=True)[0]

    def reporting(self, on: bool) -> None:
        """Switch to (or back from) the report: no phases, no milestones, no narration of
        the report's own sections."""
        self.structured, self._report_began = not on, False

    def _sentences(self, text: str, *, final: bool = False) -> tuple[list[BuildEvent], str]:
        """The whole sentences of ``text`` (all of it when ``final``: its line ended), and
        what is left of it."""
        parts = _SENTENCE_END.split(text)
        keep = "" if final else parts.pop()
        out: list[BuildEvent] = []
        for part in parts:
            if part.strip():
                out.append(Narration(text=part.strip(), new_paragraph=self._blank))
                self._blank = False
        return out, keep

    def _close_summary(self) -> list[BuildEvent]:
        lines, self._summary = self._summary, None
        text = "\n".join(lines or ()).strip()
        if not text:
            return []
        self._blank = True
        return [SectionSummary(text=text, phase=self.phase)]


def _maybe_structure(partial: str) -> bool:
    """Whether a line not ended yet may turn out to be a phase or a summary: keep it whole."""
    head = partial.lstrip(" >")
    return head.startswith(("#", "**", "__")) or bool(
        re.match(r"(?i)(section\s+)?(summ|miles)", head)
    )
