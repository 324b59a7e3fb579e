"""A request view (a list of messages) as the compactor sees it: sizes, rounds, safe cuts, and
the transcript validator's verdict on it.

A view is what ``Transcript.messages()`` derives: user-side messages (user text, steering, tool
results first) alternating with assistant messages. ``view_problems`` converts a view back to
turns and runs the transcript's own validator (every call answered once, in order, in the next
message; no empty assistant message; no assistant first or twice in a row), then adds the rules
that only a merged view can break (two user-side messages in a row).

A *safe cut* is an index ``k`` whose message is an assistant message: ``view[k:]`` then starts
with a model turn whose calls are answered inside ``view[k:]``, and ``view[:k]`` ends with the
user-side message that answered everything before it, so no call is separated from its result.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from taor.agent.context.ledger import estimate_chars
from taor.agent.record.transcript import problems
from taor.agent.record.turns import AssistantTurn, ToolResultsTurn, Turn, UserTurn
from taor.llm.types import ImagePart, Message, TextPart, ToolResultPart


def is_user_side(message: Message) -> bool:
    return message.role != "assistant"


def chars_of(messages: Sequence[Message]) -> int:
    """The character weight of a view, as the token ledger counts it."""
    return sum(estimate_chars(m) for m in messages)


def results_of(message: Message) -> list[ToolResultPart]:
    return [p for p in message.parts if isinstance(p, ToolResultPart)]


def safe_cuts(messages: Sequence[Message]) -> list[int]:
    """Indices (ascending, never 0) where the view may be cut without splitting a call."""
    return [i for i, m in enumerate(messages) if i > 0 and not is_user_side(m)]


def to_turns(messages: Sequence[Message]) -> list[Turn]:
    """The view as turns (a user-side message: its results, then its other content)."""
    turns: list[Turn] = []
    for message in messages:
        if not is_user_side(message):
            turns.append(AssistantTurn(message=message, timestamp=0.0))
            continue
        results = tuple(results_of(message))
        content = tuple(p for p in message.parts if isinstance(p, TextPart | ImagePart))
        if results:
            turns.append(ToolResultsTurn(results=results, timestamp=0.0))
        if content or not results:
            turns.append(UserTurn(content=content, timestamp=0.0))
    return turns


def view_problems(messages: Sequence[Message]) -> list[str]:
    """Every rule the view breaks (empty when a provider would accept it)."""
    found = problems(to_turns(messages))
    for number, (first, second) in enumerate(pairwise(messages), 2):
        if is_user_side(first) and is_user_side(second):
            found.append(f"message {number}: two user-side messages in a row")
    return found
