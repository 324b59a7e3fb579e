"""The first fifteen tasks, as they were when the suite had only them (prompts and files
unchanged, so that older figures stay comparable)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from .base import Task, passes, prints, read, replace, run, write

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


def _solve_cube(d: Path) -> str:
    write(d, "mathx.py", read(d, "mathx.py") + "\n\ndef cube(x):\n    return x ** 3\n")
    replace(d, "test_mathx.py", "import square", "import cube, square")
    write(
        d,
        "test_mathx.py",
        read(d, "test_mathx.py")
        + ("\n    def test_cube(self):\n        self.assertEqual(cube(3), 27)\n"),
    )
    return "done"


def _move(d: Path, name: str, folder: str) -> str:
    (d / folder).mkdir(exist_ok=True)
    shutil.move(d / name, d / folder / name)
    return "moved"


TASKS: tuple[Task, ...] = (
    Task(
        name="create_script",
        kind="script",
        prompt="Create hello.py that prints Hello, world! and run it.",
        check=lambda d, _: prints(d, "Hello, world!", "hello.py"),
        solve=lambda d: write(d, "hello.py", "print('Hello, world!')\n") or "Hello, world!",
    ),
    Task(
        name="answer_from_file",
        kind="question",
        prompt="What port does config.ini set? Answer with the number.",
        files={"config.ini": "[server]\nhost = 0.0.0.0\nport = 8123\nworkers = 4\n"},
        check=lambda d, answer: "8123" in answer,
        solve=lambda d: "8123",
    ),
    Task(
        name="change_config",
        kind="edit",
        prompt="In settings.json, change port to 9000. Keep the other settings.",
        files={"settings.json": '{\n  "debug": true,\n  "port": 8000,\n  "name": "shop"\n}\n'},
        check=_settings_ok,
        solve=lambda d: replace(d, "settings.json", "8000", "9000") or "done",
    ),
    Task(
        name="delete_files",
        kind="files",
        prompt="Delete the .log files in this directory. Keep the other files.",
        files={"a.log": "x\n", "b.log": "y\n", "keep.txt": "keep me\n"},
        check=lambda d, _: not list(d.glob("*.log")) and read(d, "keep.txt") == "keep me\n",
        solve=lambda d: [p.unlink() for p in d.glob("*.log")] and "deleted",
    ),
    Task(
        name="move_file",
        kind="files",
        prompt="Move notes.txt into a new directory named docs.",
        files={"notes.txt": "buy milk\n"},
        check=lambda d, _: (
            read(d, "docs/notes.txt") == "buy milk\n" and not (d / "notes.txt").exists()
        ),
        solve=lambda d: _move(d, "notes.txt", "docs"),
    ),
    Task(
        name="rename_function",
        kind="rename",
        prompt="Rename the function add_numbers to add, in util.py and in main.py.",
        files={
            "util.py": "def add_numbers(a, b):\n    return a + b\n",
            "main.py": "from util import add_numbers\n\nprint(add_numbers(2, 3))\n",
        },
        check=_renamed,
        solve=lambda d: (
            [replace(d, f, "add_numbers", "add") for f in ("util.py", "main.py")] and "done"
        ),
    ),
    Task(
        name="add_function_and_test",
        kind="edit",
        prompt="Add a function cube(x) that returns x to the power 3 to mathx.py, and a test "
        "for it to test_mathx.py.",
        files={
            "mathx.py": "def square(x):\n    return x * x\n",
            "test_mathx.py": "import unittest\n\nfrom mathx import square\n\n\n"
            "class MathTest(unittest.TestCase):\n    def test_square(self):\n"
            "        self.assertEqual(square(4), 16)\n",
        },
        check=_cube,
        solve=_solve_cube,
    ),
    Task(
        name="find_definition",
        kind="find",
        prompt="Which file defines the function parse_date? Answer with the file name.",
        files={
            "app.py": "from helpers import parse_date\n\nprint(parse_date('2024-01-02'))\n",
            "helpers.py": "from dates import parse_date\n\n__all__ = ['parse_date']\n",
            "dates.py": "import datetime\n\n\ndef parse_date(text):\n"
            "    return datetime.date.fromisoformat(text)\n",
        },
        check=lambda d, answer: "dates.py" in answer,
        solve=lambda d: "dates.py",
    ),
    Task(
        name="fix_off_by_one",
        kind="fix",
        prompt="The tests fail: run python -m unittest, fix the bug in stats.py, then run the "
        "tests again.",
        files={"stats.py": STATS, "test_stats.py": TEST_STATS},
        check=lambda d, _: passes(d, "test_stats") and "def spread" in read(d, "stats.py"),
        solve=lambda d: replace(d, "stats.py", "len(values) - 1", "len(values)") or "fixed",
    ),
    Task(
        name="small_cli",
        kind="script",
        prompt="Write greet.py: a command-line script that takes a name as its argument and "
        "prints Hello, NAME! (for example python greet.py Ann prints Hello, Ann!).",
        check=lambda d, _: prints(d, "Hello, Bob!", "greet.py", "Bob"),
        solve=lambda d: (
            write(d, "greet.py", "import sys\nprint(f'Hello, {sys.argv[1]}!')\n") or "done"
        ),
    ),
    Task(
        name="report_output",
        kind="question",
        prompt="Run python version.py and tell me what it prints.",
        files={"version.py": "print('build', 4000 + 711)\n"},
        check=lambda d, answer: "4711" in answer,
        solve=lambda d: "build 4711",
    ),
    Task(
        name="count_lines",
        kind="question",
        prompt="How many lines does data.csv have? Answer with the number.",
        files={"data.csv": "".join(f"{i},item{i}\n" for i in range(7))},
        check=lambda d, answer: re.search(r"\b7\b", answer) is not None,
        solve=lambda d: "7",
    ),
    Task(
        name="replace_word",
        kind="edit",
        prompt="In greeting.txt, replace the word Hi with Hello.",
        files={"greeting.txt": "Hi there!\nHave a nice day.\n"},
        check=lambda d, _: read(d, "greeting.txt") == "Hello there!\nHave a nice day.\n",
        solve=lambda d: replace(d, "greeting.txt", "Hi ", "Hello ") or "done",
    ),
    Task(
        name="add_requirement",
        kind="edit",
        prompt="Add requests to requirements.txt (one package per line).",
        files={"requirements.txt": "click\nrich\n"},
        check=_requirements,
        solve=lambda d: write(d, "requirements.txt", "click\nrich\nrequests\n") or "done",
    ),
    Task(
        name="fix_failing_test",
        kind="fix",
        prompt="The test in test_parity.py fails. Fix parity.py so that it passes.",
        files={
            "parity.py": "def is_even(n):\n    return n % 2 == 1\n",
            "test_parity.py": "import unittest\n\nfrom parity import is_even\n\n\n"
            "class ParityTest(unittest.TestCase):\n    def test_even(self):\n"
            "        self.assertTrue(is_even(4))\n        self.assertFalse(is_even(3))\n",
        },
        check=lambda d, _: passes(d, "test_parity"),
        solve=lambda d: replace(d, "parity.py", "== 1", "== 0") or "fixed",
    ),
)
