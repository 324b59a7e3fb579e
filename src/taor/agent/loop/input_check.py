"""An input too big for the model's context window is refused before it is sent (and before
it is recorded): no compaction could make room for it, and the provider would refuse it anyway,
after the upload. The size is estimated the way the context ledger estimates every request,
for the input alone: an estimate is rough, so only an input that cannot fit by itself is
refused (one that fits with nothing else is left to compaction and the provider)."""

from __future__ import annotations

from taor.agent.context.ledger import TokenLedger
from taor.agent.events import ErrorEvent
from taor.errors import InputTooLargeError
from taor.llm.types import Message


def oversized(tokens: TokenLedger, model_id: str, prompt: str) -> ErrorEvent | None:
    """The error that refuses ``prompt`` (to ``model_id``, whose window and estimates
    ``tokens`` keeps), or None when it fits the window."""
    window = tokens.context_window
    if not window:
        return None
    estimate = tokens.estimate([Message.user(prompt)])
    if estimate <= window:
        return None
    error = InputTooLargeError(
        f"the input is too large for the model: about {estimate:,} tokens ({len(prompt):,} "
        f"characters), and {model_id}'s context window is {window:,} tokens; "
        "shorten it, or point to a file instead of pasting it"
    )
    return ErrorEvent(message=str(error), error_type=type(error).__name__)
