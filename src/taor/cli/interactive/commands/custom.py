"""Commands of one's own: a Markdown file ``<name>.md`` in ``.taor/commands/`` of the project
(read only in a trusted folder: a repository's files act only once its folder is trusted) or in
``commands/`` of the user's config folder (``platformdirs.user_config_dir("taor")``) is the
command ``/<name>``. Its text is the prompt sent to the model, with the arguments put in:
``$ARGUMENTS`` is all of them, ``$1``, ``$2``... one each (words, quotes group them); a file
that uses none gets them after its text. An optional front matter gives the help line::

    ---
    description: review the staged changes
    ---
    Review the staged changes; focus on $ARGUMENTS.

A project's command wins over the user's of the same name; the built-in commands win over
both (a file cannot take ``/help`` away).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from pathlib import Path

from taor._records import frozen

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
NUMBERED = re.compile(r"\$(\d+)")


@frozen
class CustomCommand:
    name: str
    template: str
    description: str
    origin: str  # "project" or "user"

    def prompt(self, arguments: str) -> str:
        """The template with ``arguments`` put in."""
        words = _words(arguments)
        used = "$ARGUMENTS" in self.template or NUMBERED.search(self.template)
        text = self.template.replace("$ARGUMENTS", arguments)
        text = NUMBERED.sub(lambda m: _nth(words, int(m.group(1))), text)
        if arguments and not used:
            text = f"{text.rstrip()}\n\n{arguments}"
        return text.strip()


def load(
    folders: Iterable[tuple[Path, str]], *, taken: Iterable[str] = ()
) -> dict[str, CustomCommand]:
    """The commands in ``folders`` (each with its origin), the first folder's first, none named
    as one in ``taken``."""
    found: dict[str, CustomCommand] = {}
    skip = set(taken)
    for folder, origin in folders:
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            name = path.stem
            if name in skip or name in found or not NAME.match(name):
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            description, template = _front_matter(text)
            found[name] = CustomCommand(
                name=name,
                template=template,
                description=description or f"{origin} command ({path.name})",
                origin=origin,
            )
    return found


def folders(project: Path, config: Path, *, trusted: bool) -> list[tuple[Path, str]]:
    """Where commands are read from: the project's (when its folder is trusted), the user's."""
    user = (config / "commands", "user")
    return [(project / ".taor" / "commands", "project"), user] if trusted else [user]


def _front_matter(text: str) -> tuple[str, str]:
    """``(description, the rest)``; a file without front matter has no description."""
    if not text.startswith("---"):
        return "", text
    head, sep, rest = text[3:].partition("\n---")
    if not sep:
        return "", text
    description = ""
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() == "description":
            description = value.strip().strip("\"'")
    return description, rest.partition("\n")[2]


def _words(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:  # an unclosed quote: plain words
        return arguments.split()


def _nth(words: list[str], n: int) -> str:
    return words[n - 1] if 1 <= n <= len(words) else ""
