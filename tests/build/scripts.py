"""Build inputs and scripted model turns shared by the build's tests (the runner through the
library, the command, and the service)."""

from __future__ import annotations

from pathlib import Path

from taor.testing import Reply, text, tool_calls

BRIEF = "# Tally\nA tiny command-line tool that counts words in a file, for writers.\n"
QNA = "Q: Who is it for?\nA: Writers who want a quick count.\nQ: Language?\nA: Python.\n"
PLAN = "1. Scaffolding: create tally.py with a count function\n2. Tests: add test_tally.py\n"

SCAFFOLD = tool_calls(
    ("write_file", {"path": "tally.py", "content": "def count(s):\n    return len(s.split())\n"}),
    text="**Scaffolding**\nWe start with `tally.py`, because everything else calls it. ",
)
TESTS = tool_calls(
    ("shell", {"command": "printf 'from tally import count\\nassert count(\"a b\") == 2\\n' "
                          "> test_tally.py && python3 test_tally.py"}),
    text="Summary: `tally.py` counts words.\n\n**Tests**\nNow a test, so we know it counts right.",
)  # fmt: skip
DONE = text("Test passes.\n\nSummary: the test runs green.\n\nThe tool is ready for you.")
REPORT = text(
    "## What we built\nA word counter in `tally.py`.\n\n## Architecture decisions\nOne "
    "function, no dependencies.\n\n## How to run it\n`python3 tally.py`\n\n## What to look at "
    "first\n`tally.py`, then `missing.py`."
)
LIST = tool_calls(("shell", {"command": "ls"}), text="Looking around. ")
HANDOFF = text(
    "We reached our limit. Scaffolding is done; the tests remain.\n\n## What we built\n"
    "The start of `tally.py`.\n\n## How to run it\n`python3 tally.py`"
)


def complete_build() -> list[Reply]:
    return [SCAFFOLD, TESTS, DONE, REPORT]


def write_inputs(folder: Path, *, plan: str = PLAN) -> list[str]:
    """The three files in ``folder``; the flags that name them."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in (("brief.md", BRIEF), ("qna.md", QNA), ("plan.md", plan)):
        (folder / name).write_text(content)
    return ["--brief", str(folder / "brief.md"), "--qna", str(folder / "qna.md"),
            "--plan", str(folder / "plan.md")]  # fmt: skip
