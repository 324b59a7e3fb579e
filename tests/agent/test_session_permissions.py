"""Permissions through a running session: modes, rules, host decisions, callbacks, headless
defaults, timeouts, and interrupt / close while a decision is pending."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taor.agent.events import PermissionRequest
from taor.agent.policy.decisions import Decision
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.errors import SessionClosedError, SessionError
from taor.testing import ScriptedModel, text, tool_calls

from .session_drive import (
    assert_valid,
    config,
    drive,
    kinds,
    last_results,
    of_kind,
    result_text,
    sent_results,
)

READ = ("read_file", {"path": "src/app.py"})
EDIT = ("edit_file", {"path": "src/app.py", "old_string": "a = 1", "new_string": "a = 2"})
SHELL = ("shell", {"command": "pytest -q"})


def workspace() -> MemoryEnvironment:
    env = MemoryEnvironment(files={"src/app.py": "a = 1\n", "notes.md": "n\n"})
    env.script("pytest -q", "3 passed\n")
    env.script("git status", "clean\n")
    env.script("git push origin main", "pushed\n")
    return env


def one_call(call: tuple[str, dict[str, Any]], *more: tuple[str, dict[str, Any]]) -> ScriptedModel:
    return ScriptedModel([tool_calls(call, *more), text("done")])


def deny_all(request: PermissionRequest) -> object:
    raise AssertionError(f"unexpected permission request for {request.name}")


MODES = [
    ("default", READ, "allow"),
    ("default", EDIT, "ask"),
    ("default", SHELL, "ask"),
    ("accept_edits", READ, "allow"),
    ("accept_edits", EDIT, "allow"),
    ("accept_edits", SHELL, "ask"),
    ("plan", READ, "allow"),
    ("plan", EDIT, "deny"),
    ("plan", SHELL, "deny"),
    ("bypass", READ, "allow"),
    ("bypass", EDIT, "allow"),
    ("bypass", SHELL, "allow"),
]


@pytest.mark.parametrize(("mode", "call", "expected"), MODES)
async def test_each_mode_with_each_kind_of_tool(
    mode: str, call: tuple[str, dict[str, Any]], expected: str
) -> None:
    env = workspace()
    asked: list[PermissionRequest] = []

    def allow(request: PermissionRequest) -> None:
        asked.append(request)
        session.decide(request.request_id, "allow")

    async with Session(one_call(call), environment=env, config=config(mode)) as session:
        events = await drive(session, "go", allow)
    (end,) = of_kind(events, "tool_call_end")
    ran = env.calls_of("tool:" + call[0])
    if expected == "allow":
        assert (asked, of_kind(events, "permission_decision")) == ([], [])
        assert not end.is_error and len(ran) == 1
    elif expected == "ask":
        assert [r.name for r in asked] == [call[0]]
        assert asked[0].reason and asked[0].summary.startswith(call[0])
        (decision,) = of_kind(events, "permission_decision")
        assert (decision.decision, decision.source) == ("allow", "host")
        assert decision.request_id == asked[0].request_id  # which request it answered
        assert not end.is_error and len(ran) == 1
    else:
        assert asked == [] and ran == []
        assert end.is_error and "Plan mode" in end.output
        (decision,) = of_kind(events, "permission_decision")
        assert (decision.decision, decision.source, decision.request_id) == ("deny", "mode", "")
    assert_valid(session)


async def test_rules_allow_by_pattern_and_deny_wins_even_in_bypass() -> None:
    env = workspace()
    model = ScriptedModel(
        [
            tool_calls(("shell", {"command": "git status"})),
            tool_calls(("shell", {"command": "git push origin main"})),
            text("done"),
        ]
    )
    rules = config("default", allow=("shell(git *)",), deny=("shell(git push*)",))
    async with Session(model, environment=env, config=rules) as session:
        events = await drive(session, "go", deny_all)
    ends = of_kind(events, "tool_call_end")
    assert [e.is_error for e in ends] == [False, True]
    assert "git push" in ends[1].output and "denies" in ends[1].output
    assert [c.arguments["command"] for c in env.calls_of("run")] == ["git status"]

    bypass = config("bypass", deny=("shell(git push*)",))
    model = ScriptedModel([tool_calls(("shell", {"command": "git push origin main"})), text("ok")])
    async with Session(model, environment=workspace(), config=bypass) as session:
        events = await drive(session, "go", deny_all)
    assert of_kind(events, "tool_call_end")[0].is_error
    assert of_kind(events, "permission_decision")[0].source == "rule"


async def test_a_path_rule_allows_edits_under_it_and_asks_for_the_rest() -> None:
    edit_notes = ("edit_file", {"path": "notes.md", "old_string": "n", "new_string": "m"})
    model = one_call(EDIT, edit_notes)
    asked: list[str] = []

    def deny(request: PermissionRequest) -> None:
        asked.append(request.arguments["path"])
        session.decide(request.request_id, "deny", "not that file")

    async with Session(
        model, environment=workspace(), config=config("default", allow=("edit_file(src/**)",))
    ) as session:
        await drive(session, "go", deny)
    assert asked == ["notes.md"]
    assert [r.is_error for r in last_results(session)] == [False, True]


async def test_a_deny_rule_wins_over_a_read_only_tool() -> None:
    model = one_call(READ)
    async with Session(
        model, environment=workspace(), config=config("bypass", deny=("read_file(src/**)",))
    ) as session:
        await drive(session, "go")
    (result,) = last_results(session)
    assert result.is_error and "read_file(src/**)" in result_text(result)


async def test_decide_allow_always_is_not_asked_again_for_the_same_call() -> None:
    model = ScriptedModel(
        [
            tool_calls(SHELL),
            tool_calls(SHELL),
            tool_calls(("shell", {"command": "git status"})),
            text("done"),
        ]
    )
    asked: list[str] = []

    def always(request: PermissionRequest) -> None:
        asked.append(request.arguments["command"])
        session.decide(request.request_id, "allow_always")

    env = workspace()
    async with Session(model, environment=env, config=config("default")) as session:
        events = await drive(session, "go", always)
    assert asked == ["pytest -q", "git status"]
    assert [e.decision for e in of_kind(events, "permission_decision")] == [
        "allow_always",
        "allow_always",
    ]
    assert len(env.calls_of("run")) == 3
    assert not any(e.is_error for e in of_kind(events, "tool_call_end"))


async def test_decide_deny_with_a_message_reaches_the_model_as_an_error_result() -> None:
    model = one_call(SHELL)

    def deny(request: PermissionRequest) -> None:
        session.decide(request.request_id, Decision.deny("run the unit tests only"))

    env = workspace()
    async with Session(model, environment=env, config=config("default")) as session:
        events = await drive(session, "go", deny)
    assert env.calls_of("run") == []
    (decision,) = of_kind(events, "permission_decision")
    assert (decision.decision, decision.source, decision.message) == (
        "deny",
        "host",
        "run the unit tests only",
    )
    (sent,) = sent_results(model.requests[1])
    assert sent.is_error and "run the unit tests only" in result_text(sent)
    assert of_kind(events, "processing_end")[0].stop_reason == "completed"


async def test_decide_rejects_unknown_or_settled_requests() -> None:
    model = one_call(SHELL)
    seen: list[str] = []

    def allow_twice(request: PermissionRequest) -> None:
        seen.append(request.request_id)
        session.decide(request.request_id, "allow")
        with pytest.raises(KeyError):
            session.decide(request.request_id, "deny")

    async with Session(model, environment=workspace(), config=config("default")) as session:
        await drive(session, "go", allow_twice)
        with pytest.raises(KeyError, match="no pending permission request"):
            session.decide("perm_nothing", "allow")
    assert len(seen) == 1


@pytest.mark.parametrize("bad", ["Deny", "DENY", "yes", "no", "", "allowed", 1, True, None])
async def test_decide_refuses_an_unknown_answer_and_the_request_stays_pending(
    tmp_path: Path, bad: object
) -> None:
    """Only an explicit allow lets a call run: a mistyped answer is an error, not a yes."""
    model = ScriptedModel([tool_calls(("shell", {"command": "touch ran"})), text("done")])
    refusals: list[str] = []

    def answer(request: PermissionRequest) -> None:
        with pytest.raises(SessionError, match="allow_always"):
            session.decide(request.request_id, bad)  # type: ignore[arg-type]
        refusals.append(request.request_id)
        session.decide(request.request_id, "deny")  # still pending: a valid answer lands

    async with Session(
        model, environment=LocalEnvironment(tmp_path), config=config("default")
    ) as session:
        events = await drive(session, "go", answer)
    assert len(refusals) == 1
    assert not (tmp_path / "ran").exists()
    assert [e.decision for e in of_kind(events, "permission_decision")] == ["deny"]
    assert_valid(session)


def test_a_decision_of_an_unknown_kind_cannot_be_made() -> None:
    with pytest.raises(SessionError, match="Unknown permission decision 'Allow'"):
        Decision(kind="Allow")  # type: ignore[arg-type]
    assert Decision.allow().allows and Decision.allow_always().allows
    assert not Decision.deny("no").allows


@pytest.mark.parametrize(
    ("answer", "runs", "message"),
    [
        (True, True, ""),
        (False, False, "the user did not allow it"),
        ("allow", True, ""),
        ("use git diff instead", False, "use git diff instead"),
        (Decision.deny("not now"), False, "not now"),
        (Decision.allow(), True, ""),
    ],
)
async def test_can_use_tool_callback_answers(answer: object, runs: bool, message: str) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def callback(name: str, arguments: dict[str, Any]) -> object:
        asked.append((name, arguments))
        return answer

    env = workspace()
    model = one_call(READ, SHELL)
    async with Session(
        model, environment=env, config=config("default"), can_use_tool=callback
    ) as session:
        events = await drive(session, "go", deny_all)
    assert asked == [SHELL]  # called for what needs asking, never for read-only calls
    assert of_kind(events, "permission_request") == []
    (decision,) = of_kind(events, "permission_decision")
    assert decision.source == "callback"
    assert len(env.calls_of("run")) == (1 if runs else 0)
    shell_result = last_results(session)[1]
    assert shell_result.is_error is not runs
    assert message in result_text(shell_result)


async def test_can_use_tool_allow_always_is_remembered() -> None:
    calls = 0

    async def callback(name: str, arguments: dict[str, Any]) -> object:
        nonlocal calls
        calls += 1
        return Decision.allow_always()

    model = ScriptedModel([tool_calls(SHELL), tool_calls(SHELL), text("done")])
    async with Session(
        model, environment=workspace(), config=config("default"), can_use_tool=callback
    ) as session:
        await drive(session, "go")
    assert calls == 1


async def _raising(name: str, arguments: dict[str, Any]) -> object:
    raise RuntimeError("callback boom")


async def _nonsense(name: str, arguments: dict[str, Any]) -> object:
    return 42


@pytest.mark.parametrize(("callback", "says"), [(_raising, "callback boom"), (_nonsense, "42")])
async def test_a_failing_can_use_tool_callback_denies_and_reports(callback: Any, says: str) -> None:
    env = workspace()
    model = ScriptedModel([tool_calls(SHELL), text("understood"), text("again")])
    async with Session(
        model, environment=env, config=config("default"), can_use_tool=callback
    ) as session:
        events = await drive(session, "go")
        (error,) = of_kind(events, "error")
        assert "can_use_tool" in error.message and says in error.message
        (end,) = of_kind(events, "tool_call_end")
        assert end.is_error and says in end.output
        assert env.calls_of("run") == []
        assert of_kind(events, "processing_end")[0].stop_reason == "completed"
        assert (await session.run("next")).text == "again"
        assert_valid(session)


@pytest.mark.parametrize(("headless", "runs"), [("deny", False), ("allow", True)])
async def test_headless_sessions_use_the_configured_default(headless: str, runs: bool) -> None:
    env = workspace()
    settings = config("default", interactive=False, headless=headless)
    async with Session(one_call(SHELL), environment=env, config=settings) as session:
        events = await drive(session, "go", deny_all)
    assert of_kind(events, "permission_request") == []
    (decision,) = of_kind(events, "permission_decision")
    assert (decision.decision, decision.source) == (headless, "default")
    assert len(env.calls_of("run")) == (1 if runs else 0)
    (result,) = last_results(session)
    assert result.is_error is not runs
    if not runs:
        assert "headless" in result_text(result)


async def test_an_unanswered_request_times_out_to_the_headless_default() -> None:
    env = workspace()
    settings = config("default", timeout=0.01)
    async with Session(one_call(SHELL), environment=env, config=settings) as session:
        events = await drive(session, "go")  # nobody answers
        assert session.state == "idle"
    (request,) = of_kind(events, "permission_request")
    (decision,) = of_kind(events, "permission_decision")
    assert (decision.decision, decision.source) == ("deny", "default")
    assert env.calls_of("run") == []
    with pytest.raises(KeyError):
        session.decide(request.request_id, "allow")


async def test_interrupt_while_a_decision_is_pending() -> None:
    model = ScriptedModel([tool_calls(READ, SHELL), text("next answer")])
    states: list[str] = []

    def interrupt(request: PermissionRequest) -> None:
        states.append(session.state)
        session.interrupt()

    env = workspace()
    async with Session(model, environment=env, config=config("default")) as session:
        events = await drive(session, "go", interrupt)
        assert session.state == "idle"
        assert of_kind(events, "processing_end")[0].stop_reason == "interrupted"
        assert "interrupted" in kinds(events)
        assert states == ["awaiting_permission"]
        assert_valid(session)
        read, shell = last_results(session)
        assert not read.is_error
        assert shell.is_error and "Interrupted" in result_text(shell)
        assert env.calls_of("run") == []
        result = await session.run("carry on")
        assert result.text == "next answer"
        assert_valid(session)


async def test_close_while_a_decision_is_pending() -> None:
    model = one_call(SHELL)

    async def close(request: PermissionRequest) -> None:
        await session.close()

    env = workspace()
    session = Session(model, environment=env, config=config("default"))
    stream = session.events()
    await session.start()
    events = await drive(session, "go", close)
    assert of_kind(events, "processing_end")[0].stop_reason == "closed"
    assert session.state == "closed"
    assert_valid(session)
    (shell,) = last_results(session)
    assert shell.is_error and env.calls_of("run") == []
    everything = [event async for event in stream]
    assert everything[0].kind == "session_start" and everything[-1].kind == "session_end"
    with pytest.raises(SessionClosedError):
        session.submit("more")


async def test_a_denied_shell_command_really_does_not_run(tmp_path: Path) -> None:
    command = {"command": "touch made.txt"}
    model = ScriptedModel(
        [tool_calls(("shell", command)), tool_calls(("shell", command)), text("ok")]
    )
    answers = iter(["deny", "allow"])

    def answer(request: PermissionRequest) -> None:
        if next(answers) == "deny":
            session.decide(request.request_id, "deny", "not yet")
        else:
            assert not (tmp_path / "made.txt").exists()  # the denied call did not run
            session.decide(request.request_id, "allow")

    async with Session(
        model, environment=LocalEnvironment(str(tmp_path)), config=config("default")
    ) as session:
        await drive(session, "go", answer)
    assert (tmp_path / "made.txt").exists()
    assert_valid(session)
