"""``taor build --model local`` on a tiny plan, as a person runs it, on the real model: a
two-file Python command-line tool with its test. The mechanics are asserted (the narration,
its phases and the report exist; every file the report lists is in the workspace); the
project's own test is then run, and its result recorded in a ``RESULT`` line (a 1.5B model
does not always get it right). Run with ``pytest -m e2e tests/e2e/test_build.py``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from taor.build.narration import phase_name, summary_start
from taor.llm.local.install import is_installed
from taor.llm.local.known import DEFAULT, KNOWN, models_dir

from ..cli.support import TAOR, environ

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(1500),  # a build is many model calls on two shared cores
    pytest.mark.skipif(
        not is_installed(KNOWN[DEFAULT], models_dir()),
        reason=f"the local model is not installed: run `taor models install` ({models_dir()})",
    ),
]

BRIEF = """# greet
A tiny command-line tool that greets a person by name, for a workshop demo.
"""
QNA = """Q: What should it print?
A: "Hello, NAME!" for the name given on the command line.
Q: Language?
A: Python 3, standard library only.
"""
PLAN = """1. Code: write `greet.py` with a function `greeting(name)` that returns "Hello, " + name + "!", and that prints greeting(sys.argv[1]) when run as a script.
2. Tests: write `test_greet.py` that imports greeting from greet and asserts greeting("Ann") == "Hello, Ann!", then run `python3 test_greet.py`.
"""


def prose(text: str) -> list[str]:
    """The lines of ``text`` that are neither a phase's name nor a summary's opening."""
    lines = (line.strip() for line in text.splitlines())
    return [
        line for line in lines if line and phase_name(line) is None and summary_start(line) is None
    ]


def test_a_tiny_build_on_the_local_model(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for name, content in (("brief.md", BRIEF), ("qna.md", QNA), ("plan.md", PLAN)):
        (inputs / name).write_text(content)
    workspace = tmp_path / "greet"
    args = [TAOR, "build", "--brief", str(inputs / "brief.md"), "--qna", str(inputs / "qna.md"),
            "--plan", str(inputs / "plan.md"), "--workspace", str(workspace), "--model", "local",
            "--max-tool-calls", "16", "--output-format", "stream-json"]  # fmt: skip
    env = {**environ(tmp_path), "TAOR_MODELS_DIR": str(models_dir()), "TAOR_LOCAL_THREADS": "2"}
    done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=1500)  # fmt: skip
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    events = [line for line in lines if "kind" in line]
    kinds = [event["kind"] for event in events]
    assert done.returncode in (0, 3), done.stderr
    # What the model says while it works is told as phases, summaries and sentence-sized
    # narration (a reply of headings alone has no narration; the last reply is the report).
    said = [e["text"] for e in events if e["kind"] == "assistant_text_end"]
    assert "phase" in kinds, said
    working = said[:-1]
    worded = any(re.search(r"[A-Za-z]{3}", line) for text in working for line in prose(text))
    assert not worded or {"narration", "section_summary"} & set(kinds), said
    report = [e for e in events if e["kind"] == "build_report"]
    assert len(report) == 1
    written = (workspace / "BUILD_REPORT.md").read_text()
    assert written == report[0]["markdown"]
    files = report[0]["files"]
    assert files and all((workspace / path).is_file() for path in files)
    assert all(f"`{path}`" in written for path in files)
    tests = sorted(p.name for p in workspace.glob("test*.py"))
    result = "no test written"
    if tests:
        ran = subprocess.run([sys.executable, tests[0]], cwd=workspace, capture_output=True,
                             text=True, timeout=60)  # fmt: skip
        result = f"{tests[0]} {'passed' if ran.returncode == 0 else 'failed'}"
    phases = [e["name"] for e in events if e["kind"] == "phase"]
    print(
        f"\nRESULT build e2e: exit {done.returncode}, complete {report[0]['complete']}, "
        f"phases {phases}, narration {kinds.count('narration')}, milestones "
        f"{kinds.count('section_summary')}, tool calls {kinds.count('tool_call_start')}, "
        f"files {files}, project test: {result}"
    )
    assert tests, "the build wrote no test"
