"""Context compaction: what is SENT shrinks, what is recorded stays whole.

- ``elide_old_outputs``: old tool outputs replaced by a stub (cheap, no model call).
- ``summarize_middle``: the middle of the history replaced by an LLM summary framed as
  background, keeping the first user message, the pinned items and the recent turns; chunked so
  each summarization request fits the window.
- ``trim_to_cap``: a hard cap on messages, the oldest after the first dropped.
- ``Compactor``: ``needed(tokens, window)`` and ``compact(...)`` -> ``CompactionResult``,
  cheapest step first; a view that is not smaller, or not valid, is never returned.
- ``view_problems``: the transcript validator's rules applied to a view.

The session installs a result with ``Transcript.replace_view(result.messages)``; turns appended
later extend the compacted view, and the JSONL record keeps every turn.
"""

from taor.agent.context.compaction.compactor import CompactionResult, Compactor, Method
from taor.agent.context.compaction.elide import elide_old_outputs, elision_stub
from taor.agent.context.compaction.pinned import (
    PINNED_HEADER,
    SUMMARY_HEADER,
    Pinned,
    files_changed,
)
from taor.agent.context.compaction.summarize import Summarizer, SummaryOutcome, summarize_middle
from taor.agent.context.compaction.trim import trim_to_cap
from taor.agent.context.compaction.view import view_problems

__all__ = [
    "PINNED_HEADER",
    "SUMMARY_HEADER",
    "CompactionResult",
    "Compactor",
    "Method",
    "Pinned",
    "Summarizer",
    "SummaryOutcome",
    "elide_old_outputs",
    "elision_stub",
    "files_changed",
    "summarize_middle",
    "trim_to_cap",
    "view_problems",
]
