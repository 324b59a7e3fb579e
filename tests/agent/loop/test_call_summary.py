from __future__ import annotations

from typing import Any

import pytest

from taor.agent.loop.call_summary import summarize_call

PATCH3 = (
    "*** Begin Patch\n*** Add File: a.py\n+x\n*** Delete File: b.py\n"
    "*** Update File: c.py\n@@\n-x\n+y\n*** End Patch"
)


@pytest.mark.parametrize(
    ("name", "arguments", "summary"),
    [
        ("shell", {"command": "pytest -q", "timeout": 60}, "shell: pytest -q"),
        ("read_file", {"path": "src/app.py", "offset": 10}, "read_file: src/app.py"),
        ("read_file", {"file_path": "/w/app.py"}, "read_file: /w/app.py"),  # Claude's name
        (
            "edit_file",
            {"path": "src/app.py", "old_string": "a", "new_string": "b"},
            "edit_file: src/app.py",
        ),
        ("write_file", {"path": "notes.md", "content": "x" * 500}, "write_file: notes.md"),
        ("list_dir", {"path": "src"}, "list_dir: src"),
        ("grep", {"pattern": "needle", "path": "src"}, 'grep: "needle" in src'),
        ("grep", {"pattern": "needle"}, 'grep: "needle"'),
        ("glob", {"pattern": "**/*.py"}, "glob: **/*.py"),
        ("glob", {"pattern": "*.md", "path": "docs"}, "glob: *.md in docs"),
        ("apply_patch", {"patch": PATCH3}, "apply_patch: 3 files (a.py, b.py, +1)"),
        ("read_many_files", {"paths": ["a.py", "b.py"]}, "read_many_files: 2 files (a.py, b.py)"),
        ("read_many_files", {"paths": ["a.py"]}, "read_many_files: a.py"),
        (
            "take_screenshot",
            {"url": "http://127.0.0.1:8000/"},
            "take_screenshot: http://127.0.0.1:8000/",
        ),
        ("mcp__gh__issue", {"title": "Bug", "n": 1}, 'mcp__gh__issue: {"n":1,"title":"Bug"}'),
        ("shell", {}, "shell: {}"),
        ("read_file", {"path": 3}, 'read_file: {"path":3}'),
        ("apply_patch", {"patch": "garbage"}, 'apply_patch: {"patch":"garbage"}'),
    ],
)
def test_summaries(name: str, arguments: dict[str, Any], summary: str) -> None:
    assert summarize_call(name, arguments) == summary


def test_one_line_newlines_collapsed() -> None:
    assert summarize_call("shell", {"command": "cd src &&\n  make\n\ttest"}) == (
        "shell: cd src && make test"
    )


def test_long_summaries_are_cut_with_an_ellipsis() -> None:
    summary = summarize_call("shell", {"command": "echo " + "x" * 200})
    assert len(summary) == 80 and summary.endswith("…") and summary.startswith("shell: echo xxx")
    assert len(summarize_call("shell", {"command": "y" * 200}, limit=40)) == 40
    exact = "shell: " + "z" * 73
    assert summarize_call("shell", {"command": "z" * 73}) == exact
