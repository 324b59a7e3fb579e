"""The live area: what is happening now, drawn above the prompt and redrawn as it changes: the
block of text the model is writing, its thinking, each running tool call with a spinner and
its latest output line, steering waiting for the model, and a permission question.

What is finished leaves the live area for the screen above (``events.EventView``), so the live
area stays a few lines high; it never takes more than ``max_lines`` (the text's oldest lines
go first).
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass, field

Fragments = list[tuple[str, str]]
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SILENT = 1.0  # seconds without output after which streamed text gets a spinner under it


@dataclass(kw_only=True, slots=True)
class RunningCall:
    summary: str
    started: float = field(default_factory=time.monotonic)
    tail: str = ""  # the last line of output so far
    agent: str = ""
    notes: list[str] = field(default_factory=list)  # shown under the call once it ends


@dataclass(kw_only=True, slots=True)
class Live:
    text: str = ""  # the block being written (finished blocks are on the screen)
    thinking: str = ""
    calls: dict[str, RunningCall] = field(default_factory=dict)
    queued: list[str] = field(default_factory=list)
    busy_since: float | None = None  # since an input was sent or /compact asked, until done
    cycle: bool = False  # a cycle runs (from its user_input to its processing_end)
    compacting: bool = False
    heard: float | None = None  # when the model last sent text or thinking in this cycle

    def clear(self) -> None:
        self.text, self.thinking = "", ""
        self.heard = None
        self.calls.clear()

    def fragments(self, width: int, max_lines: int, question: Fragments) -> Fragments:
        """The area as styled lines, each at most ``width`` wide, ``max_lines`` at most (the
        question always whole)."""
        spin = SPINNER[int(time.monotonic() * 10) % len(SPINNER)]
        other = self._calls(spin, width) + self._queued(width)
        room = max(1, max_lines - len(other) - _height(question))
        stalled = self._silent() and self.busy_since is not None and not self.calls
        written = self._text(width, room - stalled, spin)
        lines = written + other
        if stalled and not question:  # text came, then nothing: a stall must not look idle
            lines = [*written, ("class:spinner", fit(f"{spin} {self._waiting()}", width)), *other]
        elif not lines and self.busy_since is not None and not question:
            lines = [("class:spinner", fit(f"{spin} {self._working()}", width))]
        out: Fragments = []
        for style, text in lines:
            out += [(style, text), ("", "\n")]
        return out + question

    def height(self, width: int) -> int:
        """The lines the running calls and queued steering take (a question goes under them)."""
        return len(self._calls("", width) + self._queued(width))

    def _working(self) -> str:
        now = time.monotonic()
        seconds = now - (now if self.busy_since is None else self.busy_since)
        what = "compacting the conversation" if self.compacting else "working"
        return f"{what}… {seconds:.0f}s · esc to interrupt"

    def _silent(self) -> bool:
        """Text or thinking is showing, and the model has sent nothing for a while."""
        shown = bool(self.text or self.thinking)
        return shown and self.heard is not None and time.monotonic() - self.heard > SILENT

    def _waiting(self) -> str:
        now = time.monotonic()
        total = now - (now if self.busy_since is None else self.busy_since)
        quiet = now - (now if self.heard is None else self.heard)
        return f"waiting for the model… {total:.0f}s (silent {quiet:.0f}s) · esc to interrupt"

    def _text(self, width: int, room: int, spin: str) -> list[tuple[str, str]]:
        lines: list[tuple[str, str]] = []
        if self.thinking and not self.text:
            last = self.thinking.strip().splitlines()[-1:] or [""]
            lines.append(("class:thinking", fit(f"{spin} thinking… {last[0]}", width)))
        if self.text:
            wrapped = [piece for line in self.text.splitlines() for piece in _wrap(line, width)]
            lines += [("class:live-text", line) for line in wrapped[-room:]]
        return lines[-room:]

    def _calls(self, spin: str, width: int) -> list[tuple[str, str]]:
        lines: list[tuple[str, str]] = []
        now = time.monotonic()
        for call in self.calls.values():
            who = f"[{call.agent}] " if call.agent else ""
            line = f"{spin} {who}{call.summary}  {now - call.started:.0f}s"
            lines.append(("class:running", fit(line, width)))
            if call.tail:
                lines.append(("class:dim", fit("    " + call.tail, width)))
        return lines

    def _queued(self, width: int) -> list[tuple[str, str]]:
        return [
            ("class:queued", fit(f"» {_one_line(text)}  (queued for the model)", width))
            for text in self.queued
        ]


def _height(fragments: Fragments) -> int:
    return sum(text.count("\n") for _, text in fragments)


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] + (" …" if len(lines) > 1 else "") if lines else ""


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _wrap(line: str, width: int) -> list[str]:
    """``line`` in pieces of ``width`` at most, cut between words (a word longer than the
    width is cut where it must be); its indentation kept."""
    if not line.strip():
        return [line[:width]]
    return textwrap.wrap(line, max(1, width), break_on_hyphens=False) or [""]
