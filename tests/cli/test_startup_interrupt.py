"""Ctrl-C at any moment of ``taor -p``'s start (imports, settings, connecting) or of its run
exits 130 with no traceback. (A SIGINT within the interpreter's own start, before any of
taor's code runs, is Python's to report.)"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, Reply

from .support import TAOR, environ, local


@pytest.mark.parametrize("delay", [0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.75, 1.0, 1.5])
def test_sigint_while_starting_exits_130_quietly(
    tmp_path: Path, server: FakeProviderServer, delay: float
) -> None:
    server.push(Reply(text="slow", delay=10))
    proc = subprocess.Popen(
        [TAOR, "-p", "hi", *local(server)], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=environ(tmp_path),
    )  # fmt: skip
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, errors = proc.communicate(timeout=60)
    assert (proc.returncode, errors) == (130, ""), errors[-2000:]
