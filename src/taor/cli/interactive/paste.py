"""Large pastes stand in the prompt as one short placeholder (``[pasted text #1: 120 lines]``)
so the prompt stays readable and editable; the text goes in their place when the input is
sent. Small pastes are inserted as they are. A pasted path of an image file (what a terminal
pastes for a file dropped on it: maybe quoted, with ``\\ `` for spaces, or a ``file://`` URL)
becomes an ``@`` mention of it, so the image is attached."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

MAX_LINES = 8
MAX_CHARS = 2000
PLACEHOLDER = re.compile(r"\[pasted text #(\d+): [^\]]*\]")
IMAGES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def image_mention(data: str, root: Path) -> str | None:
    """``@path`` for pasted ``data`` that is the path of an image file (relative to ``root``
    when inside it), else None."""
    text = data.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    if text.startswith("file://"):
        text = unquote(text.removeprefix("file://"))
    text = text.replace("\\ ", " ")
    if not text or "\n" in text or not text.lower().endswith(IMAGES):
        return None
    path = Path(text) if Path(text).is_absolute() else root / text
    if not path.is_file():
        return None
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    return "@" + str(shown).replace(" ", "\\ ") + " "


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
