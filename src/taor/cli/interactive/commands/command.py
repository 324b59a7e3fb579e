"""What a local command is: its name, what it runs, its help line, its arguments."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

Run = Callable[["Repl", str], Awaitable[None]]


@dataclass(frozen=True, kw_only=True, slots=True)
class Command:
    name: str
    run: Run
    help: str
    arguments: str = ""
    choices: tuple[str, ...] = ()  # what the completer offers after the name
    idle_only: bool = False  # refused while the agent works
