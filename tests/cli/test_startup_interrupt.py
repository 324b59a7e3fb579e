"""Ctrl-C at any moment of ``taor -p``'s start (imports, settings, connecting) or of its run
exits 130 with no traceback. (A SIGINT within the interpreter's own start and the import of
the command's entry point, before any of taor's code runs, is Python's to report: the delays
count from the time that takes here and now, measured, so that a busy machine does not move
them into it.)"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, Reply

from .support import TAOR, environ, local


def entry_point_loaded() -> float:
    """Seconds a process takes here to start Python and import ``taor.cli`` (the longest of
    three), the time before which a SIGINT is Python's."""
    times = []
    for _ in range(3):
        start = time.monotonic()
        subprocess.run([sys.executable, "-c", "import taor.cli"], check=True)
        times.append(time.monotonic() - start)
    return max(times)


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.65, 0.9, 1.4])
def test_sigint_while_starting_exits_130_quietly(
    tmp_path: Path, server: FakeProviderServer, delay: float
) -> None:
    server.push(Reply(text="slow", delay=10))
    python_s = entry_point_loaded()
    proc = subprocess.Popen(
        [TAOR, "-p", "hi", *local(server)], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=environ(tmp_path),
    )  # fmt: skip
    time.sleep(python_s + delay)
    proc.send_signal(signal.SIGINT)
    _, errors = proc.communicate(timeout=60)
    assert (proc.returncode, errors) == (130, ""), errors[-2000:]
