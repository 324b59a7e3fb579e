"""Which files a tool call may change, and the watch kept around it while it runs.

What a call may change is what its tool declares (``taor.tools.effects.Effects``):

- a call that may change files it does not name (``writes_elsewhere``: a command such as
  ``shell``'s, or any tool that declares nothing) gets a ``CommandWatch`` that compares the
  workspace before and after it. That needs an environment whose commands run the machine's
  programs (git, find); elsewhere the turn gets a note that such changes are not tracked.
- a call that names every file it writes (``writes``: write_file, edit_file, apply_patch) has
  those files saved before the call and looked at after it;
- a call that writes nothing itself (the subagent tools: children record their own changes)
  gets no watch.

A watch never fails a call: a problem while saving becomes a note on the turn.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from taor.agent.checkpoints.commands import CommandWatch
from taor.agent.checkpoints.log import CheckpointLog, Watch
from taor.env.base import Environment, capabilities
from taor.tools.effects import Effects

__all__ = ["Watch", "watch_for"]

NOT_TRACKED = "Changes made by commands are not tracked in this environment."

log = logging.getLogger("taor.checkpoints")


class FileWatch(Watch):
    def __init__(self, checkpoints: CheckpointLog, keys: list[str]) -> None:
        self.checkpoints, self.keys = checkpoints, keys

    async def start(self) -> None:
        await self.checkpoints.save_before(self.keys)

    async def finish(self) -> None:
        await self.checkpoints.save_after(self.keys)


class Guarded(Watch):
    """A watch whose failures (a full disk, a bug) become a note instead of failing the call."""

    def __init__(self, inner: Watch, checkpoints: CheckpointLog) -> None:
        self.inner, self.checkpoints = inner, checkpoints

    async def start(self) -> None:
        await self._guard(self.inner.start())

    async def finish(self) -> None:
        await self._guard(self.inner.finish())

    async def _guard(self, step: Any) -> None:
        try:
            await step
        except Exception as error:
            log.warning("checkpoint failed", exc_info=True)
            with contextlib.suppress(OSError):  # the disk may be full
                self.checkpoints.note(f"A checkpoint could not be saved: {error!r}.")


def watch_for(
    checkpoints: CheckpointLog, name: str, effects: Effects, *, caller: Environment
) -> Watch:
    """The watch for one call of a tool that is not read-only, with the ``effects`` its tool
    declares (``caller``: the environment of the session making it)."""
    if not checkpoints.turn:
        return Watch()
    if not effects.writes_elsewhere:
        if not effects.writes:
            return Watch()
        cwd = caller.working_directory()
        keys = [checkpoints.key(p, cwd) for p in effects.writes]
        return Guarded(FileWatch(checkpoints, keys), checkpoints)
    if not capabilities(checkpoints.environment).host_programs:
        checkpoints.note(NOT_TRACKED)
        return Watch()
    return Guarded(CommandWatch(checkpoints, effects.command or name), checkpoints)
