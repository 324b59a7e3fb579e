"""Completion at the prompt: local commands after a leading ``/`` (with their help), their
arguments where they have a fixed set, and file paths after ``@`` (relative to the workspace,
hidden files only when asked for with a leading dot; a space in a name is written ``\\ ``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from taor.cli.interactive.commands.command import Command

MENTION = re.compile(r"(?:^|(?<=[\s(\[{\"']))@((?:\\ |[^\s])*)$")
SKIPPED = frozenset({".git", "__pycache__", "node_modules", ".venv"})
LIMIT = 200  # entries offered at most


class PromptCompleter(Completer):
    def __init__(self, commands: Mapping[str, Command], root: Path) -> None:
        self.commands, self.root = commands, root

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and "\n" not in before:
            yield from self._command(before[1:])
            return
        found = MENTION.search(before)
        if found is not None:
            yield from self._paths(found.group(1))

    def _command(self, typed: str) -> Iterable[Completion]:
        name, space, argument = typed.partition(" ")
        if not space:
            for command in self.commands.values():
                if command.name.startswith(name):
                    yield Completion(
                        command.name, start_position=-len(name), display_meta=command.help
                    )
            return
        known = self.commands.get(name)
        if known is not None and " " not in argument:
            for choice in known.choices:
                if choice.startswith(argument):
                    yield Completion(choice, start_position=-len(argument))

    def _paths(self, typed: str) -> Iterable[Completion]:
        plain = typed.replace("\\ ", " ")
        folder, _, prefix = plain.rpartition("/")
        base = (self.root / folder) if folder else self.root
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            return
        offered = 0
        for entry in entries:
            if not entry.name.startswith(prefix) or entry.name in SKIPPED:
                continue
            if entry.name.startswith(".") and not prefix.startswith("."):
                continue
            name = entry.name + ("/" if entry.is_dir() else "")
            typed_name = prefix.replace(" ", "\\ ")
            yield Completion(
                name.replace(" ", "\\ "), start_position=-len(typed_name), display=name
            )
            offered += 1
            if offered >= LIMIT:
                return
