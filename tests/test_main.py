"""``python -m taor`` is the ``taor`` command, run as a real subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.support import taor


def _module(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "taor", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_python_dash_m_taor_is_the_command(tmp_path: Path, flag: str) -> None:
    run = _module(flag, cwd=tmp_path)

    assert run.returncode == 0, run.stderr
    assert run.stdout == taor(flag, cwd=tmp_path).stdout
    assert run.stdout.startswith(("taor ", "usage: taor"))


def test_a_bad_flag_exits_with_the_commands_usage_error(tmp_path: Path) -> None:
    run = _module("--no-such-flag", cwd=tmp_path)

    assert run.returncode == taor("--no-such-flag", cwd=tmp_path).returncode != 0
    assert "Traceback" not in run.stderr


def test_the_repository_root_holds_no_wheel() -> None:
    root = Path(__file__).parents[1]

    assert sorted(p.name for p in root.glob("*.whl")) == []
