"""The transcript: turns, the messages derived from them, and the validator.

``Transcript`` keeps the turns and, incrementally, the messages a request is built from, so a
long session does not re-derive its whole history on every call. Derivation: user turns, tool
results and steering are user-side and merge into one message when adjacent (tool results
first), which every provider accepts; notices are not sent. ``replace_view`` installs a
compacted view (``taor.agent.context.compaction``) to send instead; the turns stay whole.

``problems(turns)`` lists every broken rule: a tool call without exactly one result in call
order, a result that answers nothing, a tool-call id used twice (or empty), an empty assistant
turn, two assistant turns in a row, a history that does not start with the user.
``repair(turns)`` fixes what can be fixed (synthetic results for calls without one, empty turns
dropped, a repeated call id renamed); the loop runs ``check`` before each request.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence

from taor.agent.record.call_ids import unique_calls
from taor.agent.record.turns import (
    AssistantTurn,
    NoticeTurn,
    SteeringTurn,
    ToolResultsTurn,
    Turn,
    UserTurn,
)
from taor.errors import TranscriptError
from taor.llm.types import Message, Part, TextPart, ThinkingPart, ToolResultPart, tool_result


def synthetic_result(call_id: str, name: str, why: str) -> ToolResultPart:
    """The result of a call that never ran or was stopped: ``why`` is interrupted (by the
    person or the host), stopped (the process carrying the session ended: a crash, a kill, a
    lost machine), time_limit or cancelled."""
    text = {
        "interrupted": "Interrupted by the user before this tool call finished; it may have "
        "run partly. Check its effects before repeating it.",
        "stopped": "Interrupted: the process running this session ended before this tool call "
        "finished; it may have run partly. Check its effects before repeating it.",
        "time_limit": "Stopped at the time limit before this tool call finished; it may have "
        "run partly. Check its effects before repeating it.",
        "cancelled": "Cancelled: this tool call was not run.",
    }.get(why, why)
    return tool_result(call_id, text, is_error=True, name=name)


def _user_side(turn: Turn) -> Message | None:
    if isinstance(turn, UserTurn):
        return Message(role="user", parts=turn.content)
    if isinstance(turn, ToolResultsTurn):
        return Message(role="user", parts=turn.results)
    if isinstance(turn, SteeringTurn):
        return Message(role="user", parts=(TextPart(text=turn.text),))
    return None


def _merge(first: Message, second: Message) -> Message:
    results = [p for p in (*first.parts, *second.parts) if isinstance(p, ToolResultPart)]
    rest = [p for p in (*first.parts, *second.parts) if not isinstance(p, ToolResultPart)]
    parts: tuple[Part, ...] = (*results, *rest)
    return Message(role="user", parts=parts)


def _is_empty(message: Message) -> bool:
    return not any(
        (p.text.strip() if isinstance(p, TextPart) else not isinstance(p, ThinkingPart))
        for p in message.parts
    )


class _Validator:
    """The rules, checked one turn at a time (so a long session checks only what is new)."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.pending: list[tuple[str, str]] = []  # (id, name) of the last turn's calls
        self.call_ids: set[str] = set()  # of every call so far: ids pair calls and results
        self.last_sent = ""
        self.number = 0

    def step(self, turn: Turn) -> None:
        self.number += 1
        if isinstance(turn, NoticeTurn):
            return
        if self.pending and not isinstance(turn, ToolResultsTurn):
            self.found.append(f"turn {self.number}: the tool calls before it have no results")
            self.pending = []
        if isinstance(turn, AssistantTurn):
            self._assistant(turn)
            return
        if isinstance(turn, ToolResultsTurn):
            ids = [r.call_id for r in turn.results]
            expected = [call_id for call_id, _ in self.pending]
            if ids != expected:
                self.found.append(
                    f"turn {self.number}: results {ids} do not answer the calls {expected} in order"
                )
            self.pending = []
        self.last_sent = "user"

    def _assistant(self, turn: AssistantTurn) -> None:
        if _is_empty(turn.message):
            self.found.append(f"turn {self.number}: empty assistant turn")
        if self.last_sent != "user":
            where = "in a row" if self.last_sent else "at the start of the history"
            self.found.append(f"turn {self.number}: assistant turn {where}")
        self.pending = [(c.id, c.name) for c in turn.message.tool_calls]
        for call_id, _ in self.pending:
            if not call_id or call_id in self.call_ids:
                self.found.append(f"turn {self.number}: tool-call id {call_id!r} is not unique")
            self.call_ids.add(call_id)
        self.last_sent = "assistant"


def problems(turns: Sequence[Turn]) -> list[str]:
    """Every rule the turns break, as sentences (empty when the transcript is valid)."""
    validator = _Validator()
    for turn in turns:
        validator.step(turn)
    if validator.pending:
        validator.found.append("the last assistant turn's tool calls have no results")
    return validator.found


def repair(turns: Sequence[Turn], why: str = "cancelled") -> list[Turn]:
    """A valid copy: missing results added (``why``), extra results dropped, empty turns gone,
    and a repeated tool-call id renamed (with its result, matched in order)."""
    fixed: list[Turn] = []
    pending: list[tuple[str, str, str]] = []  # (id, name, the id its result carries)
    taken: set[str] = set()

    def settle(turn: ToolResultsTurn | None = None) -> None:
        given: dict[str, deque[ToolResultPart]] = defaultdict(deque)
        for result in turn.results if turn is not None else ():
            given[result.call_id].append(result)
        if pending:
            answered = tuple(
                dataclasses.replace(given[old].popleft(), call_id=call_id)
                if given[old]
                else synthetic_result(call_id, name, why)
                for call_id, name, old in pending
            )
            if turn is not None and answered == turn.results:
                fixed.append(turn)  # a valid turn is kept as it is (timestamp and all)
            else:
                fixed.append(ToolResultsTurn(results=answered))
        pending.clear()

    for turn in turns:
        if isinstance(turn, ToolResultsTurn):
            settle(turn)
            continue
        if isinstance(turn, NoticeTurn):
            fixed.append(turn)
            continue
        settle()
        if isinstance(turn, AssistantTurn):
            if _is_empty(turn.message):
                continue
            before = [call.id for call in turn.message.tool_calls]
            message = unique_calls(turn.message, taken)
            if message is not turn.message:
                turn = dataclasses.replace(turn, message=message)
            for call, old in zip(message.tool_calls, before, strict=True):
                pending.append((call.id, call.name, old))
                taken.add(call.id)
        fixed.append(turn)
    settle()
    return fixed


class Transcript:
    """The turns of a session and the messages derived from them, kept in step."""

    def __init__(self, turns: Iterable[Turn] = ()) -> None:
        self.turns: list[Turn] = []
        self._messages: list[Message] = []
        self._last_user_side = False
        self._before_input: tuple[int, Message | None, bool] | None = None
        self._validator = _Validator()
        for turn in turns:
            self.append(turn)

    def append(self, turn: Turn) -> None:
        self.turns.append(turn)
        self._validator.step(turn)
        self._derive(turn)

    def replace_view(self, messages: Sequence[Message], upto: int | None = None) -> None:
        """Send ``messages`` for ``turns[:upto]`` (all by default); later turns extend them."""
        self._messages = list(messages)
        self._last_user_side = bool(messages) and messages[-1].role != "assistant"
        self._before_input = None
        for turn in self.turns[len(self.turns) if upto is None else upto :]:
            self._derive(turn)

    def _derive(self, turn: Turn) -> None:
        if isinstance(turn, NoticeTurn) and turn.refused_input:
            self._withdraw_input()
            return
        if isinstance(turn, UserTurn):  # what to go back to if the provider refuses it
            last = self._messages[-1] if self._last_user_side else None
            self._before_input = (len(self._messages), last, self._last_user_side)
        if isinstance(turn, AssistantTurn):
            self._messages.append(turn.message)
            self._last_user_side = False
            return
        message = _user_side(turn)
        if message is None:
            return
        if self._last_user_side:
            self._messages[-1] = _merge(self._messages[-1], message)
        else:
            self._messages.append(message)
        self._last_user_side = True

    def _withdraw_input(self) -> None:
        """The messages as they were before the last input: it was refused."""
        if self._before_input is None:  # compacted into a summary already: it stays
            return
        count, last, user_side = self._before_input
        self._before_input = None
        del self._messages[count:]
        if last is not None:
            self._messages[count - 1] = last
        self._last_user_side = user_side

    def messages(self) -> tuple[Message, ...]:
        return tuple(self._messages)

    def call_ids(self) -> set[str]:
        """The ids of every tool call so far (a new call must not reuse one)."""
        return self._validator.call_ids

    def pending_calls(self) -> list[tuple[str, str]]:
        """(id, name) of the calls of the last assistant turn that have no results yet."""
        return list(self._validator.pending)

    def problems(self) -> list[str]:
        return list(self._validator.found)

    def check(self) -> None:
        """The validator's verdict before a request: ``TranscriptError`` if it must not be sent."""
        found = list(self._validator.found)
        if self._validator.pending:
            found.append("the last assistant turn's tool calls have no results")
        if not self._last_user_side:
            found.append("the request would not end with a user-side message")
        if found:
            raise TranscriptError("The transcript is not valid: " + "; ".join(found))
