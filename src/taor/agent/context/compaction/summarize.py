"""The summary step: the middle of the history replaced by an LLM summary framed as background.

The view keeps its first user message, then the pinned items and the summary (one user message,
``pinned.head_message``), then the recent turns verbatim from an assistant message on (a safe
cut: no call is separated from its result). The recent turns are the longest tail within
``recent_tokens``; at least the last round is kept.

The summarization request fits the window: its input (instructions, the summary so far, one
chunk of the middle) plus ``summary_tokens`` of output stays under 90% of ``window``. A middle
too big for one request is summarized chunk by chunk, each request carrying the summary so far,
so the last answer covers the whole middle (an earlier summary in the first message is the first
thing it reads). A context-length error from the summarizer halves the chunk size and starts
over, twice at most. Nothing is changed (the outcome says why) when the window is too small to
summarize in, the summarizer fails or says nothing, or the result is not smaller than ``kept``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from taor._records import frozen
from taor.agent.context.compaction.pinned import Pinned, head_message, split_head
from taor.agent.context.compaction.render import chunks, entries
from taor.agent.context.compaction.view import chars_of, safe_cuts
from taor.agent.context.ledger import estimate_chars
from taor.errors import ContextLengthError, ProviderError
from taor.llm.model import Model, complete
from taor.llm.retry import RetryPolicy, Sleep
from taor.llm.types import Message, Request, ToolChoice

SUMMARY_SYSTEM = (
    "You write the working memory of a coding agent whose conversation grew too long. You are "
    "given part of that conversation as a transcript (and the summary written so far, if any). "
    "Write one summary that replaces everything you were given: the goal and the user's "
    "requests; decisions and their reasons; what was done (files created or changed, commands "
    "run and their outcomes); what was learned (errors and their causes, conventions and "
    "commands that work, things that failed); and what remains to do. Keep exact file paths, "
    "names, commands and error messages that matter. Write plain text for the agent itself; do "
    "not address the user, do not ask questions, do not call tools."
)
WINDOW_SHARE = 0.9  # of the window a summarization request (input + output) may use
MIN_CHUNK_CHARS = 400
SHRINK_ATTEMPTS = 3


@frozen
class SummaryOutcome:
    """``messages`` is the new view, or None with ``reason`` saying why nothing changed."""

    messages: tuple[Message, ...] | None
    reason: str = ""


@frozen
class Summarizer:
    model: Model
    window: int
    summary_tokens: int = 2000
    chars_per_token: float = 4.0
    focus: str | None = None
    options: Request | None = None  # the session's request: model id, provider options, ...
    retry: RetryPolicy | None = None
    sleep: Sleep | None = None


async def summarize_middle(
    messages: Sequence[Message],
    summarizer: Summarizer,
    *,
    pinned: Pinned | None = None,
    recent_tokens: int,
    kept: Sequence[Message] | None = None,
) -> SummaryOutcome:
    """Summarize ``messages[1:k]``; the recent turns ``[k:]`` come from ``kept`` (the same
    view, tool outputs possibly elided; ``messages`` when not given)."""
    kept = messages if kept is None else kept
    cut = _cut(kept, recent_tokens * summarizer.chars_per_token)
    _, earlier = split_head(messages[0])
    texts = ([f"EARLIER SUMMARY: {earlier}"] if earlier else []) + entries(messages[1 : cut or 1])
    if cut is None or not texts:
        return SummaryOutcome(messages=None, reason="there is no middle to summarize")
    summary, reason = await _summarize(texts, summarizer)
    if summary is None:
        return SummaryOutcome(messages=None, reason=reason or "the summarizer returned no text")
    view = (head_message(messages[0], pinned or Pinned(), summary), *kept[cut:])
    if chars_of(view) >= chars_of(kept):
        return SummaryOutcome(
            messages=None, reason="the summary would not make the history smaller"
        )
    return SummaryOutcome(messages=view)


def _cut(messages: Sequence[Message], budget_chars: float) -> int | None:
    """The earliest safe cut (after message 1) whose tail fits the budget; else the last."""
    cuts = [k for k in safe_cuts(messages) if k >= 2]
    if not cuts:
        return None
    allowed = set(cuts)
    tail = 0
    best = cuts[-1]
    for k in range(len(messages) - 1, cuts[0] - 1, -1):
        tail += estimate_chars(messages[k])
        if tail > budget_chars:
            break
        if k in allowed:
            best = k
    return best


async def _summarize(texts: list[str], s: Summarizer) -> tuple[str | None, str]:
    """The summary of ``texts``, or None and why."""
    input_chars = (s.window * WINDOW_SHARE - s.summary_tokens) * s.chars_per_token
    overhead = len(SUMMARY_SYSTEM) + len(_prompt("", "-", 99, 99, s.focus)) - 1
    limit = int(input_chars) - overhead - _summary_chars(s)
    for attempt in range(SHRINK_ATTEMPTS):
        size = limit >> attempt
        if size < MIN_CHUNK_CHARS:
            return None, f"the {s.window}-token context window is too small to summarize in"
        try:
            return await _chain(chunks(texts, size), s), ""
        except ContextLengthError:
            continue
        except ProviderError as error:
            return None, f"the summary request failed: {error}"
    return None, "the summary requests did not fit the context window"


async def _chain(parts: list[str], s: Summarizer) -> str | None:
    summary = ""
    for number, chunk in enumerate(parts, 1):
        prompt = _prompt(chunk, summary, number, len(parts), s.focus)
        response = await complete(s.model, _request(prompt, s), retry=s.retry, sleep=s.sleep)
        summary = response.text.strip()[: _summary_chars(s)]
        if not summary:
            return None
    return summary


def _summary_chars(s: Summarizer) -> int:
    return int(s.summary_tokens * s.chars_per_token)


def _prompt(chunk: str, summary: str, number: int, total: int, focus: str | None) -> str:
    so_far = f"The summary so far:\n<summary>\n{summary}\n</summary>\n\n" if summary else ""
    part = f" (part {number} of {total})" if total > 1 else ""
    what = "Update the summary so it also covers this part." if summary else "Summarize it."
    care = f"\nPay particular attention to: {focus.strip()}" if focus and focus.strip() else ""
    return (
        f"{so_far}The conversation to summarize{part}:\n<conversation>\n{chunk}\n"
        f"</conversation>\n\n{what}{care}"
    )


def _request(prompt: str, s: Summarizer) -> Request:
    base = s.options or Request(messages=())
    return replace(
        base,
        messages=(Message.user(prompt),),
        model=base.model or s.model.model_id,
        system=SUMMARY_SYSTEM,
        tools=(),
        tool_choice=ToolChoice(),
        max_tokens=s.summary_tokens,
        stop=(),
        reasoning_effort=None,
    )
