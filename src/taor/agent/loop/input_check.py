"""An input too big for the model's context window is refused before it is sent (and before
it is recorded): no compaction could make room for it, and the provider would refuse it anyway,
after the upload. The size is estimated the way the context ledger estimates every request,
for the input alone: an estimate is rough, so only an input that cannot fit by itself is
refused (one that fits with nothing else is left to compaction and the provider)."""

from __future__ import annotations

from taor.agent.events import ErrorEvent
from taor.agent.runtime import Runtime
from taor.errors import InputTooLargeError
from taor.llm.types import Message


def oversized(rt: Runtime, prompt: str) -> ErrorEvent | None:
    """The error that refuses ``prompt``, or None when it fits the window."""
    window = rt.tokens.context_window
    if not window:
        return None
    tokens = rt.tokens.estimate([Message.user(prompt)])
    if tokens <= window:
        return None
    error = InputTooLargeError(
        f"the input is too large for the model: about {tokens:,} tokens ({len(prompt):,} "
        f"characters), and {rt.model.model_id}'s context window is {window:,} tokens; "
        "shorten it, or point to a file instead of pasting it"
    )
    return ErrorEvent(message=str(error), error_type=type(error).__name__)
