"""``/clear``, ``/session``, ``/checkpoint`` and ``/diff``: which session this is (a new one with
the same settings, another of this project's, a fork of this one), its file changes per input
(``Session.checkpoints``), going back to before an input (``Session.rewind``: the files, the
conversation as a fork, or both) and every change of the session as one diff."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING

from taor.cli.interactive.commands.command import Command
from taor.cli.interactive.views import Fold, diff_view
from taor.errors import TaorError
from taor.host import sessions

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

SESSION_USAGE = "/session list | resume ID | fork"


async def switch(repl: Repl, *, earlier: Path | None = None, fork: bool = False) -> None:
    """Another session in place of this one: new (``/clear``), ``earlier`` continued, or a
    fork of it; same model and settings, the rules allowed this session included."""
    from taor.host.compose.hooks import hooks_from
    from taor.host.compose.session import environment_from, open_session

    old = repl.session
    permissions = old.config.permissions
    allow = (*permissions.allow, *old.permission_rules().added)
    config = dataclasses.replace(
        old.config, permissions=dataclasses.replace(permissions, allow=allow)
    )
    environment = environment_from(repl.root, repl.settings)
    hooks = hooks_from(repl.settings.hooks, repl.root)
    await repl.replace(
        open_session(
            environment,
            old.model,
            config,
            earlier=earlier,
            fork=fork,
            hooks=hooks,
            profile=old.profile,
        )
    )


async def clear(repl: Repl, argument: str) -> None:
    await switch(repl)
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
            await switch(repl, earlier=sessions.by_id([repl.folder], rest.strip()))
        elif action == "fork":
            await switch(repl, earlier=sessions.by_id([repl.folder], repl.session.id), fork=True)
            repl.screen.line("forked: this is a copy; the original stays as it was", "dim")
        else:
            repl.screen.line(f"usage: {SESSION_USAGE}", "yellow")
    except TaorError as error:
        repl.screen.line(f"✗ {error}", "red")


def _list(repl: Repl) -> None:
    from taor.cli.sessions.table import table
    from taor.host.sessions.catalogue import rows

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
    words = argument.split()
    if words[:1] in ([], ["list"]):
        _checkpoints(repl)
    elif words[0] == "restore" and len(words) >= 2 and words[1].isdigit():
        flags = set(words[2:])
        if not flags <= {"--files-only", "--conversation-only"} or len(flags) > 1:
            repl.screen.line(f"usage: /checkpoint {CHECKPOINT.arguments}", "yellow")
            return
        await _restore(repl, int(words[1]), flags)
    else:
        repl.screen.line(f"usage: /checkpoint {CHECKPOINT.arguments}", "yellow")


def _checkpoints(repl: Repl) -> None:
    found = repl.session.checkpoints()
    if not found:
        repl.screen.line("no inputs yet, so no checkpoints", "dim")
        return
    lines = ["checkpoints, one per input (/checkpoint restore N goes back to before input N):"]
    for point in found:
        when = time.strftime("%H:%M", time.localtime(point.time))
        files = ", ".join(f"{c.state} {c.path}" for c in point.files) or "no file changes"
        lines.append(f"  {point.turn:>2}  {when}  {point.prompt[:40]:<40}  {files}")
        lines += [
            f"      ! {c.path} cannot be restored: {c.reason}"
            for c in point.files
            if not c.restorable
        ]
        lines += [f"      ! {note}" for note in point.notes]
    repl.screen.line("\n".join(lines))


async def _restore(repl: Repl, turn: int, flags: set[str]) -> None:
    files, conversation = "--conversation-only" not in flags, "--files-only" not in flags
    try:
        done = await repl.session.rewind(turn, files=files, conversation=conversation)
    except TaorError as error:
        repl.screen.line(f"✗ {error}", "red")
        return
    lines = [f"⟲ back to before input {turn}"]
    if files:
        lines.append(f"  files put back: {', '.join(done.restored) or 'none'}")
        if done.removed:
            lines.append(f"  files removed (created since): {', '.join(done.removed)}")
        lines += [f"  ! {c.path} not restored: {c.reason}" for c in done.unrestorable]
        lines += [f"  ! {note}" for note in done.notes]
    if conversation:
        lines.append(
            f"  the conversation goes on from before input {turn}: session {done.session_id[:12]},"
            f" a fork of {(done.forked_from or '')[:12]} (kept as it was)"
        )
    repl.screen.line("\n".join(lines), "cyan")
    repl.refresh_status()


async def diff(repl: Repl, argument: str) -> None:
    found = await repl.session.diff()
    if not found.files:
        repl.screen.line("no file changes in this session", "dim")
        return
    repl.screen.line(f"files changed this session: {', '.join(found.files)}", "bold")
    if found.diff:
        number = repl.folds.add(Fold(title="/diff", text=found.diff, diff=True))
        repl.screen.print(diff_view(found.diff, number, lines=None))
    for note in found.notes:
        repl.screen.line(f"  ! {note}", "yellow")


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
    arguments="list | restore N [--files-only | --conversation-only]",
    help="the files changed per input; put the files and the conversation back as before "
    "input N (or only the files, or only the conversation)",
    choices=("list", "restore"),
    idle_only=True,
)
DIFF = Command(name="diff", run=diff, help="every file change of this session")
