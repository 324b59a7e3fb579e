from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer

from ..support import local
from .terminal import Terminal

Start = Callable[..., Terminal]


@pytest.fixture
def start(tmp_path: Path, server: FakeProviderServer) -> Iterator[Start]:
    """Starts ``taor`` against the fake server in a tmux pane (in ``tmp_path/work``); every
    pane is gone at the end of the test."""
    started: list[Terminal] = []
    sockets = Path(tempfile.mkdtemp(prefix="taor-tmux-"))  # a unix socket's path must be short
    workspace = tmp_path / "work"
    workspace.mkdir()

    def run(*args: str, **options: object) -> Terminal:
        socket = sockets / f"{len(started)}.sock"
        terminal = Terminal([*local(server), *args], cwd=workspace, socket=socket, **options)  # type: ignore[arg-type]
        started.append(terminal)
        return terminal

    yield run
    for terminal in started:
        terminal.close()
    shutil.rmtree(sockets, ignore_errors=True)
