"""Parked sessions: a recorded session closed (or killed) while it waits for a permission answer
is resumed in another process still waiting on the same request; the answer given there applies,
the call runs once if allowed, and nothing runs twice. Each host is a real process
(``parking_host.py``) over the same JSONL transcript; the calls append to a real file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from taor.agent.events import PermissionDecision, PermissionRequest, ProcessingEnd
from taor.agent.record.parking import parked_round
from taor.agent.record.store import load
from taor.agent.record.transcript import problems
from taor.agent.record.turns import ToolResultsTurn
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.errors import UnknownIdError
from taor.testing import ScriptedModel, text, tool_calls

from .parking_host import CONFIG, FIRST, SECOND

HOST = str(Path(__file__).with_name("parking_host.py"))
PENDING = "the last assistant turn's tool calls have no results"


def host(*args: str) -> list[dict[str, Any]]:
    """Run one host process to its end; its JSON lines."""
    done = subprocess.run(
        [sys.executable, HOST, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def killed_at_request(*args: str, until: Callable[[], bool] = lambda: True) -> dict[str, Any]:
    """Start a host, wait for its first line and for ``until``, then kill it with SIGKILL;
    that line."""
    with subprocess.Popen([sys.executable, HOST, *args], stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        line = json.loads(proc.stdout.readline())
        deadline = time.monotonic() + 60
        while not until() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    return line


def log(workdir: Path) -> str:
    path = workdir / "log.txt"
    return path.read_text() if path.exists() else ""


def results(path: Path) -> list[ToolResultsTurn]:
    return [turn for turn in load(path).turns if isinstance(turn, ToolResultsTurn)]


def setup(tmp_path: Path) -> tuple[Path, Path]:
    workdir = tmp_path / "work"
    workdir.mkdir()
    return tmp_path / "session.jsonl", workdir


def test_closed_while_waiting_then_allowed_in_another_process(tmp_path: Path) -> None:
    path, workdir = setup(tmp_path)
    asked, closed = host("ask", str(path), str(workdir), "close")
    assert asked["state"] == "awaiting_permission" and closed["state"] == "closed"
    assert log(workdir) == "first\n"  # the allowed call ran; the other waits
    turns = list(load(path).turns)
    assert problems(turns) == [PENDING]  # a round in flight: no result made up for it
    assert parked_round(turns) is not None

    parked, after = host("answer", str(path), str(workdir), "allow")
    assert parked == {"parked": asked["request_id"], "state": "awaiting_permission"}
    assert after["asked"] == [asked["request_id"]]  # the same request, asked again
    assert after["kinds"][:3] == ["session_start", "tool_call_start", "permission_request"]
    assert log(workdir) == "first\nsecond\n"  # the first did not run again, the second once
    (sent,) = after["sent"]  # the model got both results, the first as recorded
    assert sent[0].endswith("first\n") and sent[1].endswith("second\n")
    assert problems(list(load(path).turns)) == []
    (round_results,) = results(path)
    assert [r.call_id for r in round_results.results] == ["call_1", "call_2"]


def test_a_denial_in_the_resumed_process_is_what_the_model_reads(tmp_path: Path) -> None:
    path, workdir = setup(tmp_path)
    host("ask", str(path), str(workdir), "close")
    _, after = host("answer", str(path), str(workdir), "deny")
    assert log(workdir) == "first\n"
    (sent,) = after["sent"]
    assert sent[0].endswith("first\n") and sent[1].startswith("Permission denied for shell")
    assert problems(list(load(path).turns)) == []


def test_killed_while_waiting_it_is_still_waiting_and_nothing_ran(tmp_path: Path) -> None:
    path, workdir = setup(tmp_path)
    asked = killed_at_request("ask", str(path), str(workdir), "wait")
    assert log(workdir) == "first\n"
    parked, after = host("answer", str(path), str(workdir), "allow")
    assert parked == {"parked": asked["request_id"], "state": "awaiting_permission"}
    assert after["asked"] == [asked["request_id"]]
    assert log(workdir) == "first\nsecond\n"
    (sent,) = after["sent"]
    assert sent[0].endswith("first\n") and sent[1].endswith("second\n")
    assert problems(list(load(path).turns)) == []


def test_parked_twice_it_still_waits_on_the_same_request(tmp_path: Path) -> None:
    path, workdir = setup(tmp_path)
    asked, _ = host("ask", str(path), str(workdir), "close")
    parked, closed = host("answer", str(path), str(workdir), "close")
    assert parked["parked"] == asked["request_id"]
    assert closed["asked"] == [asked["request_id"]] and "tool_call_end" not in closed["kinds"]
    parked, after = host("answer", str(path), str(workdir), "allow")
    assert parked["parked"] == asked["request_id"]
    assert log(workdir) == "first\nsecond\n"
    assert after["seqs"][0] > closed["seqs"][-1]  # numbered on across every process


def test_killed_while_the_allowed_call_ran_it_is_not_run_again(tmp_path: Path) -> None:
    path, workdir = setup(tmp_path)
    host("ask", str(path), str(workdir), "slow")  # its second call sleeps after its line
    ran = lambda: log(workdir) == "first\nsecond\n"  # noqa: E731
    parked = killed_at_request("answer", str(path), str(workdir), "allow", until=ran)
    assert parked["parked"] and ran()  # killed while the allowed call ran
    model = ScriptedModel([text("ok")])
    environment = LocalEnvironment(str(workdir))
    session = Session.resume(path, model, environment=environment, config=CONFIG)
    assert session.parked is None and session.state == "idle"
    assert problems(session.history) == []
    (round_results,) = [t for t in session.history if isinstance(t, ToolResultsTurn)]
    first, cut = round_results.results
    assert first.text.endswith("first\n")  # as recorded with the question
    assert (
        cut.is_error and "process running this session ended" in cut.text
    )  # it may have run: not run again
    assert log(workdir) == "first\nsecond\n"


async def parked_in_process(path: Path, workdir: Path) -> str:
    """The same first host, in this process: closed at its request; the request id."""
    model = ScriptedModel([tool_calls(FIRST, SECOND)])
    environment = LocalEnvironment(str(workdir))
    session = Session.recorded(path, model, environment=environment, config=CONFIG)
    async for event in session.submit("log twice"):
        if isinstance(event, PermissionRequest):
            await session.close()
            return event.request_id
    raise AssertionError("no permission request")


async def test_an_answer_given_before_the_resumed_session_asks_again_applies(
    tmp_path: Path,
) -> None:
    path, workdir = setup(tmp_path)
    request_id = await parked_in_process(path, workdir)
    model = ScriptedModel([text("logged")])
    session = Session.resume(path, model, environment=LocalEnvironment(str(workdir)), config=CONFIG)
    session.decide(request_id, "allow")  # before it started: kept for the question
    assert session.state == "awaiting_permission"
    stream = session.events()
    await session.start()
    seen = []
    async for event in stream:
        seen.append(event)
        if isinstance(event, ProcessingEnd):
            break
    await session.close()
    (decision,) = [e for e in seen if isinstance(e, PermissionDecision)]
    assert (decision.request_id, decision.decision, decision.source) == (
        request_id,
        "allow",
        "host",
    )
    assert log(workdir) == "first\nsecond\n" and problems(session.history) == []
    with pytest.raises(UnknownIdError):
        session.decide("perm_nothing", "allow")


async def test_an_interrupt_of_the_resumed_round_answers_it_as_an_interrupt_would(
    tmp_path: Path,
) -> None:
    path, workdir = setup(tmp_path)
    await parked_in_process(path, workdir)
    model = ScriptedModel([text("next")])
    session = Session.resume(path, model, environment=LocalEnvironment(str(workdir)), config=CONFIG)
    async with session:
        async for event in session.events():
            if isinstance(event, PermissionRequest):  # asked again, still to be answered
                assert session.parked is not None
                assert session.parked.request_id == event.request_id
                session.interrupt()
            if isinstance(event, ProcessingEnd):
                assert event.stop_reason == "interrupted"
                break
        assert session.state == "idle" and session.parked is None
        first, second = [t for t in session.history if isinstance(t, ToolResultsTurn)][-1].results
        assert first.text.endswith("first\n") and "Interrupted" in second.text
        assert (await session.run("go on")).text == "next"
    assert log(workdir) == "first\n" and problems(list(load(path).turns)) == []
    assert parked_round(list(load(path).turns)) is None
