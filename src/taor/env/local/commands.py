"""The commands of one ``LocalEnvironment``: those running, and the process groups they left.

A command's process group may outlive it: a background child that redirected its output (a dev
server started so that a page can be screenshot) keeps running after bash exits, by design.
It must not outlive the environment: ``end_all`` cancels the commands still running (their
groups are killed by ``run_command``), terminates the processes ``spawn`` started, then ends the groups of earlier commands that still have
a running member (SIGTERM, SIGKILL 2 s later). Groups whose members are all gone are forgotten
after each command, so a group id the kernel later reuses for another process is not kept;
a group whose id names a live process again is not ours any more (our leader, bash, was
reaped) and is left alone.

Process groups do not catch everything: a command's daemon may call ``setsid`` or fork twice.
Every command therefore carries the environment's id in its environment (``taor.env.reaper``),
``end_all`` finally ends every process that still carries it, and a watchdog process
(``taor.env.watchdog``) does the same if taor dies before ``end_all`` runs.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from taor.env import reaper
from taor.env.base import CommandResult
from taor.env.process import run_command
from taor.env.process_group import end_groups, group_exists
from taor.env.spawned import SpawnedProcess, spawn_process
from taor.env.watchdog import Watchdog


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Commands:
    """Runs commands through ``run_command`` and remembers their tasks and process groups."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._groups: set[int] = set()
        self._spawned: list[SpawnedProcess] = []
        self.id = uuid.uuid4().hex
        self._watchdog = Watchdog(self.id)

    async def run(self, command: str, **options: Any) -> CommandResult:
        """``run_command(command, **options)``, tracked until ``end_all``."""
        self._watchdog.ensure()
        given = options.get("env")  # {} (the "none" policy) is an empty environment, not a default
        options["env"] = {**(os.environ if given is None else given), reaper.MARKER: self.id}
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            return await run_command(command, on_start=self._groups.add, **options)
        finally:
            if task is not None:
                self._tasks.discard(task)
            self._forget_empty_groups()

    async def spawn(
        self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], prefix: Sequence[str]
    ) -> SpawnedProcess:
        """A long-lived process (``spawn_process``), terminated by ``end_all`` at the latest."""
        self._watchdog.ensure()
        environ = {**env, reaper.MARKER: self.id}
        self._spawned = [p for p in self._spawned if p.returncode is None]
        spawned = await spawn_process(argv, cwd=cwd, env=environ, prefix=prefix)
        self._spawned.append(spawned)
        return spawned

    def _forget_empty_groups(self) -> None:
        self._groups.difference_update([g for g in self._groups if not group_exists(g)])

    async def end_all(self) -> None:
        """Cancel the running commands, end the groups that outlived theirs, then every other
        process that carries the environment's id."""
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        spawned, self._spawned = self._spawned, []
        await asyncio.gather(*(p.terminate() for p in spawned), return_exceptions=True)
        lingering = [g for g in self._groups if not _pid_exists(g)]  # leader gone: not running
        self._groups.difference_update(lingering)
        await end_groups(lingering)
        await asyncio.to_thread(reaper.end_all, self.id)  # what left its group (setsid, ...)
        self._watchdog.stop()
