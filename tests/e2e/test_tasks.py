"""Small real tasks through ``taor -p --model local`` as a person runs it, on the real model.

Each test asserts the mechanics always (real tool calls ran, the run ended within its limits,
the event stream is complete, the transcript on disk is valid) and the outcome where a 1.5B
model is reliable at temperature 0 (greedy, so repeatable on one build). Run with
``pytest -m e2e tests/e2e``."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from taor.agent.profiles.repeats import NOTE as REPEAT_NOTE
from taor.agent.record.store import load
from taor.agent.record.transcript import problems
from taor.llm.local.install import is_installed
from taor.llm.local.known import DEFAULT, KNOWN, models_dir

from ..cli.support import TAOR, data_home, environ

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not is_installed(KNOWN[DEFAULT], models_dir()),
        reason=f"the local model is not installed: run `taor models install` ({models_dir()})",
    ),
]
DEMO = Path(__file__).parents[2] / "examples" / "demo"
MAX_TURNS = 12


@dataclass
class Run:
    code: int
    lines: list[dict[str, Any]] = field(default_factory=list)

    @property
    def events(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if "kind" in line]

    @property
    def result(self) -> dict[str, Any]:
        """The last input's result line (with stream-json input, session_end follows it)."""
        return [line for line in self.lines if line.get("type") == "result"][-1]

    def calls(self, name: str) -> list[dict[str, Any]]:
        return [
            e["arguments"]
            for e in self.events
            if e["kind"] == "tool_call_start" and e["name"] == name
        ]


def run(
    cwd: Path,
    prompt: str,
    *,
    stdin: str | None = None,
    extra: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> Run:
    args = [TAOR, "-p", prompt, "--model", "local", "--permission-mode", "bypass"]
    args += ["--max-turns", str(MAX_TURNS), "--output-format", "stream-json", *extra]
    env = {
        **environ(cwd),
        "TAOR_MODELS_DIR": str(models_dir()),
        "TAOR_LOCAL_THREADS": "2",
        **(env or {}),
    }
    done = subprocess.run(
        args, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in done.stderr, done.stderr
    out = Run(done.returncode, [json.loads(line) for line in done.stdout.splitlines()])
    assert out.result["model_calls"] <= MAX_TURNS + 1
    kinds = [e["kind"] for e in out.events]
    assert kinds[0] == "session_start" and "processing_end" in kinds[-2:]
    (transcript,) = (data_home(cwd) / "taor" / "sessions").glob("*/*.jsonl")
    assert problems(list(load(transcript).turns)) == []
    return out


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    cwd = tmp_path / "work"
    cwd.mkdir()
    for name, text in files.items():
        (cwd / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=cwd, check=True)
    return cwd


def test_run_a_command_and_report_its_output(tmp_path: Path) -> None:
    cwd = project(tmp_path, {})
    done = run(cwd, "Run the command python3 -c 'print(6 * 7)' and tell me what it printed.")
    assert any("6 * 7" in call.get("command", "") for call in done.calls("shell"))
    assert done.code == 0 and "42" in done.result["result"]


def test_read_a_file_and_answer(tmp_path: Path) -> None:
    cwd = project(tmp_path, {"settings.ini": "[server]\nhost = 0.0.0.0\nport = 8123\n"})
    done = run(cwd, "Which port does settings.ini set?")
    assert done.calls("read_file") or done.calls("shell")
    assert done.code == 0 and "8123" in done.result["result"]


def test_fix_a_bug_so_the_test_passes(tmp_path: Path) -> None:
    cwd = tmp_path / "work"
    shutil.copytree(DEMO, cwd)
    done = run(
        cwd,
        "The function mean in stats.py has a bug, so python -m unittest fails. "
        "Read stats.py, fix mean, then run python -m unittest.",
    )
    assert done.calls("edit_file") or done.calls("write_file") or done.calls("apply_patch")
    tests = subprocess.run(["python3", "-m", "unittest"], cwd=cwd, capture_output=True, text=True)
    assert tests.returncode == 0, tests.stderr
    assert "def spread" in (cwd / "stats.py").read_text()  # the rest of the file is kept


def test_a_steering_message_mid_task_reaches_the_model(tmp_path: Path) -> None:
    cwd = project(tmp_path, {})
    lines = [
        {"type": "user", "text": "Create a file notes.txt that contains the word alpha."},
        {"type": "steer", "text": "Also create a file extra.txt that contains the word beta."},
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    done = run(cwd, "", stdin=stdin, extra=("--input-format", "stream-json"))
    kinds = [e["kind"] for e in done.events]
    assert "steering_injected" in kinds
    assert (cwd / "notes.txt").read_text().strip() == "alpha"
    assert (cwd / "extra.txt").read_text().strip() == "beta"


@pytest.fixture
def loop_project() -> Iterator[Path]:
    """A project where this model, at temperature 0, often re-reads parity.py call after call,
    restarting its own plan (seen in most runs of benchmarks/local_tasks.py, whose scratch
    folders are named like this one: the path is part of the prompt, and changes the run)."""
    cwd = Path(tempfile.gettempdir()) / "lt-fix_failing_test-e2e"
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir()
    (cwd / "parity.py").write_text("def is_even(n):\n    return n % 2 == 1\n")
    (cwd / "test_parity.py").write_text(
        "import unittest\n\nfrom parity import is_even\n\n\n"
        "class ParityTest(unittest.TestCase):\n    def test_even(self):\n"
        "        self.assertTrue(is_even(4))\n        self.assertFalse(is_even(3))\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=cwd, check=True)
    yield cwd
    for path in (cwd, *cwd.parent.glob(f"{cwd.name}-*")):  # its XDG folders sit beside it
        shutil.rmtree(path, ignore_errors=True)


def test_a_model_repeating_itself_is_caught_by_the_guards(loop_project: Path) -> None:
    # Which path the model takes depends on the CPU's arithmetic even at temperature 0, so this
    # checks the guards on whatever it did: every call that repeats an earlier one with the same
    # result is told so in that result, and no other call is (a call refused before it ran is
    # not the tool's to judge); the loop guard steps in by the fourth copy; the budget is never
    # spent on repeats. No saved prompt prefix: one restored from other runs changes the run.
    done = run(
        loop_project,
        "The test in test_parity.py fails. Fix parity.py so that it passes.",
        env={"TAOR_LOCAL_PREFIX_DIR": "off"},
    )
    starts = {e["call_id"]: e for e in done.events if e["kind"] == "tool_call_start"}
    seen: set[tuple[str, str, str]] = set()
    for end in (e for e in done.events if e["kind"] == "tool_call_end"):
        arguments = json.dumps(starts[end["call_id"]]["arguments"], sort_keys=True)
        key = (end["name"], arguments, end["output"].replace(REPEAT_NOTE, ""))
        refused = end["output"].startswith(("Invalid arguments for tool", "Unknown tool"))
        assert (REPEAT_NOTE in end["output"]) == (key in seen and not refused), end
        seen.add(key)
    calls = [json.dumps(e["arguments"], sort_keys=True) for e in starts.values()]
    most = max((calls.count(c) for c in calls), default=0)
    warned = [e for e in done.events if e["kind"] == "loop_detection"]
    assert warned or most < 4
    assert most <= 6 and len(calls) < MAX_TURNS
