"""The last resort: a hard cap on the number of messages, trimming the oldest.

The first message (the original request, with any pinned items and summary) always stays. The
oldest messages after it are dropped up to a safe cut (the view goes on with an assistant
message, so every call kept still has its result), and the first message says how many were
dropped, so the model knows the history has a gap.
"""

from __future__ import annotations

from collections.abc import Sequence

from taor.agent.context.compaction.view import safe_cuts
from taor.llm.types import Message, TextPart

GAP_NOTE = (
    "[{count} earlier messages were dropped here to keep the conversation under the limit of "
    "{limit} messages; what they said is lost. Re-read files or re-run commands if you need it.]"
)


def trim_to_cap(messages: Sequence[Message], max_messages: int) -> tuple[list[Message], str]:
    """At most ``max_messages`` (>= 2) messages, and a warning ("" when nothing was dropped)."""
    if len(messages) <= max_messages:
        return list(messages), ""
    # keep the first message, the note, and a tail starting at a safe cut
    cuts = [k for k in safe_cuts(messages) if len(messages) - k + 1 <= max(max_messages, 2)]
    if not cuts:
        return list(messages), ""
    cut = cuts[0]
    dropped = cut - 1
    note = GAP_NOTE.format(count=dropped, limit=max_messages)
    first = messages[0]
    head = Message(
        role=first.role,
        parts=(*first.parts, TextPart(text=note)),
        provider_state=first.provider_state,
    )
    warning = (
        f"Dropped the {dropped} oldest messages after the first to stay under the cap of "
        f"{max_messages} messages."
    )
    return [head, *messages[cut:]], warning
