"""Which files a tool call may change, and the watch kept around it while it runs.

- ``write_file`` and ``edit_file`` change their ``path``; ``apply_patch`` every path its patch
  adds, deletes, updates or moves to: those files are saved before the call and looked at
  after it.
- ``shell`` (and any other tool that is not read-only, but the subagent tools, whose children
  record their own changes) may change anything: a ``CommandWatch`` compares the workspace
  before and after it. That needs an environment whose commands run the machine's programs
  (git, find); elsewhere the turn gets a note that such changes are not tracked.

Arguments are read by taor's names (``executor_view``), so every profile's tools are covered. A
watch never fails a call: a problem while saving becomes a note on the turn.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from taor.agent.checkpoints.commands import CommandWatch
from taor.agent.checkpoints.log import CheckpointLog, Watch
from taor.agent.policy.subjects import patch_paths
from taor.env.base import Environment, capabilities

__all__ = ["Watch", "watch_for"]

FILE_TOOLS = frozenset({"write_file", "edit_file"})
UNWATCHED = frozenset({"spawn_agent", "send_input", "wait", "close_agent"})
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
    checkpoints: CheckpointLog,
    name: str,
    arguments: Mapping[str, Any],
    *,
    caller: Environment,
) -> Watch:
    """The watch for one call of a tool that is not read-only (``caller``: the environment of
    the session making it)."""
    if name in UNWATCHED or not checkpoints.turn:
        return Watch()
    cwd = caller.working_directory()
    if name in FILE_TOOLS or name == "apply_patch":
        paths = _paths(name, arguments)
        return Guarded(
            FileWatch(checkpoints, [checkpoints.key(p, cwd) for p in paths]), checkpoints
        )
    if not capabilities(checkpoints.environment).host_programs:
        checkpoints.note(NOT_TRACKED)
        return Watch()
    command = str(arguments.get("command") or name)
    return Guarded(CommandWatch(checkpoints, command), checkpoints)


def _paths(name: str, arguments: Mapping[str, Any]) -> list[str]:
    if name == "apply_patch":
        patch = arguments.get("patch")
        return patch_paths(patch) if isinstance(patch, str) else []
    path = arguments.get("path")
    return [path] if isinstance(path, str) and path else []
