"""Ctrl-C at any moment of ``taor -p``'s start (imports, settings, connecting) or of its run
exits 130 with no traceback. (A SIGINT within the interpreter's own start and the import of
the command's entry point, before any of taor's code runs, is Python's to report. The delays
count from the moment that import is done, which the process itself reports through Python's
import-time profile on stderr, so that a busy machine cannot move a delay into it.)"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, Reply

from .support import TAOR, environ, local

IMPORT_PROFILE = "import time:"


def wait_for_entry_point(proc: subprocess.Popen[str]) -> None:
    """Read the import profile until ``taor.cli`` (the entry point's module) is imported."""
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith(IMPORT_PROFILE) and line.rstrip().endswith("| taor.cli"):
            return
    pytest.fail("the process ended before it imported taor.cli")


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.65, 0.9, 1.4])
def test_sigint_while_starting_exits_130_quietly(
    tmp_path: Path, server: FakeProviderServer, delay: float
) -> None:
    server.push(Reply(text="slow", delay=10))
    proc = subprocess.Popen(
        [TAOR, "-p", "hi", *local(server)], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={**environ(tmp_path), "PYTHONPROFILEIMPORTTIME": "1"},
    )  # fmt: skip
    wait_for_entry_point(proc)
    # The handler is set in ``main``, a few statements after the import; 10 ms covers them.
    time.sleep(max(delay, 0.01))
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=60)
    errors = "".join(line for line in rest.splitlines(True) if not line.startswith(IMPORT_PROFILE))
    assert (proc.returncode, errors) == (130, ""), errors[-2000:]
