"""Ending a command's whole process group: SIGTERM, then SIGKILL after a grace period.

``end_groups`` does the same to groups known only by their id (the leader already reaped), such
as those of earlier commands whose background children still run. The group counts as gone
when no member is still running. On Linux zombies are ignored (read
from /proc): a killed grandchild reparented to an init that does not reap would otherwise keep
the group "alive" until the SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterable
from pathlib import Path

KILL_GRACE = 2.0
_POLL = 0.02
_PROC = Path("/proc")


def signal_group(pgid: int, sig: int) -> None:
    """Send ``sig`` to the group; a group already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _stat_fields(pid_dir: Path) -> list[str] | None:
    try:
        text = (pid_dir / "stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()  # state, ppid, pgrp, ...


def group_exists(pgid: int) -> bool:
    """True while the group has any member, zombies included (one system call, no /proc scan)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def group_alive(pgid: int) -> bool:
    """True while some member of the group is running (not a zombie)."""
    if not group_exists(pgid):
        return False
    if not _PROC.is_dir():
        return True
    for pid_dir in _PROC.iterdir():
        if pid_dir.name.isdigit():
            fields = _stat_fields(pid_dir)
            if fields and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
                return True
    return False


async def wait_exit(proc: asyncio.subprocess.Process, limit: float | None = None) -> bool:
    """Wait until ``proc`` itself has exited, whoever still holds its pipes; False when ``limit`` s pass first.

    (``Process.wait()`` also waits for the pipes to close, which a background child may delay.)
    """
    loop = asyncio.get_running_loop()
    deadline = None if limit is None else loop.time() + limit
    delay = 0.002
    while proc.returncode is None:
        remaining = None if deadline is None else deadline - loop.time()
        if remaining is not None and remaining <= 0:
            return False
        await asyncio.sleep(delay if remaining is None else min(delay, remaining))
        delay = min(delay * 2, _POLL)
    return True


async def kill_group(proc: asyncio.subprocess.Process, grace: float = KILL_GRACE) -> None:
    """SIGTERM the group led by ``proc``, SIGKILL whatever still runs ``grace`` s later."""
    pgid = proc.pid
    signal_group(pgid, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    while loop.time() < deadline:
        if proc.returncode is not None and not group_alive(pgid):
            return
        await asyncio.sleep(_POLL)
    signal_group(pgid, signal.SIGKILL)
    await wait_exit(proc)


async def end_groups(pgids: Iterable[int], grace: float = KILL_GRACE) -> None:
    """SIGTERM each group that still has a running member, SIGKILL those still running ``grace``
    s later, then wait (up to ``grace`` s more) until they are gone."""
    live = [pgid for pgid in pgids if group_alive(pgid)]
    for pgid in live:
        signal_group(pgid, signal.SIGTERM)
    live = await _until_gone(live, grace)
    for pgid in live:
        signal_group(pgid, signal.SIGKILL)
    await _until_gone(live, grace)


async def _until_gone(pgids: list[int], limit: float) -> list[int]:
    """Poll until no group of ``pgids`` is alive or ``limit`` s pass; the ones still alive."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while pgids and loop.time() < deadline:
        await asyncio.sleep(_POLL)
        pgids = [pgid for pgid in pgids if group_alive(pgid)]
    return pgids
