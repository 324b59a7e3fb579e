"""Helpers for the scripted session tests: build a session, drive a cycle, check the record."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import Event, PermissionRequest
from taor.agent.record.transcript import problems
from taor.agent.record.turns import ToolResultsTurn
from taor.agent.session import Session
from taor.llm.types import Message, Request, ToolResultPart

Answer = Callable[[PermissionRequest], object]


def config(mode: str = "bypass", **permissions: Any) -> SessionConfig:
    return SessionConfig(permissions=PermissionConfig(mode=mode, **permissions))  # type: ignore[arg-type]


async def drive(session: Session, text: str, answer: Answer | None = None) -> list[Event]:
    """Run one cycle through ``submit``; ``answer`` settles each permission request (it may
    call ``decide``, ``interrupt`` or even ``close`` and ``await``)."""
    events: list[Event] = []
    async for event in session.submit(text):
        events.append(event)
        if isinstance(event, PermissionRequest) and answer is not None:
            outcome = answer(event)
            if hasattr(outcome, "__await__"):
                await outcome
    return events


def kinds(events: Sequence[Event]) -> list[str]:
    return [event.kind for event in events]


def of_kind(events: Sequence[Event], kind: str) -> list[Any]:
    return [event for event in events if event.kind == kind]


def assert_valid(session: Session) -> None:
    assert problems(session.history) == []


def last_results(session: Session) -> tuple[ToolResultPart, ...]:
    turns = [t for t in session.history if isinstance(t, ToolResultsTurn)]
    assert turns, "no tool results in the history"
    return turns[-1].results


def result_text(result: ToolResultPart) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def sent_results(request: Request) -> list[ToolResultPart]:
    """The tool results of the last user-side message of a request."""
    message: Message = request.messages[-1]
    return [part for part in message.parts if isinstance(part, ToolResultPart)]
