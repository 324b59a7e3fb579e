"""Every tool call of a session has its own id.

Models (local ones especially) may give two calls of one response the same id, or reuse an id
from an earlier turn; paired by id, one call's result would then stand for both. Each call is
given an id no other call of the transcript has (``call_1`` then ``call_1_2``, ``call_1_3``:
letters, digits, ``_`` and ``-`` only, as Anthropic requires), before anything runs or is
recorded, and that id is what the transcript, the events and every later request carry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Set

from taor.llm.types import Message, Part, ToolCallPart


def unique_calls(message: Message, taken: Set[str]) -> Message:
    """``message`` with each call's id changed where it repeats an id in ``taken`` or an
    earlier call of the message (or is empty); the same object when nothing changes."""
    used = set(taken)
    parts: list[Part] = []
    for part in message.parts:
        if isinstance(part, ToolCallPart):
            fresh = fresh_id(part.id, used)
            used.add(fresh)
            if fresh != part.id:
                part = dataclasses.replace(part, id=fresh)
        parts.append(part)
    if all(new is old for new, old in zip(parts, message.parts, strict=True)):
        return message
    return dataclasses.replace(message, parts=tuple(parts))


def fresh_id(wanted: str, used: Set[str]) -> str:
    """``wanted`` when free, else ``wanted_2``, ``wanted_3``, ... (``call`` for an empty id)."""
    base = wanted or "call"
    if base not in used and wanted:
        return base
    number = 2
    while f"{base}_{number}" in used:
        number += 1
    return f"{base}_{number}"
