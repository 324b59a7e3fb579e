"""``SessionLike``: a ``Session`` is one (checked by mypy and at run time), and a session whose
events and answers cross a wire as JSON, as a remote one's would, stands in for it: the same
host code drives both to the same events."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from taor.agent.commands import Command, Reply
from taor.agent.events import Event, PermissionRequest, ProcessingEnd
from taor.agent.policy.decisions import Decision
from taor.agent.record.codec import command_from_json, event_from_json, to_json
from taor.agent.result import RunResult
from taor.agent.runtime import SessionState
from taor.agent.session import Session
from taor.agent.session_like import SessionLike
from taor.env.memory import MemoryEnvironment
from taor.llm.types import ImagePart
from taor.testing import ScriptedModel, text, tool_calls

from .session_drive import config

EDIT = ("write_file", {"path": "notes.md", "content": "hello\n"})


def over_the_wire(event: Event) -> Event:
    return event_from_json(json.loads(json.dumps(to_json(event))))


class WireSession:
    """A session seen through a wire: every event arrives as JSON, every command is data."""

    def __init__(self, session: Session) -> None:
        self._session = session

    @property
    def id(self) -> str:
        return self._session.id

    @property
    def state(self) -> SessionState:
        return self._session.state

    @property
    def parked(self) -> PermissionRequest | None:
        parked = self._session.parked
        relayed = None if parked is None else over_the_wire(parked)
        assert relayed is None or isinstance(relayed, PermissionRequest)
        return relayed

    async def start(self) -> None:
        await self._session.start()

    async def close(self, reason: str = "closed") -> None:
        await self._session.close(reason)

    async def _relay(self, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
        async for event in events:
            yield over_the_wire(event)

    def submit(self, text: str, *, images: Sequence[ImagePart] = ()) -> AsyncIterator[Event]:
        return self._relay(self._session.submit(text, images=images))

    def events(self) -> AsyncIterator[Event]:
        return self._relay(self._session.events())

    async def run(self, text: str) -> RunResult:
        return await self._session.run(text)

    def steer(self, text: str) -> None:
        self._session.steer(text)

    def follow_up(self, text: str) -> None:
        self._session.follow_up(text)

    def interrupt(self) -> None:
        self._session.interrupt()

    def compact(self, focus: str | None = None) -> None:
        self._session.compact(focus)

    def decide(
        self, request_id: str, decision: Decision | str, message: str = "", *, agent_id: str = ""
    ) -> None:
        kind = decision.kind if isinstance(decision, Decision) else decision
        self._session.decide(request_id, json.loads(json.dumps(kind)), message, agent_id=agent_id)

    async def apply(self, command: Command) -> Reply:
        return await self._session.apply(
            command_from_json(json.loads(json.dumps(to_json(command))))
        )


async def host(session: SessionLike) -> list[tuple[str, int]]:
    """What a front end does: submit, answer each permission request, read to the end."""
    seen: list[tuple[str, int]] = []
    await session.start()
    async for event in session.submit("write the notes"):
        seen.append((event.kind, event.seq))
        if isinstance(event, PermissionRequest):
            assert session.state == "awaiting_permission"
            session.decide(event.request_id, "allow")
        if isinstance(event, ProcessingEnd):
            assert event.stop_reason == "completed"
    await session.close()
    assert session.state == "closed"
    return seen


def make_session() -> tuple[Session, MemoryEnvironment]:
    env = MemoryEnvironment()
    model = ScriptedModel([tool_calls(EDIT), text("written")])
    return Session(model, environment=env, config=config("default")), env


async def test_a_session_and_a_wire_stand_in_are_driven_alike() -> None:
    local, local_env = make_session()
    remote, remote_env = make_session()
    assert isinstance(local, SessionLike) and isinstance(WireSession(remote), SessionLike)
    seen_local = await host(local)
    seen_remote = await host(WireSession(remote))
    assert seen_local == seen_remote
    assert "permission_request" in dict(seen_local)
    assert [seq for _, seq in seen_local] == sorted({seq for _, seq in seen_local})
    assert local_env.files["notes.md"] == remote_env.files["notes.md"] == b"hello\n"


def test_what_lacks_a_command_is_not_session_like() -> None:
    class Partial:
        id = "x"
        state = "idle"

        def submit(self, text: str) -> None: ...

    assert not isinstance(Partial(), SessionLike)


def test_mypy_holds_session_to_the_protocol(tmp_path: Path) -> None:
    """A ``Session`` passes where a ``SessionLike`` is wanted; a class without ``decide``
    does not (so the check is real)."""
    pytest.importorskip("mypy")
    snippet = tmp_path / "host.py"
    snippet.write_text(
        "from taor.agent.session import Session\n"
        "from taor.agent.session_like import SessionLike\n"
        "\n"
        "def remote(session: Session) -> SessionLike:\n"
        "    return session\n"
        "\n"
        "class NoAnswers:\n"
        "    id = 'x'\n"
        "\n"
        "def broken(session: NoAnswers) -> SessionLike:\n"
        "    return session\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(snippet)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "host.py:11:" in errors[0], done.stdout
