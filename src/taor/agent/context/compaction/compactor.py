"""``Compactor``: when to compact, and the steps, cheapest first.

``needed(tokens, window)``: the estimate has reached ``threshold`` (85%) of the window.
``compact(messages, ...)`` returns a ``CompactionResult``:

1. ``elide``: outputs of tool rounds older than the last ``keep_rounds`` become stubs. Enough
   when the estimate falls to ``target`` (50%) of the window, so the next turns do not compact
   again at once.
2. ``summary``: the middle summarized (see ``summarize``); the recent turns kept verbatim are the
   longest tail within ``recent_share`` of the window or a third of the (elided) view, whichever
   is less. The middle is summarized from the full
   outputs, the recent turns come from the elided view. If the summary is abandoned, the elided
   (or trimmed) view is the result when there is one, with the reason as a warning.
3. ``trim``: more than ``max_messages`` messages: the oldest after the first are dropped.

Nothing smaller: the result is ``abandoned`` (the reason says why), with the input unchanged.
Every view is checked with ``view_problems`` before it is returned; ``tokens_after`` is
``tokens_before`` less the estimated saving, so it counts the system prompt and tools the same
way ``tokens_before`` did.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from taor._records import frozen
from taor.agent.context.compaction.elide import elide_old_outputs
from taor.agent.context.compaction.pinned import Pinned, Written, builtin_written, files_changed
from taor.agent.context.compaction.summarize import Summarizer, SummaryOutcome, summarize_middle
from taor.agent.context.compaction.trim import trim_to_cap
from taor.agent.context.compaction.view import chars_of, view_problems
from taor.agent.record.turns import Turn
from taor.llm.model import Model
from taor.llm.retry import RetryPolicy, Sleep
from taor.llm.types import Message, Request

Method = Literal["elide", "summary", "trim"]


@frozen
class CompactionResult:
    messages: tuple[Message, ...]
    tokens_before: int
    tokens_after: int
    method: Method | None = None  # None when abandoned
    warnings: tuple[str, ...] = ()
    abandoned: str = ""  # why nothing changed ("" when compacted)

    @property
    def compacted(self) -> bool:
        return not self.abandoned


@frozen
class Compactor:
    threshold: float = 0.85
    target: float = 0.5
    keep_rounds: int = 3
    recent_share: float = 0.25
    summary_tokens: int = 2000
    max_messages: int = 1000
    chars_per_token: float = 4.0  # the ledger's 4 divided by its calibration ratio
    instructions: str = ""  # pinned: project instructions
    plan: str = ""  # pinned: a plan or brief given by the host
    retry: RetryPolicy | None = None
    sleep: Sleep | None = None
    written: Written = builtin_written  # the files a recorded call writes

    def needed(self, tokens: int, window: int) -> bool:
        return window > 0 and tokens >= self.threshold * window

    async def compact(
        self,
        messages: Sequence[Message],
        *,
        model: Model,
        tokens_before: int,
        window: int,
        focus: str | None = None,
        turns: Iterable[Turn] = (),
        options: Request | None = None,
        summary: bool = False,
    ) -> CompactionResult:
        """``turns``: the full record (for the files changed so far); ``options``: the
        session's request (model id and provider options for the summary requests);
        ``summary`` (or a ``focus``): summarize even when eliding is enough, as a compaction
        the user asked for."""
        start = tuple(messages)
        warnings: list[str] = []
        elided = elide_old_outputs(start, self.keep_rounds)
        view, method = self._smaller(start, elided, "elide")
        reason = ""
        if self._tokens(tokens_before, start, view) > self.target * window or summary or focus:
            files = files_changed((*turns, *start), self.written)
            outcome = await self._summarize(start, elided, model, window, focus, options, files)
            if outcome.messages is not None:
                view, method = list(outcome.messages), "summary"
            else:
                reason = f"No summary: {outcome.reason}."
                warnings.append(reason)
        trimmed, warning = trim_to_cap(view, self.max_messages)
        if warning:
            view, method = trimmed, "trim"
            warnings.append(warning)
        if method is None:
            return self._abandoned(start, tokens_before, reason or "Nothing could be shrunk.")
        found = view_problems(view)
        if found:
            return self._abandoned(start, tokens_before, "Invalid view: " + "; ".join(found))
        return self._result(start, view, method, tokens_before, window, warnings)

    def _result(
        self,
        start: Sequence[Message],
        view: Sequence[Message],
        method: Method,
        tokens_before: int,
        window: int,
        warnings: list[str],
    ) -> CompactionResult:
        """The new view, with a warning when it is still above the threshold."""
        after = self._tokens(tokens_before, start, view)
        if after > self.threshold * window:
            warnings.append(
                f"The conversation is still about {after} tokens after compacting, above "
                f"{self.threshold:.0%} of the {window}-token window."
            )
        return CompactionResult(
            messages=tuple(view),
            tokens_before=tokens_before,
            tokens_after=after,
            method=method,
            warnings=tuple(warnings),
        )

    async def _summarize(
        self,
        start: Sequence[Message],
        elided: Sequence[Message],
        model: Model,
        window: int,
        focus: str | None,
        options: Request | None,
        files: tuple[str, ...],
    ) -> SummaryOutcome:
        summarizer = Summarizer(
            model=model,
            window=window,
            summary_tokens=self.summary_tokens,
            chars_per_token=self.chars_per_token,
            focus=focus,
            options=options,
            retry=self.retry,
            sleep=self.sleep,
        )
        pinned = Pinned(instructions=self.instructions, plan=self.plan, files=files)
        third = chars_of(elided) / self.chars_per_token / 3
        recent = int(min(window * self.recent_share, third))
        return await summarize_middle(
            start, summarizer, pinned=pinned, recent_tokens=recent, kept=elided
        )

    def _smaller(
        self, start: Sequence[Message], candidate: list[Message], method: Method
    ) -> tuple[list[Message], Method | None]:
        if chars_of(candidate) < chars_of(start):
            return candidate, method
        return list(start), None

    def _tokens(self, before: int, start: Sequence[Message], view: Sequence[Message]) -> int:
        saved = (chars_of(start) - chars_of(view)) / self.chars_per_token
        return max(round(before - saved), 0)

    def _abandoned(
        self, start: tuple[Message, ...], tokens_before: int, reason: str
    ) -> CompactionResult:
        return CompactionResult(
            messages=start,
            tokens_before=tokens_before,
            tokens_after=tokens_before,
            abandoned=reason,
        )
