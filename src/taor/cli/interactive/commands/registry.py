"""The local commands: a line starting with ``/`` is one of these, run here, never sent to the
model. ``COMMANDS`` is the table (name, arguments, help, function); each function is small and
works on the session through the ``Repl``. An unknown command suggests the nearest one. The
person's own commands (``custom``) come after them, read again by ``/help``.
"""

from __future__ import annotations

import difflib
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from taor.cli.interactive.commands import custom as own
from taor.cli.interactive.commands import info, init, mcp, session, settings, voice
from taor.cli.interactive.commands.command import Command
from taor.cli.interactive.views import expanded

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl


async def show_help(repl: Repl, argument: str) -> None:
    reload(repl)
    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    for command in repl.commands.values():  # Text, not markup: ``[level]`` is an argument
        table.add_row(Text(f"/{command.name} {command.arguments}".rstrip()), Text(command.help))
    keys = (
        "Enter sends · Ctrl-J, Alt-Enter or \\ then Enter: new line · @path attaches a file · "
        "!command runs it here (its output goes with your next input) · typing while the agent "
        "works steers it · Esc or Ctrl-C interrupts (at an empty prompt, Ctrl-C twice exits) · "
        "Shift-Tab: next permission mode · Ctrl-D exits · Ctrl-O shows the last folded output "
        "whole (at a permission question, the whole diff of the edit) · your own commands: "
        ".taor/commands/NAME.md (trusted folders) or NAME.md in the commands folder of taor's "
        "config folder"
    )
    repl.screen.print(table)
    repl.screen.line(keys, "dim")


async def expand(repl: Repl, argument: str) -> None:
    number = int(argument) if argument.strip().isdigit() else None
    fold = repl.folds.get(number)
    if fold is None:
        repl.screen.line("nothing folded" + (f" numbered {number}" if number else " yet"), "dim")
        return
    repl.screen.print(expanded(fold))


async def leave(repl: Repl, argument: str) -> None:
    repl.exit()


COMMANDS: tuple[Command, ...] = (
    Command(name="help", run=show_help, help="the commands and keys"),
    init.INIT,
    settings.MODEL,
    settings.EFFORT,
    settings.PERMISSIONS,
    settings.COMPACT,
    session.CLEAR,
    info.COST,
    info.CONTEXT,
    session.SESSION,
    session.CHECKPOINT,
    session.DIFF,
    Command(name="expand", run=expand, arguments="[N]", help="show a folded output whole"),
    mcp.MCP,
    voice.VOICE,
    Command(name="exit", run=leave, help="close the session and quit (also Ctrl-D)"),
)
BY_NAME = {command.name: command for command in COMMANDS} | {"quit": COMMANDS[-1]}


def table(project: Path, config: Path, *, trusted: bool) -> dict[str, Command]:
    """The built-in commands, then the person's own (``custom``)."""
    found = own.load(own.folders(project, config, trusted=trusted), taken=BY_NAME)
    mine = {
        name: Command(
            name=name,
            run=partial(_run_custom, command),
            help=f"{command.description} ({command.origin})",
            arguments="[arguments]",
        )
        for name, command in found.items()
    }
    return {command.name: command for command in COMMANDS} | mine


def reload(repl: Repl) -> None:
    """The commands again, in place (the completer reads the same table): files added or
    changed since the start count."""
    fresh = table(repl.project, repl.config_dir, trusted=repl.settings.trusted)
    repl.commands.clear()
    repl.commands.update(fresh)


async def _run_custom(command: own.CustomCommand, repl: Repl, argument: str) -> None:
    prompt = command.prompt(argument)
    if not prompt:
        repl.screen.line(f"/{command.name} is empty: nothing to send", "yellow")
        return
    await repl.send(prompt)


def is_command(text: str) -> bool:
    """A local command: ``/name ...`` where name is known or is one word (``/etc/hosts is
    wrong`` is a prompt)."""
    if not text.startswith("/"):
        return False
    name = text[1:].split(maxsplit=1)[0] if text[1:].strip() else ""
    return name in BY_NAME or "/" not in name


async def run_command(repl: Repl, text: str) -> None:
    name, _, argument = text[1:].strip().partition(" ")
    command = repl.commands.get(name) or BY_NAME.get(name)
    if command is None and name.startswith(mcp.PROMPT_PREFIX):  # a server's prompt
        await mcp.run_prompt(repl, name, argument.strip())
        return
    if command is None:
        reload(repl)  # a file added since
        command = repl.commands.get(name)
    if command is None:
        near = difflib.get_close_matches(name, [*repl.commands, "quit"], n=1, cutoff=0.5)
        hint = f"; did you mean /{near[0]}?" if near else "; /help lists them"
        repl.screen.line(f"unknown command /{name}{hint}", "yellow")
        return
    if command.idle_only and repl.busy:
        repl.screen.line(
            f"/{name} waits for an idle session: let the agent finish, or Ctrl-C", "yellow"
        )
        return
    await command.run(repl, argument.strip())
