"""The commands of one ``LocalEnvironment``: those running, and the process groups they left.

A command's process group may outlive it: a background child that redirected its output (a dev
server started so that a page can be screenshot) keeps running after bash exits, by design.
It must not outlive the environment: ``end_all`` cancels the commands still running (their
groups are killed by ``run_command``), then ends the groups of earlier commands that still have
a running member (SIGTERM, SIGKILL 2 s later). Groups whose members are all gone are forgotten
after each command, so a group id the kernel later reuses for another process is not kept;
a group whose id names a live process again is not ours any more (our leader, bash, was
reaped) and is left alone.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from taor.env.base import CommandResult
from taor.env.process import run_command
from taor.env.process_group import end_groups, group_exists


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

    async def run(self, command: str, **options: Any) -> CommandResult:
        """``run_command(command, **options)``, tracked until ``end_all``."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            return await run_command(command, on_start=self._groups.add, **options)
        finally:
            if task is not None:
                self._tasks.discard(task)
            self._forget_empty_groups()

    def _forget_empty_groups(self) -> None:
        self._groups.difference_update([g for g in self._groups if not group_exists(g)])

    async def end_all(self) -> None:
        """Cancel the running commands, then end the groups that outlived theirs."""
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        lingering = [g for g in self._groups if not _pid_exists(g)]  # leader gone: not running
        self._groups.difference_update(lingering)
        await end_groups(lingering)
