"""Compaction in the session: when it runs, what the host sees, what is recorded.

Three triggers, each through ``compact``:

- threshold: before each model call (``taor.agent.loop.model_call.call_model``), when the token estimate reaches
  ``config.compaction.threshold`` of the context window. An attempt that is abandoned, or that
  leaves the estimate above the threshold, is not repeated until the estimate has grown by
  ``REGROW`` of the window since (``rt.compaction_floor``): a history that cannot shrink is not
  summarized again on every call.
- overflow: a ``ContextLengthError`` from the model call compacts once (with a summary) and
  retries the call once. If nothing could be compacted, or the retry overflows too, the error
  ends the cycle as before: an error and a ``context_length`` warning, the session usable.
- request: ``Session.compact(focus)`` queues a focus in ``rt.compaction_requests``; it runs at
  the next safe point of a running cycle (before its next model call) or, between cycles, in
  the driver (``run_requested``). Requests waiting together run as one compaction.

A compaction sets state ``compacting`` while it runs, runs the ``before_compaction`` hooks (a
failing hook is reported with an error event; compaction still runs), installs the new view
with ``Transcript.replace_view`` and emits ``compaction`` (tokens before and after, then any
warning of the compactor); an abandoned one emits a ``warning`` (code ``compaction``) instead.
The summary requests' usage is counted in the session's usage (``usage`` events).

The record is untouched: the turns, and the JSONL store, keep the full history, plus a
``NoticeTurn`` "compacted: N -> M tokens (method)" that a reader of the file can see. A resumed
session rebuilds its view from the full record, so it starts uncompacted and compacts again at
the threshold: one more summary, nothing lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Literal

from taor.agent.config import SessionConfig
from taor.agent.context.compaction import CompactionResult, Compactor
from taor.agent.context.ledger import CHARS_PER_TOKEN
from taor.agent.context.metered import MeteredModel
from taor.agent.context.prompt.cache import SystemPrompt
from taor.agent.events import Compaction, ErrorEvent, Event, Interrupted, UsageEvent, WarningEvent
from taor.agent.parts import Compacting
from taor.agent.policy.hooks import run_before_compaction
from taor.agent.record.turns import NoticeTurn
from taor.llm.types import Request

Trigger = Literal["threshold", "overflow", "request"]
REGROW = 0.1  # of the window the estimate must grow by before a failed threshold try repeats


async def run_requested(rt: Compacting) -> AsyncGenerator[Event, None]:
    """Between cycles: the compaction the host asked for. An interrupt or close stops it with
    nothing changed; a bug is reported as an error event, never raised."""
    try:
        async for event in compact(rt, "request", focus=take_focus(rt.compaction_requests)):
            yield event
    except asyncio.CancelledError:
        if rt.cycle.stopping is None:
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        reason = rt.cycle.stop_notice
        yield Interrupted(reason=reason)
        yield WarningEvent(
            message=f"Compaction stopped ({reason}); nothing changed.", code="compaction"
        )
    except Exception as error:
        yield ErrorEvent(message=f"Internal error: {error!r}", error_type=type(error).__name__)


async def compact(
    rt: Compacting, trigger: Trigger, *, focus: str | None = None
) -> AsyncIterator[Event]:
    """Compact what is sent (see the module docstring); state ``compacting`` meanwhile."""
    rt.compacting = True
    try:
        tokens = _estimate(rt)
        failure = await run_before_compaction(rt.hooks, tokens)
        if failure is not None:
            yield ErrorEvent(message=failure.message, error_type=type(failure.error).__name__)
        model = MeteredModel(rt.model, rt.config.timeouts)
        result = await _compactor(rt).compact(
            rt.transcript.messages(),
            model=model,
            tokens_before=tokens,
            window=rt.context_window(),
            focus=focus,
            turns=rt.transcript.turns,
            options=_options(rt.model.model_id, rt.config),
            summary=trigger != "threshold",
        )
        rt.model_calls += model.calls
        for usage in model.usages:
            cost, total_cost = rt.usage.add(usage)
            yield UsageEvent(usage=usage, total=rt.usage.total, cost=cost, total_cost=total_cost)
        rt.compaction_floor = result.tokens_after + int(REGROW * rt.context_window())
        for event in await _install(rt, result):
            yield event
    finally:
        rt.compacting = False


async def _install(rt: Compacting, result: CompactionResult) -> list[Event]:
    if not result.compacted:
        return [
            WarningEvent(message=f"Compaction abandoned: {result.abandoned}", code="compaction")
        ]
    rt.transcript.replace_view(result.messages)
    before, after = result.tokens_before, result.tokens_after
    await rt.append(NoticeTurn(text=f"compacted: {before} -> {after} tokens ({result.method})"))
    events: list[Event] = [
        Compaction(
            tokens_before=before,
            tokens_after=after,
            message=f"Compacted the conversation ({result.method}): about {before} -> {after} "
            "tokens.",
        )
    ]
    events += [WarningEvent(message=w, code="compaction") for w in result.warnings]
    return events


def due(rt: Compacting, tokens: int) -> bool:
    """Whether the threshold trigger compacts before a request of ``tokens``."""
    config = rt.config.compaction
    if not config.enabled or tokens < rt.compaction_floor:
        return False
    return _compactor(rt).needed(tokens, rt.context_window())


def _estimate(rt: Compacting) -> int:
    """The token estimate of what the next request sends (also between cycles, when the
    transcript ends with the model's answer and no request can be built)."""
    tools = tuple(rt.tools.definitions())
    return rt.tokens.estimate(rt.transcript.messages(), rt.system_prompt(), tools)


def take_focus(requests: list[str]) -> str | None:
    """The focuses the host asked for (joined), clearing the ``requests``."""
    focuses = [f.strip() for f in requests if f.strip()]
    requests.clear()
    return "; ".join(focuses) or None


def _compactor(rt: Compacting) -> Compactor:
    config = rt.config.compaction
    return Compactor(
        threshold=config.threshold,
        keep_rounds=config.keep_rounds,
        summary_tokens=config.summary_tokens,
        max_messages=config.max_messages,
        chars_per_token=CHARS_PER_TOKEN / rt.tokens.ratio,
        instructions=_instructions(rt.prompt, rt.config),
        plan=config.plan,
        retry=rt.config.retry,
        sleep=rt.sleep,
        written=rt.tools.written,
    )


def _instructions(prompt: SystemPrompt | None, config: SessionConfig) -> str:
    """The project instructions of the built prompt (none when the config replaces it)."""
    if prompt is None or config.system_prompt:
        return ""
    files = prompt.instructions.files
    return "\n\n".join(f"{f.path}:\n{f.content.strip()}" for f in files)


def _options(model_id: str, config: SessionConfig) -> Request:
    """What the summary requests take from the session's: model, temperature, provider
    options (the summarizer sets messages, system, tools and the output limit)."""
    return Request(
        messages=(),
        model=model_id,
        temperature=config.temperature,
        provider_options=config.provider_options,
    )
