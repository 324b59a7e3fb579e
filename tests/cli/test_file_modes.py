"""What the real ``taor`` command leaves under the user's directories (transcripts, checkpoints,
logs) only its owner can read: files 0600, folders 0700, whatever the umask."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from taor.cli.logs import close_log, open_log
from taor.testing import FakeProviderServer, text, tool_calls

from .support import TAOR, environ, home, local


def _run_with_umask(cwd: Path, server: FakeProviderServer, *args: str) -> dict:
    done = subprocess.run(
        [TAOR, *args, *local(server), "--permission-mode", "bypass", "--output-format", "json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=environ(cwd),
        umask=0o022,  # the usual one, which would leave files 0644 and folders 0755
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def _modes(top: Path) -> dict[str, int]:
    """Each path under ``top`` (itself included) and its permission bits."""
    found = {".": stat.S_IMODE(top.stat().st_mode)}
    for folder, dirs, files in os.walk(top):
        for name in (*dirs, *files):
            path = Path(folder) / name
            found[str(path.relative_to(top))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def test_transcripts_checkpoints_and_logs_are_private(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(
        tool_calls(("write_file", {"path": "a.txt", "content": "one\n"})),
        text("made a"),
        tool_calls(("write_file", {"path": "a.txt", "content": "two\n"})),
        text("changed a"),
    )
    first = _run_with_umask(tmp_path, server, "-p", "make a")
    _run_with_umask(tmp_path, server, "-p", "change a", "--resume", first["session_id"])

    data = _modes(home(tmp_path, "data") / "taor")
    state = _modes(home(tmp_path, "state") / "taor")
    assert any(name.endswith(".jsonl") for name in data)
    assert any(".checkpoints" in name for name in data)
    assert any(name.endswith("taor.log") for name in state)
    for top in (home(tmp_path, "data") / "taor", home(tmp_path, "state") / "taor"):
        for name, mode in _modes(top).items():
            expected = 0o700 if (top / name).is_dir() else 0o600
            assert mode == expected, f"{top / name} is {mode:o}, not {expected:o}"


def test_every_rotated_log_file_is_private_and_an_old_open_one_is_made_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = _old_log(tmp_path / "state" / "taor" / "log" / "taor.log")
    log = open_log("info", verbose=False)
    try:
        for n in range(3000):  # past 1 MB: the log rotates, and a new file is started
            log.info("line %d %s", n, "x" * 400)
    finally:
        close_log(log)

    modes = _modes(old.parent)
    assert {"taor.log", "taor.log.1"} <= set(modes)
    assert modes == {".": 0o700, **{name: 0o600 for name in modes if name != "."}}


def _old_log(path: Path) -> Path:
    """A log left by an earlier taor, with the umask's modes."""
    path.parent.mkdir(parents=True)
    path.parent.chmod(0o755)
    path.write_text("earlier\n")
    path.chmod(0o644)
    return path
