"""The watchdog of one environment: a small process (``taor.env.reaper`` run as a script) that
ends the environment's processes if taor goes away without cleaning up (a crash, a SIGKILL, a
worker killed mid-run), so no command's side effect lands after taor is gone.

It is started with the environment's first command and holds the read end of a pipe whose write
end only taor has (close-on-exec: commands never inherit it). Closing that end, as ``stop`` does
after a cleanup, the garbage collector does for an environment dropped without one, and the
kernel does when taor dies, tells it to end every process still marked with the environment's
id and exit. A short-lived ``sh`` starts it in the background in a session of its own, so it is
not taor's child (nothing to reap, no zombie) and a signal to taor's process group spares it.
"""

from __future__ import annotations

import os
import sys
import weakref

from taor.env import reaper

_SPAWN = '"$0" -S "$1" "$2" 0<&3 3<&- &'  # sh gives a background job /dev/null unless told


class Watchdog:
    def __init__(self, environment_id: str) -> None:
        self.environment_id = environment_id
        self._finalizer: weakref.finalize | None = None  # type: ignore[type-arg]
        self._supported = os.path.isdir("/proc") and hasattr(os, "posix_spawn")

    def ensure(self) -> None:
        """Start the watchdog unless it runs (Linux: it finds processes in /proc)."""
        if self._finalizer is None and self._supported:
            self._finalizer = weakref.finalize(self, os.close, self._start())

    def _start(self) -> int:
        """Start it; the write end of its pipe."""
        read_end, write_end = os.pipe()
        try:
            shell = os.posix_spawn(
                "/bin/sh",
                ["sh", "-c", _SPAWN, sys.executable, reaper.__file__, self.environment_id],
                dict(os.environ),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, read_end, 3),
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                ],
                setsid=True,
            )
            os.waitpid(shell, 0)  # sh exits at once, leaving the watchdog to init
        except BaseException:
            os.close(write_end)
            raise
        finally:
            os.close(read_end)
        return write_end

    def stop(self) -> None:
        """Close the pipe: the watchdog ends what still carries the id (nothing, after a
        cleanup) and exits. A later command starts a new one."""
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
