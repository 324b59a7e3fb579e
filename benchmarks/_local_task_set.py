"""The small tasks of ``local_tasks.py``: files to start from, a prompt, and a check of the
resulting files or the final answer (no model judges another)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Check = Callable[[Path, str], bool]

STATS = '''"""Small statistics helpers."""


def mean(values):
    """The arithmetic mean of a non-empty list of numbers."""
    return sum(values) / (len(values) - 1)


def spread(values):
    """The difference between the largest and the smallest value."""
    return max(values) - min(values)
'''
TEST_STATS = """import unittest

from stats import mean, spread


class StatsTest(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([2, 4, 6]), 4)

    def test_spread(self):
        self.assertEqual(spread([3, 9, 4]), 6)


if __name__ == "__main__":
    unittest.main()
"""


@dataclass(frozen=True, kw_only=True)
class Task:
    name: str
    prompt: str
    check: Check
    files: dict[str, str] = field(default_factory=dict)


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


def _settings_ok(d: Path, _: str) -> bool:
    try:
        data = json.loads(read(d, "settings.json"))
    except ValueError:
        return False
    return data == {"debug": True, "port": 9000, "name": "shop"}


def _renamed(d: Path, _: str) -> bool:
    text = read(d, "util.py") + read(d, "main.py")
    return "add_numbers" not in text and "def add(" in text and prints(d, "5", "main.py")


def _cube(d: Path, _: str) -> bool:
    code = "from mathx import cube, square; assert cube(3) == 27 and square(4) == 16"
    return (
        run(d, "-c", code).returncode == 0
        and "cube" in read(d, "test_mathx.py")
        and (passes(d, "test_mathx"))
    )


def _requirements(d: Path, _: str) -> bool:
    lines = [line.strip() for line in read(d, "requirements.txt").splitlines() if line.strip()]
    return sorted(lines) == ["click", "requests", "rich"]


TASKS: tuple[Task, ...] = (
    Task(
        name="create_script",
        prompt="Create hello.py that prints Hello, world! and run it.",
        check=lambda d, _: prints(d, "Hello, world!", "hello.py"),
    ),
    Task(
        name="answer_from_file",
        prompt="What port does config.ini set? Answer with the number.",
        files={"config.ini": "[server]\nhost = 0.0.0.0\nport = 8123\nworkers = 4\n"},
        check=lambda d, answer: "8123" in answer,
    ),
    Task(
        name="change_config",
        prompt="In settings.json, change port to 9000. Keep the other settings.",
        files={"settings.json": '{\n  "debug": true,\n  "port": 8000,\n  "name": "shop"\n}\n'},
        check=_settings_ok,
    ),
    Task(
        name="delete_files",
        prompt="Delete the .log files in this directory. Keep the other files.",
        files={"a.log": "x\n", "b.log": "y\n", "keep.txt": "keep me\n"},
        check=lambda d, _: not list(d.glob("*.log")) and read(d, "keep.txt") == "keep me\n",
    ),
    Task(
        name="move_file",
        prompt="Move notes.txt into a new directory named docs.",
        files={"notes.txt": "buy milk\n"},
        check=lambda d, _: (
            read(d, "docs/notes.txt") == "buy milk\n" and not (d / "notes.txt").exists()
        ),
    ),
    Task(
        name="rename_function",
        prompt="Rename the function add_numbers to add, in util.py and in main.py.",
        files={
            "util.py": "def add_numbers(a, b):\n    return a + b\n",
            "main.py": "from util import add_numbers\n\nprint(add_numbers(2, 3))\n",
        },
        check=_renamed,
    ),
    Task(
        name="add_function_and_test",
        prompt="Add a function cube(x) that returns x to the power 3 to mathx.py, and a test "
        "for it to test_mathx.py.",
        files={
            "mathx.py": "def square(x):\n    return x * x\n",
            "test_mathx.py": "import unittest\n\nfrom mathx import square\n\n\n"
            "class MathTest(unittest.TestCase):\n    def test_square(self):\n"
            "        self.assertEqual(square(4), 16)\n",
        },
        check=_cube,
    ),
    Task(
        name="find_definition",
        prompt="Which file defines the function parse_date? Answer with the file name.",
        files={
            "app.py": "from helpers import parse_date\n\nprint(parse_date('2024-01-02'))\n",
            "helpers.py": "from dates import parse_date\n\n__all__ = ['parse_date']\n",
            "dates.py": "import datetime\n\n\ndef parse_date(text):\n"
            "    return datetime.date.fromisoformat(text)\n",
        },
        check=lambda d, answer: "dates.py" in answer,
    ),
    Task(
        name="fix_off_by_one",
        prompt="The tests fail: run python -m unittest, fix the bug in stats.py, then run the "
        "tests again.",
        files={"stats.py": STATS, "test_stats.py": TEST_STATS},
        check=lambda d, _: passes(d, "test_stats") and "def spread" in read(d, "stats.py"),
    ),
    Task(
        name="small_cli",
        prompt="Write greet.py: a command-line script that takes a name as its argument and "
        "prints Hello, NAME! (for example python greet.py Ann prints Hello, Ann!).",
        check=lambda d, _: prints(d, "Hello, Bob!", "greet.py", "Bob"),
    ),
    Task(
        name="report_output",
        prompt="Run python version.py and tell me what it prints.",
        files={"version.py": "print('build', 4000 + 711)\n"},
        check=lambda d, answer: "4711" in answer,
    ),
    Task(
        name="count_lines",
        prompt="How many lines does data.csv have? Answer with the number.",
        files={"data.csv": "".join(f"{i},item{i}\n" for i in range(7))},
        check=lambda d, answer: re.search(r"\b7\b", answer) is not None,
    ),
    Task(
        name="replace_word",
        prompt="In greeting.txt, replace the word Hi with Hello.",
        files={"greeting.txt": "Hi there!\nHave a nice day.\n"},
        check=lambda d, _: read(d, "greeting.txt") == "Hello there!\nHave a nice day.\n",
    ),
    Task(
        name="add_requirement",
        prompt="Add requests to requirements.txt (one package per line).",
        files={"requirements.txt": "click\nrich\n"},
        check=_requirements,
    ),
    Task(
        name="fix_failing_test",
        prompt="The test in test_parity.py fails. Fix parity.py so that it passes.",
        files={
            "parity.py": "def is_even(n):\n    return n % 2 == 1\n",
            "test_parity.py": "import unittest\n\nfrom parity import is_even\n\n\n"
            "class ParityTest(unittest.TestCase):\n    def test_even(self):\n"
            "        self.assertTrue(is_even(4))\n        self.assertFalse(is_even(3))\n",
        },
        check=lambda d, _: passes(d, "test_parity"),
    ),
)
