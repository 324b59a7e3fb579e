"""The input history: per project, kept where only the person can read it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from taor.cli.interactive.prompt import history, history_path


def test_the_history_file_and_its_folder_are_the_persons_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    before = os.umask(0o022)
    path = history_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("\n# 2026-01-01\n+an old line\n")
    path.chmod(0o644)  # as an earlier taor left it
    try:
        kept = history(tmp_path)
        kept.append_string("export TOKEN=s3cret")
    finally:
        os.umask(before)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(path.parent).st_mode & 0o777 == 0o700
    assert list(history(tmp_path).load_history_strings())[:2] == [
        "export TOKEN=s3cret",
        "an old line",
    ]
