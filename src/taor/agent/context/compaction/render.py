"""The middle of a history as plain text for the summarizer, cut into chunks that fit.

Each part becomes one entry: ``USER: ...``, ``ASSISTANT: ...``, ``ASSISTANT CALLED name {json}``,
``RESULT OF name (error): ...``; thinking is left out (it may be redacted or signed, and it is
the model's scratch work) and an image is ``[image]``. Tool outputs are rendered whole (the
summarizer must see what the model saw, not a display cut); an entry longer than a chunk is
split into pieces marked ``(continued)``. ``chunks`` packs the entries greedily, in order, into
texts of at most ``limit`` characters.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import assert_never

from taor.agent.context.compaction.view import is_user_side
from taor.llm.types import (
    ImagePart,
    Message,
    Part,
    ServerToolPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

_CONTINUED = "(continued) "


def entries(messages: Sequence[Message]) -> list[str]:
    """One text per part worth summarizing, in order."""
    found: list[str] = []
    for message in messages:
        who = "USER" if is_user_side(message) else "ASSISTANT"
        found.extend(e for p in message.parts if (e := _entry(who, p)))
    return found


def _entry(who: str, part: Part) -> str:
    match part:
        case TextPart(text=text):
            return f"{who}: {text}" if text.strip() else ""
        case ImagePart():
            return f"{who}: [image]"
        case ThinkingPart():
            return ""
        case ToolCallPart():
            arguments = part.raw_arguments or json.dumps(dict(part.arguments), default=repr)
            return f"ASSISTANT CALLED {part.name} {arguments}"
        case ServerToolPart():  # its result is the provider's, often encrypted: the use says it
            if part.is_result:
                return ""
            arguments = json.dumps(part.block.get("input") or {}, default=repr)
            return f"ASSISTANT USED THE PROVIDER'S {part.block.get('name', 'tool')} {arguments}"
        case ToolResultPart():
            flag = " (error)" if part.is_error else ""
            body = "".join(p.text if isinstance(p, TextPart) else "[image]" for p in part.content)
            return f"RESULT OF {part.name or 'the call'}{flag}: {body}"
        case _:
            assert_never(part)


def _pieces(entry: str, limit: int) -> Iterator[str]:
    if len(entry) <= limit:
        yield entry
        return
    size = max(limit - len(_CONTINUED), 1)
    yield entry[:limit]
    for start in range(limit, len(entry), size):
        yield _CONTINUED + entry[start : start + size]


def chunks(texts: Sequence[str], limit: int) -> list[str]:
    """``texts`` joined by blank lines into pieces of at most ``limit`` (>= 1) characters."""
    packed: list[str] = []
    current = ""
    for entry in texts:
        for piece in _pieces(entry, limit):
            joined = f"{current}\n\n{piece}" if current else piece
            if len(joined) <= limit:
                current = joined
                continue
            packed.append(current)
            current = piece
    if current:
        packed.append(current)
    return packed
