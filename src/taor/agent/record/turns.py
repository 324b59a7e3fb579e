"""The turns of a transcript: the single record of a session.

Requests are derived from turns (``taor.agent.record.transcript.to_messages``), never kept beside them.

- ``UserTurn``: what the user submitted (text, images).
- ``AssistantTurn``: one model response as received, with its opaque provider state (thinking
  signatures, reasoning items), its usage and why it finished. ``partial`` marks a response cut
  short by an interrupt: it keeps the text that arrived and no tool calls. ``cost`` is what
  the response cost (USD at the catalog's prices; None when unpriced); ``session_calls`` and
  ``session_cost`` are the session's model calls and cost up to it (compaction calls and the
  runs before a resume included), so the last assistant line of a file gives the totals
  without reading the rest (0 and None in transcripts written before they were recorded).
- ``ToolResultsTurn``: exactly one result per tool call of the assistant turn before it, in call
  order (the validator checks it); results are what the model saw (truncated).
- ``SteeringTurn``: a message for the model between rounds: from the host (``steer``), from
  loop detection, from a hook, or the request for a last summary at a limit. Sent as user text.
- ``NoticeTurn``: something that happened, for people reading the transcript (an interrupt, a
  compaction, a model switch, a permission question and its answer). Not sent to the model.

Every turn a session records carries ``seq``, the number of the last event the session had
published then (``taor.agent.events.Numbering``; None in transcripts written before events were
numbered, and in turns made by hand). A session that closes records the number of its last
event, ``session_end``, in a notice without text (``is_mark``); loading leaves such a mark out
of the turns. A resumed session numbers on from the highest number its transcript records; after
a crash, the events published after the last record were never recorded, and their numbers may
be given again.
"""

from __future__ import annotations

import time
from dataclasses import field
from typing import Literal, TypeAlias

from taor._records import frozen
from taor.agent.events import DecisionKind, PermissionRequest
from taor.llm.response import Usage
from taor.llm.types import ImagePart, Message, TextPart, ToolResultPart

SteeringSource = Literal["user", "loop_detection", "hook", "limit", "check"]


@frozen
class UserTurn:
    kind: Literal["user"] = "user"
    content: tuple[TextPart | ImagePart, ...]
    timestamp: float = field(default_factory=time.time)
    seq: int | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.content if isinstance(p, TextPart))


@frozen
class AssistantTurn:
    kind: Literal["assistant"] = "assistant"
    message: Message
    usage: Usage = field(default_factory=Usage)
    response_id: str | None = None
    provider: str = ""
    model: str = ""
    finish: str = "stop"
    partial: bool = False
    cost: float | None = None
    session_calls: int = 0
    session_cost: float | None = None
    timestamp: float = field(default_factory=time.time)
    seq: int | None = field(default=None, compare=False)


@frozen
class ToolResultsTurn:
    kind: Literal["tool_results"] = "tool_results"
    results: tuple[ToolResultPart, ...]
    timestamp: float = field(default_factory=time.time)
    seq: int | None = field(default=None, compare=False)


@frozen
class SteeringTurn:
    kind: Literal["steering"] = "steering"
    text: str
    source: SteeringSource = "user"
    timestamp: float = field(default_factory=time.time)
    seq: int | None = field(default=None, compare=False)


@frozen
class PermissionNote:
    """A permission request put to a person, as recorded (``taor.agent.record.parking``): the
    question (``request`` as the host was asked, with ``done``, the results of the round's
    calls that ended before it), or its ``answer``, recorded before the call runs."""

    request_id: str
    request: PermissionRequest | None = None
    done: tuple[ToolResultPart, ...] = ()
    answer: DecisionKind | None = None


@frozen
class NoticeTurn:
    """A note for people reading the record, never sent. ``refused_input``: the provider
    refused the input before it (and what was steered in with it) for its content; it stays
    in the record and is left out of every later request. ``permission``: a permission
    question or answer, so that a session waiting for a person can be parked and resumed."""

    kind: Literal["notice"] = "notice"
    text: str
    refused_input: bool = False
    permission: PermissionNote | None = None
    timestamp: float = field(default_factory=time.time)
    seq: int | None = field(default=None, compare=False)


Turn: TypeAlias = UserTurn | AssistantTurn | ToolResultsTurn | SteeringTurn | NoticeTurn

TURN_TYPES: tuple[type[Turn], ...] = Turn.__args__


def is_mark(turn: Turn) -> bool:
    """Whether ``turn`` only records the number of a session's last event (see above)."""
    return isinstance(turn, NoticeTurn) and not turn.text and turn.seq is not None
