"""The build's own events, beside the session's: the narration as a person reads it.

``narration``: a sentence-sized piece of what the model says (never one per token, never a whole
turn), ``new_paragraph`` when a blank line came before it; ``phase``: a named stage of the work
(a bold heading line); ``section_summary``: a milestone, the summary the model writes after a
group of work; ``build_report``: the report of the build, written to ``BUILD_REPORT.md``.
They are frozen records like the session's events (``seq``, ``timestamp``), encoded by the same
codec; ``decode`` reads one back, a session event or a build event.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from taor._records import frozen
from taor.agent.events import Event, EventBase


@frozen
class Narration(EventBase):
    kind: Literal["narration"] = "narration"
    text: str
    new_paragraph: bool = False


@frozen
class Phase(EventBase):
    kind: Literal["phase"] = "phase"
    name: str


@frozen
class SectionSummary(EventBase):
    kind: Literal["section_summary"] = "section_summary"
    text: str
    phase: str = ""  # the phase it closes, when one was named


@frozen
class BuildReportReady(EventBase):
    """``complete``: the plan was carried out to its end; else ``why`` it stopped.
    ``markdown`` is the report as written to ``path``; ``files`` the files the build created
    or changed that are in the workspace."""

    kind: Literal["build_report"] = "build_report"
    markdown: str
    complete: bool
    why: str = ""
    path: str = ""
    files: tuple[str, ...] = ()


BuildEvent: TypeAlias = Narration | Phase | SectionSummary | BuildReportReady
BUILD_EVENT_TYPES: tuple[type[BuildEvent], ...] = BuildEvent.__args__
BuildStreamEvent: TypeAlias = Event | BuildEvent


def decode(data: Any) -> BuildStreamEvent:
    """A session event or a build event from its JSON object (``TranscriptError`` when it
    is neither)."""
    from taor.agent.record.codec import event_from_json, from_json

    kind = data.get("kind") if isinstance(data, dict) else None
    for cls in BUILD_EVENT_TYPES:
        if kind == cls.__dataclass_fields__["kind"].default:
            return from_json(cls, data)
    return event_from_json(data)
