"""What a task is, and the checks its judges use: run a file, run its tests, read a file.

A task starts from a few files in a fresh directory; ``check(directory, answer)`` judges the
files and the final answer afterwards (no model judges another). ``solve`` is a reference
solution, used only to test that each check can pass and does not pass on the starting files.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Check = Callable[[Path, str], bool]
Solve = Callable[[Path], str]  # changes the files as a person would, returns the answer

KINDS = ("script", "question", "fix", "rename", "files", "find", "edit")


@dataclass(frozen=True, kw_only=True)
class Task:
    name: str
    kind: str
    prompt: str
    check: Check
    solve: Solve
    files: dict[str, str] = field(default_factory=dict)


def lay_out(task: Task, directory: Path) -> Path:
    """The files ``task`` starts from, written into ``directory`` (their folders made)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in task.files.items():
        write(directory, name, text)
    return directory


def run(directory: Path, *command: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, *command], cwd=directory, capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 1, "", "timeout")


def prints(directory: Path, expected: str, *command: str) -> bool:
    done = run(directory, *command)
    return done.returncode == 0 and done.stdout.strip() == expected


def passes(directory: Path, *command: str) -> bool:
    return run(directory, "-m", "unittest", *command).returncode == 0


def read(directory: Path, name: str) -> str:
    path = directory / name
    return path.read_text() if path.is_file() else ""


def write(directory: Path, name: str, text: str) -> None:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def replace(directory: Path, name: str, old: str, new: str) -> None:
    write(directory, name, read(directory, name).replace(old, new))


def unittest_file(module: str, names: str, body: str) -> str:
    """A test module: ``from MODULE import NAMES`` and one TestCase whose methods are BODY."""
    return (
        f"import unittest\n\nfrom {module} import {names}\n\n\n"
        f"class Test(unittest.TestCase):\n{body}\n\nif __name__ == '__main__':\n"
        "    unittest.main()\n"
    )
