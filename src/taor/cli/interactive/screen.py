"""Where finished output goes: rendered with rich to text (ANSI styles only when colour is on),
then written above the prompt, which prompt_toolkit draws again below it.

Colour is on when the output is a terminal and ``NO_COLOR`` is not set. The width is the
terminal's at the time of writing, so a resized terminal gets lines that fit.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
from collections.abc import Mapping
from typing import IO, ClassVar

from prompt_toolkit.application import get_app_or_none, run_in_terminal
from rich.console import Console, RenderableType
from rich.markdown import Heading, Markdown
from rich.text import Text

# Spaces rich pads lines with up to the width (a copied line would carry them), before any
# final style reset.
TRAILING = re.compile(r" +((?:\x1b\[0m)?)$", re.MULTILINE)


class LeftHeading(Heading):
    """Headings flush left, as in the terminal's own text (rich centres the first level)."""

    LEVEL_ALIGN: ClassVar = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class Screen:
    def __init__(self, out: IO[str] | None = None, environ: Mapping[str, str] | None = None):
        self.out = out or sys.stdout
        environ = os.environ if environ is None else environ
        self.terminal = self.out.isatty()  # else the prompt is drawn on stderr
        self.color = self.terminal and not environ.get("NO_COLOR")

    def width(self) -> int:
        return max(20, shutil.get_terminal_size((80, 24)).columns)

    def render(self, *items: RenderableType) -> str:
        """``items`` as text of the terminal's width (with styles when colour is on)."""
        buffer = io.StringIO()
        console = Console(
            file=buffer,
            width=self.width(),
            force_terminal=self.color,
            no_color=not self.color,
            color_system="auto" if self.color else None,
            highlight=False,
            emoji=False,
        )
        for item in items:
            if isinstance(item, Text) and item.no_wrap:  # rich wraps it unless told here
                console.print(item, no_wrap=True, overflow=item.overflow or "ellipsis")
            else:
                console.print(item)
        return TRAILING.sub(r"\1", buffer.getvalue())

    def print(self, *items: RenderableType) -> None:
        self.write(self.render(*items))

    def line(self, text: str, style: str = "") -> None:
        self.print(Text(text, style=style))

    def markdown(self, text: str, *, gap: bool = False) -> None:
        """``text`` rendered as markdown; ``gap``: a blank line after it (between blocks).
        rich puts blank lines around a list or a code block; blocks come one at a time, so
        those would double the gap."""
        rendered = self.render(markdown(text)).strip("\n") + "\n"
        self.write(rendered + ("\n" if gap else ""))

    def write(self, text: str) -> None:
        """Above the prompt while one is shown (prompt_toolkit erases it, then draws it again);
        straight out otherwise. Writes keep their order."""
        if not text:
            return
        app = get_app_or_none()
        if app is not None and app.is_running:
            run_in_terminal(lambda: self._out(text), in_executor=False)
        else:
            self._out(text)

    def _out(self, text: str) -> None:
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            pass


class TerminalMarkdown(Markdown):
    elements: ClassVar = {**Markdown.elements, "heading_open": LeftHeading}


def markdown(text: str) -> Markdown:
    return TerminalMarkdown(text, hyperlinks=False, code_theme="ansi_dark")
