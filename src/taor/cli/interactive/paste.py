"""Large pastes stand in the prompt as one short placeholder (``[pasted text #1: 120 lines]``)
so the prompt stays readable and editable; the text goes in their place when the input is
sent. Small pastes are inserted as they are."""

from __future__ import annotations

import re

MAX_LINES = 8
MAX_CHARS = 2000
PLACEHOLDER = re.compile(r"\[pasted text #(\d+): [^\]]*\]")


class Pastes:
    def __init__(self) -> None:
        self.texts: dict[int, str] = {}

    def insert(self, data: str) -> str:
        """What to put in the prompt for pasted ``data`` (newlines normalized)."""
        text = data.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.count("\n") + 1
        if lines <= MAX_LINES and len(text) <= MAX_CHARS:
            return text
        number = len(self.texts) + 1
        self.texts[number] = text
        size = f"{lines} lines" if lines > 1 else f"{len(text)} characters"
        return f"[pasted text #{number}: {size}]"

    def expand(self, text: str) -> str:
        """``text`` with every placeholder replaced by its paste."""

        def paste(match: re.Match[str]) -> str:
            return self.texts.get(int(match.group(1)), match.group(0))

        return PLACEHOLDER.sub(paste, text)
