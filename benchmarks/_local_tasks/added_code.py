"""Tasks added to widen the suite, on code: scripts to write and run, bugs to fix so that a
given test passes, renames across files, and edits of code and settings."""

from __future__ import annotations

import ast
import datetime
import json
from pathlib import Path

from .base import Task, passes, prints, read, replace, run, unittest_file, write

FIZZ = "\n".join(
    "FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0 else "Buzz" if i % 5 == 0 else str(i)
    for i in range(1, 16)
)
PEOPLE = [{"name": "Ann", "age": 31}, {"name": "Bo", "age": 25}, {"name": "Cy", "age": 47}]
SALES = "region,amount\nnorth,120\nsouth,75\neast,310\nwest,5\n"
POEM = "roses are red\nviolets are blue\nsugar is sweet\n"


def _fizzbuzz(d: Path) -> str:
    body = (
        "for i in range(1, 16):\n"
        "    print('FizzBuzz' if i % 15 == 0 else 'Fizz' if i % 3 == 0 else 'Buzz' if i % 5 == 0"
        " else i)\n"
    )
    write(d, "fizzbuzz.py", body)
    return "done"


def _people_csv(d: Path, _: str) -> bool:
    lines = [line.strip() for line in read(d, "people.csv").strip().splitlines()]
    return lines == ["name,age", "Ann,31", "Bo,25", "Cy,47"]


def _convert(d: Path) -> str:
    write(
        d,
        "convert.py",
        (
            "import json\nrows = json.load(open('people.json'))\n"
            "with open('people.csv', 'w') as out:\n    out.write('name,age\\n')\n"
            "    for row in rows:\n        out.write(f\"{row['name']},{row['age']}\\n\")\n"
        ),
    )
    run(d, "convert.py")
    return "done"


def _word_count(d: Path, _: str) -> bool:
    write(d, "_probe.txt", "one two  three\nfour\n\nfive six\n")
    return prints(d, "6", "wc.py", "_probe.txt")


def _today(d: Path, _: str) -> bool:
    return prints(d, datetime.date.today().isoformat(), "today.py")


def _slug_test() -> str:
    return unittest_file(
        "text",
        "slugify",
        (
            "    def test_slug(self):\n"
            "        self.assertEqual(slugify('Hello World'), 'hello-world')\n"
            "        self.assertEqual(slugify('  Taor  Rocks '), 'taor-rocks')\n"
        ),
    )


def _safe_divide_fixed(d: Path) -> str:
    replace(d, "calc.py", "        return 0\n", "        raise ValueError('division by zero')\n")
    return "fixed"


def _class_renamed(d: Path, _: str) -> bool:
    text = "".join(read(d, name) for name in ("models.py", "service.py", "main.py"))
    return "Customer" not in text and "class Client" in text and prints(d, "Client Ann", "main.py")


def _constant_renamed(d: Path, _: str) -> bool:
    text = "".join(read(d, name) for name in ("config.py", "queue_.py", "main.py"))
    return "MAX_SIZE" not in text and "MAX_ITEMS = 10" in text and prints(d, "True", "main.py")


def _module_renamed(d: Path, _: str) -> bool:
    return (
        not (d / "helpers.py").exists()
        and "def double" in read(d, "utils.py")
        and "helpers" not in read(d, "main.py")
        and prints(d, "8", "main.py")
    )


def _rename_module(d: Path) -> str:
    (d / "helpers.py").rename(d / "utils.py")
    replace(d, "main.py", "helpers", "utils")
    return "done"


def _shout(d: Path, _: str) -> bool:
    return prints(d, "HELLO, ANN!", "greet.py", "Ann", "--shout") and prints(
        d, "Hello, Ann!", "greet.py", "Ann"
    )


def _greet_shout(d: Path) -> str:
    write(
        d,
        "greet.py",
        (
            "import argparse\n\nparser = argparse.ArgumentParser()\nparser.add_argument('name')\n"
            "parser.add_argument('--shout', action='store_true')\nargs = parser.parse_args()\n"
            "text = f'Hello, {args.name}!'\nprint(text.upper() if args.shout else text)\n"
        ),
    )
    return "done"


def _docstrings(d: Path, _: str) -> bool:
    try:
        tree = ast.parse(read(d, "geometry.py"))
    except SyntaxError:
        return False
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    code = "from geometry import area, perimeter; assert area(2, 3) == 6 and perimeter(2, 3) == 10"
    return (
        len(functions) == 2
        and all(ast.get_docstring(f) for f in functions)
        and run(d, "-c", code).returncode == 0
    )


def _add_docstrings(d: Path) -> str:
    replace(d, "geometry.py", "):\n    return w * h", '):\n    """Area."""\n    return w * h')
    replace(d, "geometry.py", "):\n    return 2", '):\n    """Perimeter."""\n    return 2')
    return "done"


def _test_written(d: Path, _: str) -> bool:
    test = read(d, "test_strings.py")
    if "reverse" not in test or not passes(d, "test_strings"):
        return False
    replace(d, "strings.py", "[::-1]", "")  # the tests must catch a broken reverse
    return not passes(d, "test_strings")


def _version_set(d: Path, _: str) -> bool:
    text = read(d, "pyproject.toml")
    return 'version = "1.2.0"' in text and 'name = "shop"' in text and "0.9.1" not in text


TASKS: tuple[Task, ...] = (
    Task(
        name="fizzbuzz",
        kind="script",
        prompt="Write fizzbuzz.py that prints the numbers 1 to 15, one per line, but Fizz for "
        "multiples of 3, Buzz for multiples of 5 and FizzBuzz for multiples of both. Run it.",
        check=lambda d, _: prints(d, FIZZ, "fizzbuzz.py"),
        solve=_fizzbuzz,
    ),
    Task(
        name="sum_column",
        kind="script",
        prompt="Write total.py that prints the sum of the amount column of sales.csv. Run it "
        "and tell me the total.",
        files={"sales.csv": SALES},
        check=lambda d, answer: prints(d, "510", "total.py") and "510" in answer,
        solve=lambda d: (
            write(
                d,
                "total.py",
                (
                    "import csv\nprint(sum(int(r['amount']) for r in csv.DictReader(open('sales.csv'))))\n"
                ),
            )
            or "510"
        ),
    ),
    Task(
        name="json_to_csv",
        kind="script",
        prompt="Write convert.py that reads people.json and writes people.csv with the header "
        "line name,age and one line per person. Run it.",
        files={"people.json": json.dumps(PEOPLE, indent=2) + "\n"},
        check=_people_csv,
        solve=_convert,
    ),
    Task(
        name="word_count",
        kind="script",
        prompt="Write wc.py: it prints the number of words in the file whose name is given as "
        "its argument (python wc.py notes.txt). Try it on notes.txt.",
        files={"notes.txt": "call the bank\nwater the plants\n"},
        check=_word_count,
        solve=lambda d: (
            write(d, "wc.py", ("import sys\nprint(len(open(sys.argv[1]).read().split()))\n")) or "6"
        ),
    ),
    Task(
        name="today_script",
        kind="script",
        prompt="Write today.py that prints today's date as YYYY-MM-DD, and run it.",
        check=_today,
        solve=lambda d: (
            write(d, "today.py", ("import datetime\nprint(datetime.date.today().isoformat())\n"))
            or "done"
        ),
    ),
    Task(
        name="reverse_lines",
        kind="script",
        prompt="Write rev.py that prints the lines of poem.txt in reverse order (last line "
        "first). Run it.",
        files={"poem.txt": POEM},
        check=lambda d, _: prints(d, "sugar is sweet\nviolets are blue\nroses are red", "rev.py"),
        solve=lambda d: (
            write(
                d,
                "rev.py",
                ("for line in reversed(open('poem.txt').read().splitlines()):\n    print(line)\n"),
            )
            or "done"
        ),
    ),
    Task(
        name="fix_slugify",
        kind="fix",
        prompt="python -m unittest test_text fails. Fix text.py so that the test passes.",
        files={
            "text.py": "def slugify(title):\n    return '-'.join(title.split())\n",
            "test_text.py": _slug_test(),
        },
        check=lambda d, _: passes(d, "test_text") and "slugify" in read(d, "text.py"),
        solve=lambda d: replace(d, "text.py", "title.split()", "title.lower().split()") or "fixed",
    ),
    Task(
        name="fix_sort_key",
        kind="fix",
        prompt="The test in test_ranking.py fails. Find the bug in ranking.py and fix it.",
        files={
            "ranking.py": "def by_score(players):\n"
            '    """Players sorted by score, highest first."""\n'
            "    return sorted(players, key=lambda p: p['name'], reverse=True)\n",
            "test_ranking.py": unittest_file(
                "ranking",
                "by_score",
                (
                    "    def test_order(self):\n"
                    "        players = [{'name': 'a', 'score': 3}, {'name': 'z', 'score': 1},"
                    " {'name': 'm', 'score': 9}]\n"
                    "        self.assertEqual([p['name'] for p in by_score(players)], ['m', 'a', 'z'])\n"
                ),
            ),
        },
        check=lambda d, _: passes(d, "test_ranking"),
        solve=lambda d: replace(d, "ranking.py", "p['name']", "p['score']") or "fixed",
    ),
    Task(
        name="fix_divide_error",
        kind="fix",
        prompt="test_calc.py expects safe_divide to raise ValueError when dividing by zero. "
        "Make calc.py do that, and run the tests.",
        files={
            "calc.py": "def safe_divide(a, b):\n    if b == 0:\n        return 0\n"
            "    return a / b\n",
            "test_calc.py": unittest_file(
                "calc",
                "safe_divide",
                (
                    "    def test_divide(self):\n        self.assertEqual(safe_divide(6, 3), 2)\n\n"
                    "    def test_zero(self):\n        with self.assertRaises(ValueError):\n"
                    "            safe_divide(1, 0)\n"
                ),
            ),
        },
        check=lambda d, _: passes(d, "test_calc"),
        solve=_safe_divide_fixed,
    ),
    Task(
        name="fix_import",
        kind="fix",
        prompt="Running python -m unittest test_report fails. Fix the code (not the test) so "
        "that it passes.",
        files={
            "formatting.py": "def money(cents):\n    return f'${cents // 100}.{cents % 100:02d}'\n",
            "report.py": "from formatting import format_money\n\n\ndef line(item, cents):\n"
            "    return f'{item}: {format_money(cents)}'\n",
            "test_report.py": unittest_file(
                "report",
                "line",
                (
                    "    def test_line(self):\n"
                    "        self.assertEqual(line('tea', 1205), 'tea: $12.05')\n"
                ),
            ),
        },
        check=lambda d, _: passes(d, "test_report") and "import" in read(d, "test_report.py"),
        solve=lambda d: replace(d, "report.py", "format_money", "money") or "fixed",
    ),
    Task(
        name="fix_factorial",
        kind="fix",
        prompt="factorial(5) should be 120 but test_mathutil.py fails. Fix mathutil.py.",
        files={
            "mathutil.py": "def factorial(n):\n    result = 1\n    for i in range(1, n):\n"
            "        result *= i\n    return result\n",
            "test_mathutil.py": unittest_file(
                "mathutil",
                "factorial",
                (
                    "    def test_values(self):\n        self.assertEqual(factorial(0), 1)\n"
                    "        self.assertEqual(factorial(5), 120)\n"
                ),
            ),
        },
        check=lambda d, _: passes(d, "test_mathutil"),
        solve=lambda d: replace(d, "mathutil.py", "range(1, n)", "range(1, n + 1)") or "fixed",
    ),
    Task(
        name="rename_class",
        kind="rename",
        prompt="Rename the class Customer to Client everywhere (models.py, service.py, main.py).",
        files={
            "models.py": "class Customer:\n    def __init__(self, name):\n        self.name = name\n",
            "service.py": "from models import Customer\n\n\ndef make(name):\n"
            "    return Customer(name)\n",
            "main.py": "from service import make\n\nc = make('Ann')\n"
            "print(type(c).__name__, c.name)\n",
        },
        check=_class_renamed,
        solve=lambda d: (
            [replace(d, f, "Customer", "Client") for f in ("models.py", "service.py")] and "done"
        ),
    ),
    Task(
        name="rename_constant",
        kind="rename",
        prompt="Rename the constant MAX_SIZE to MAX_ITEMS in config.py and wherever it is used.",
        files={
            "config.py": "MAX_SIZE = 10\n",
            "queue_.py": "from config import MAX_SIZE\n\n\ndef full(items):\n"
            "    return len(items) >= MAX_SIZE\n",
            "main.py": "from queue_ import full\n\nprint(full(list(range(10))))\n",
        },
        check=_constant_renamed,
        solve=lambda d: (
            [replace(d, f, "MAX_SIZE", "MAX_ITEMS") for f in ("config.py", "queue_.py")] and "done"
        ),
    ),
    Task(
        name="rename_module",
        kind="rename",
        prompt="Rename the module helpers.py to utils.py and update the import in main.py.",
        files={
            "helpers.py": "def double(x):\n    return 2 * x\n",
            "main.py": "from helpers import double\n\nprint(double(4))\n",
        },
        check=_module_renamed,
        solve=_rename_module,
    ),
    Task(
        name="add_cli_flag",
        kind="edit",
        prompt="Add a --shout option to greet.py: with it, the greeting is printed in capital "
        "letters (python greet.py Ann --shout prints HELLO, ANN!).",
        files={
            "greet.py": "import argparse\n\nparser = argparse.ArgumentParser()\n"
            "parser.add_argument('name')\nargs = parser.parse_args()\n"
            "print(f'Hello, {args.name}!')\n"
        },
        check=_shout,
        solve=_greet_shout,
    ),
    Task(
        name="add_docstrings",
        kind="edit",
        prompt="Add a one-line docstring to each function in geometry.py.",
        files={
            "geometry.py": "def area(w, h):\n    return w * h\n\n\n"
            "def perimeter(w, h):\n    return 2 * (w + h)\n"
        },
        check=_docstrings,
        solve=_add_docstrings,
    ),
    Task(
        name="write_tests",
        kind="edit",
        prompt="Write test_strings.py with unittest tests for the function reverse in "
        "strings.py, and run them.",
        files={"strings.py": "def reverse(text):\n    return text[::-1]\n"},
        check=_test_written,
        solve=lambda d: (
            write(
                d,
                "test_strings.py",
                unittest_file(
                    "strings",
                    "reverse",
                    (
                        "    def test_reverse(self):\n        self.assertEqual(reverse('abc'), 'cba')\n"
                    ),
                ),
            )
            or "done"
        ),
    ),
    Task(
        name="set_version",
        kind="edit",
        prompt="Set the project's version to 1.2.0 in pyproject.toml.",
        files={"pyproject.toml": '[project]\nname = "shop"\nversion = "0.9.1"\n'},
        check=_version_set,
        solve=lambda d: replace(d, "pyproject.toml", "0.9.1", "1.2.0") or "done",
    ),
)
