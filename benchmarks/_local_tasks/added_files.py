"""Tasks added to widen the suite, on files: questions answered from what the files say,
finding where something is defined or used, and moving, deleting and tidying files."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from .base import Task, read, run, write

SHAPES = (
    "import math\n\n\ndef circle_area(r):\n    return math.pi * r * r\n\n\n"
    "def square_area(s):\n    return s * s\n\n\nclass Triangle:\n"
    "    def area(self, b, h):\n        return b * h / 2\n\n\n"
    "def describe(shape):\n    return f'a {shape}'\n"
)
CITIES = "city,population\nLyon,522000\nNantes,320000\nMarseille,873000\nNice,342000\n"
CLIENT = (
    "import urllib.request\n\nDEFAULT_RETRIES = 3\n\n\n"
    "def fetch(url, retries=DEFAULT_RETRIES, timeout=12.5):\n"
    "    return urllib.request.urlopen(url, timeout=timeout).read()\n"
)
TEST_CALC = (
    "import unittest\n\n\nclass CalcTest(unittest.TestCase):\n"
    "    def test_add(self):\n        pass\n\n    def test_sub(self):\n        pass\n\n"
    "    def helper(self):\n        pass\n\n    def test_mul(self):\n        pass\n\n"
    "    def test_div(self):\n        pass\n"
)


def _number(answer: str, expected: int) -> bool:
    return re.search(rf"(?<![\d.]){expected}(?![\d.])", answer) is not None


def _moved_all(d: Path, _: str) -> bool:
    names = ("a.txt", "b.txt", "c.txt")
    return all(read(d, f"archive/{n}") == f"{n}\n" for n in names) and not any(
        (d / n).exists() for n in names
    )


def _move_all(d: Path, names: tuple[str, ...], folder: str) -> str:
    (d / folder).mkdir(exist_ok=True)
    for name in names:
        shutil.move(d / name, d / folder / name)
    return "moved"


def _tests_moved(d: Path, _: str) -> bool:
    names = ("test_one.py", "test_two.py", "test_three.py")
    return (
        all((d / "tests" / n).is_file() for n in names)
        and not any((d / n).exists() for n in names)
        and read(d, "app.py") == "print('app')\n"
    )


def _tmp_deleted(d: Path, _: str) -> bool:
    left = {p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file()}
    return (
        not any(name.endswith(".tmp") for name in left)
        and {"build/out.txt", "build/sub/keep.cfg", "main.py"} <= left
    )


def _delete_tmp(d: Path) -> str:
    for path in d.rglob("*.tmp"):
        path.unlink()
    return "deleted"


def _function_removed(d: Path, _: str) -> bool:
    text = read(d, "tools.py")
    probe = "from tools import slug, words; assert slug('A B') == 'a-b' and words('a b') == 2"
    return "old_helper" not in text and run(d, "-c", probe).returncode == 0


def _sorted_names(d: Path, _: str) -> bool:
    return read(d, "names.txt").split() == ["Ada", "Grace", "Linus", "Margaret", "Tim"]


def _gitignore(d: Path, _: str) -> bool:
    lines = {line.strip() for line in read(d, ".gitignore").splitlines()}
    return {"__pycache__/", "*.log", ".venv/"} <= lines


TASKS: tuple[Task, ...] = (
    Task(
        name="count_functions",
        kind="question",
        prompt="How many top-level functions does shapes.py define? Answer with the number.",
        files={"shapes.py": SHAPES},
        check=lambda d, answer: _number(answer, 3),
        solve=lambda d: "3",
    ),
    Task(
        name="pinned_version",
        kind="question",
        prompt="Which version of flask does requirements.txt pin? Answer with the version.",
        files={"requirements.txt": "click==8.1.7\nflask==2.3.3\njinja2>=3.1\n"},
        check=lambda d, answer: "2.3.3" in answer,
        solve=lambda d: "2.3.3",
    ),
    Task(
        name="largest_city",
        kind="question",
        prompt="Which city in cities.csv has the largest population? Answer with its name.",
        files={"cities.csv": CITIES},
        check=lambda d, answer: "Marseille" in answer and "Lyon" not in answer,
        solve=lambda d: "Marseille",
    ),
    Task(
        name="default_timeout",
        kind="question",
        prompt="What is the default timeout of fetch() in client.py? Answer with the number.",
        files={"client.py": CLIENT},
        check=lambda d, answer: "12.5" in answer,
        solve=lambda d: "12.5",
    ),
    Task(
        name="count_tests",
        kind="question",
        prompt="How many test methods does test_calc.py have? Answer with the number.",
        files={"test_calc.py": TEST_CALC},
        check=lambda d, answer: _number(answer, 4),
        solve=lambda d: "4",
    ),
    Task(
        name="env_variable",
        kind="question",
        prompt="Which environment variable does settings.py read the database URL from?",
        files={
            "settings.py": "import os\n\nDEBUG = os.environ.get('APP_DEBUG') == '1'\n"
            "DATABASE = os.environ.get('SHOP_DB_DSN', 'sqlite:///shop.db')\n"
        },
        check=lambda d, answer: "SHOP_DB_DSN" in answer,
        solve=lambda d: "SHOP_DB_DSN",
    ),
    Task(
        name="find_class",
        kind="find",
        prompt="Which file defines the class Invoice? Answer with its path.",
        files={
            "main.py": "from billing import Invoice\n\nprint(Invoice(3).total())\n",
            "billing/__init__.py": "from billing.documents import Invoice\n",
            "billing/documents.py": "class Invoice:\n    def __init__(self, n):\n"
            "        self.n = n\n\n    def total(self):\n        return self.n * 10\n",
            "billing/invoice_notes.md": "Invoices are numbered from 1.\n",
        },
        check=lambda d, answer: "documents.py" in answer,
        solve=lambda d: "billing/documents.py",
    ),
    Task(
        name="find_constant",
        kind="find",
        prompt="In which file is API_VERSION set, and to what value?",
        files={
            "app.py": "from settings import API_VERSION\n\nprint(API_VERSION)\n",
            "settings.py": "from defaults import *  # noqa\n\nTIMEOUT = 5\n",
            "defaults.py": "API_VERSION = 'v7'\nRETRIES = 2\n",
        },
        check=lambda d, answer: "defaults.py" in answer and "v7" in answer,
        solve=lambda d: "defaults.py sets it to 'v7'",
    ),
    Task(
        name="find_caller",
        kind="find",
        prompt="Which file calls the function send_email? Answer with the file name.",
        files={
            "mail.py": "def send_email(to, text):\n    print('to', to, text)\n",
            "signup.py": "def register(user):\n    return {'user': user}\n",
            "orders.py": "from mail import send_email\n\n\ndef confirm(order):\n"
            "    send_email(order['email'], 'thanks')\n",
        },
        check=lambda d, answer: "orders.py" in answer and "signup.py" not in answer,
        solve=lambda d: "orders.py",
    ),
    Task(
        name="move_three",
        kind="files",
        prompt="Move a.txt, b.txt and c.txt into a new folder named archive.",
        files={"a.txt": "a.txt\n", "b.txt": "b.txt\n", "c.txt": "c.txt\n", "d.md": "stay\n"},
        check=_moved_all,
        solve=lambda d: _move_all(d, ("a.txt", "b.txt", "c.txt"), "archive"),
    ),
    Task(
        name="move_tests",
        kind="files",
        prompt="Move every test_*.py file into a folder named tests.",
        files={
            "app.py": "print('app')\n",
            "test_one.py": "# one\n",
            "test_two.py": "# two\n",
            "test_three.py": "# three\n",
        },
        check=_tests_moved,
        solve=lambda d: _move_all(d, ("test_one.py", "test_two.py", "test_three.py"), "tests"),
    ),
    Task(
        name="delete_nested_tmp",
        kind="files",
        prompt="Delete every .tmp file in this project, in all folders. Keep everything else.",
        files={
            "main.py": "print(1)\n",
            "cache.tmp": "x\n",
            "build/out.txt": "out\n",
            "build/a.tmp": "x\n",
            "build/sub/b.tmp": "x\n",
            "build/sub/keep.cfg": "k=1\n",
        },
        check=_tmp_deleted,
        solve=_delete_tmp,
    ),
    Task(
        name="remove_function",
        kind="edit",
        prompt="Remove the unused function old_helper from tools.py.",
        files={
            "tools.py": "def slug(text):\n    return '-'.join(text.lower().split())\n\n\n"
            "def old_helper(x):\n    return x * 42\n\n\n"
            "def words(text):\n    return len(text.split())\n"
        },
        check=_function_removed,
        solve=lambda d: (
            write(
                d,
                "tools.py",
                (
                    "def slug(text):\n    return '-'.join(text.lower().split())\n\n\n"
                    "def words(text):\n    return len(text.split())\n"
                ),
            )
            or "done"
        ),
    ),
    Task(
        name="sort_names",
        kind="edit",
        prompt="Sort the lines of names.txt alphabetically.",
        files={"names.txt": "Linus\nGrace\nTim\nAda\nMargaret\n"},
        check=_sorted_names,
        solve=lambda d: write(d, "names.txt", "Ada\nGrace\nLinus\nMargaret\nTim\n") or "done",
    ),
    Task(
        name="extend_gitignore",
        kind="edit",
        prompt="Add __pycache__/ and *.log to .gitignore, keeping what is there.",
        files={".gitignore": ".venv/\n"},
        check=_gitignore,
        solve=lambda d: write(d, ".gitignore", ".venv/\n__pycache__/\n*.log\n") or "done",
    ),
)
