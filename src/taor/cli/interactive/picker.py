"""Picking one of a list at the prompt (``/model`` with no argument): the list is drawn above
the prompt with a mark on one line; Up and Down move the mark, Enter takes the marked line, or
a number typed then Enter takes that line; Esc or Ctrl-C leave the list. The choice completes
a command (``/model anthropic:...``), sent as if typed, so it is echoed and kept in the
history like any other."""

from __future__ import annotations

from dataclasses import dataclass

from taor.cli.interactive.live import Fragments, fit

ROWS = 10  # lines of the list shown at once (the ones around the mark)


@dataclass(kw_only=True, slots=True)
class Picker:
    title: str
    command: str  # what the choice completes: ``/model``
    options: tuple[str, ...]
    notes: tuple[str, ...] = ()  # a note per option (shown dim), or none
    index: int = 0

    def move(self, step: int) -> None:
        self.index = (self.index + step) % len(self.options)

    def choice(self, typed: str) -> str | None:
        """The option a number typed names (from 1), the marked one when nothing is typed,
        None for anything else."""
        if not typed:
            return self.options[self.index]
        if typed.isdigit() and 1 <= int(typed) <= len(self.options):
            return self.options[int(typed) - 1]
        return None

    def fragments(self, width: int, room: int) -> Fragments:
        rows = max(1, min(ROWS, room - 2))
        first = min(max(0, self.index - rows // 2), max(0, len(self.options) - rows))
        out: Fragments = [("class:ask", fit(self.title, width)), ("", "\n")]
        for n in range(first, min(first + rows, len(self.options))):
            mark = "❯" if n == self.index else " "
            note = self.notes[n] if n < len(self.notes) and self.notes[n] else ""
            text = f"{mark} {n + 1:>2}. {self.options[n]}" + (f"  {note}" if note else "")
            out += [("class:ask" if n == self.index else "", fit(text, width)), ("", "\n")]
        keys = "↑↓ move · Enter picks · a number then Enter · Esc leaves"
        return [*out, ("class:keys", fit(keys, width)), ("", "\n")]
