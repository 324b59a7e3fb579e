"""What a local command is: its name, what it runs, its help line, its arguments."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from taor._records import frozen

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

Run = Callable[["Repl", str], Awaitable[None]]


@frozen
class Command:
    name: str
    run: Run
    help: str
    arguments: str = ""
    choices: tuple[str, ...] = ()  # what the completer offers after the name
    idle_only: bool = False  # refused while the agent works
