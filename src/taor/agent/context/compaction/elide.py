"""The cheap first step of compaction: old tool outputs become a short stub.

A *round* is an assistant message with tool calls and the user-side message that answers it.
Outputs of the last ``keep_rounds`` rounds stay; each older result keeps its call id, name and
error flag (so pairing and order are untouched) and its content becomes one line:
``[output of read_file elided to save context: 48213 characters; run it again if needed]``.
A result whose stub would not be shorter, or that already is a stub, is left as it is, and so
are the results in the last message (the model has not seen them yet).
"""

from __future__ import annotations

from collections.abc import Sequence

from taor.agent.context.compaction.view import is_user_side, results_of
from taor.llm.types import ImagePart, Message, Part, TextPart, ToolResultPart

STUB_PREFIX = "[output of "
STUB_SUFFIX = "run it again if needed]"


def elision_stub(name: str, chars: int, images: int = 0) -> str:
    extra = f" and {images} image{'s' if images != 1 else ''}" if images else ""
    return (
        f"{STUB_PREFIX}{name or 'a tool'} elided to save context: {chars} characters{extra}; "
        f"{STUB_SUFFIX}"
    )


def elide_old_outputs(messages: Sequence[Message], keep_rounds: int = 3) -> list[Message]:
    """A copy of ``messages`` with tool results older than the last ``keep_rounds`` rounds
    replaced by stubs; every message stays at its index (a result message stays a message)."""
    unseen = len(messages) - 1  # results the model has not answered yet are never elided
    rounds = [i for i, m in enumerate(messages) if is_user_side(m) and results_of(m)]
    old = set(rounds[: max(len(rounds) - max(keep_rounds, 0), 0)]) - {unseen}
    names = _call_names(messages)
    return [_elide_message(m, names) if i in old else m for i, m in enumerate(messages)]


def _call_names(messages: Sequence[Message]) -> dict[str, str]:
    return {c.id: c.name for m in messages if not is_user_side(m) for c in m.tool_calls}


def _elide_message(message: Message, names: dict[str, str]) -> Message:
    parts: list[Part] = [
        _elide(p, names.get(p.call_id, "")) if isinstance(p, ToolResultPart) else p
        for p in message.parts
    ]
    if all(new is old for new, old in zip(parts, message.parts, strict=True)):
        return message
    return Message(role=message.role, parts=tuple(parts), provider_state=message.provider_state)


def _elide(result: ToolResultPart, call_name: str) -> ToolResultPart:
    texts = [p.text for p in result.content if isinstance(p, TextPart)]
    images = sum(isinstance(p, ImagePart) for p in result.content)
    chars = sum(len(t) for t in texts)
    if len(texts) == 1 and _is_stub(texts[0]) and not images:
        return result
    stub = elision_stub(result.name or call_name, chars, images)
    if len(stub) >= chars and not images:
        return result
    return ToolResultPart(
        call_id=result.call_id,
        content=(TextPart(text=stub),),
        is_error=result.is_error,
        name=result.name,
        provider_state=result.provider_state,
    )


def _is_stub(text: str) -> bool:
    return text.startswith(STUB_PREFIX) and text.endswith(STUB_SUFFIX) and "\n" not in text
