"""Finding and ending every process an environment's commands started, wherever it went.

Every command of a ``LocalEnvironment`` carries ``TAOR_ENVIRONMENT_ID=<the environment's id>``
in its environment, and so does everything it starts, since children inherit the environment:
a daemon that called ``setsid``, forked twice and closed its descriptors still carries it, where
process groups and sessions lose track. ``find`` lists those processes from ``/proc`` (Linux;
elsewhere it finds nothing and process groups are all that end commands). Only a process that
deliberately clears its environment (``env -i``) escapes it.

Run as a script (``python -S reaper.py ID``) this module is an environment's watchdog: it waits
until its stdin reaches end of file, which happens when taor closes the pipe or dies, even by
SIGKILL, and then ends every marked process (SIGTERM, SIGKILL after 2 s). It imports nothing but
the standard library, so it starts fast.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterable

MARKER = "TAOR_ENVIRONMENT_ID"
GRACE = 2.0
POLL = 0.02


def find(environment_id: str) -> list[int]:
    """The pids of the running processes whose environment carries ``environment_id``."""
    needle = f"{MARKER}={environment_id}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me, found = os.getpid(), []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                variables = f.read().split(b"\0")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in variables:  # a zombie's environment reads empty: only the running ones
            found.append(int(name))
    return found


def signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def end_all(environment_id: str, grace: float = GRACE) -> None:
    """SIGTERM every marked process, SIGKILL those still running ``grace`` s later."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = find(environment_id)
        if not pids:
            return
        signal_all(pids, sig)
        deadline = time.monotonic() + grace
        while find(environment_id) and time.monotonic() < deadline:
            time.sleep(POLL)


def _watch(environment_id: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C for taor is not the end of taor
    while sys.stdin.buffer.read(4096):
        pass  # nothing is ever written: end of file means taor closed the pipe or died
    end_all(environment_id)


if __name__ == "__main__":
    _watch(sys.argv[1])
