"""``/clear``, ``/session``, ``/checkpoint`` and ``/diff``: which session this is (a new one with
the same settings, another of this project's, a fork of this one) and its file changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taor.cli import sessions
from taor.cli.interactive.command import Command
from taor.errors import TaorError

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

SESSION_USAGE = "/session list | resume ID | fork"
CHECKPOINTS_MISSING = (
    "not available yet: this taor keeps no checkpoints of file changes "
    "(the change list and restore come with checkpoints)"
)


async def clear(repl: Repl, argument: str) -> None:
    await repl.switch()
    repl.screen.line("new session, same settings; the last one is kept (/session list)", "dim")


async def session(repl: Repl, argument: str) -> None:
    action, _, rest = argument.partition(" ")
    if action in ("resume", "fork") and repl.busy:
        repl.screen.line(f"/session {action} waits for an idle session: Ctrl-C first", "yellow")
        return
    try:
        if action in ("", "list"):
            _list(repl)
        elif action == "resume" and rest.strip():
            await repl.switch(earlier=sessions.by_id([repl.folder], rest.strip()))
        elif action == "fork":
            await repl.switch(earlier=sessions.by_id([repl.folder], repl.session.id), fork=True)
            repl.screen.line("forked: this is a copy; the original stays as it was", "dim")
        else:
            repl.screen.line(f"usage: {SESSION_USAGE}", "yellow")
    except TaorError as error:
        repl.screen.line(f"✗ {error}", "red")


def _list(repl: Repl) -> None:
    from taor.cli.sessions_table import rows, table

    found = rows(repl.folder)
    if not found:
        repl.screen.line("no sessions recorded in this project yet", "dim")
        return
    lines = table(found, repl.screen.width() - 2)
    current = repl.session.id[:12]
    marked = [("* " if line.startswith(current) else "  ") + line for line in lines]
    repl.screen.line("\n".join(marked))
    repl.screen.line("/session resume ID continues one (a prefix of its id will do)", "dim")


async def checkpoint(repl: Repl, argument: str) -> None:
    repl.screen.line(CHECKPOINTS_MISSING, "yellow")


async def diff(repl: Repl, argument: str) -> None:
    repl.screen.line(CHECKPOINTS_MISSING, "yellow")


CLEAR = Command(
    name="clear", run=clear, help="a new session with the same settings", idle_only=True
)
SESSION = Command(
    name="session",
    run=session,
    arguments="list | resume ID | fork",
    help="this project's sessions; continue one; fork this one",
    choices=("list", "resume", "fork"),
)
CHECKPOINT = Command(
    name="checkpoint",
    run=checkpoint,
    arguments="list | restore N",
    help="the files changed per input; put them (and the conversation) back as before input "
    "N; --files-only or --conversation-only",
    choices=("list", "restore"),
    idle_only=True,
)
DIFF = Command(name="diff", run=diff, help="every file change of this session")
