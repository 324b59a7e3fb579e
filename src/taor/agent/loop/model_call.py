"""One model call of the loop: compact when due, stream, retry, and record the response.

``call_model`` is the cycle's model call: a compaction the host asked for or the threshold
calls for (``taor.agent.context.compact_step``) first, the context warning, then the stream;
a context-length error compacts once and asks again.

A tool call the server cannot parse is asked for again differently (``malformed``).

``stream_response`` streams the request through the model, turning text and thinking deltas
into events as they arrive. A stream silent for longer than ``config.timeouts.idle`` (before its
first event: idle plus ``connect``) fails with ``IdleTimeoutError``. Retryable failures are
retried by the session's ``RetryPolicy`` through ``taor.llm.retry_stream`` (whose docstring has
the rule), each with a ``retry`` event, also after part of the response was streamed: no tool
has run yet, so asking again has no side effects (``discarded_text`` tells the host to drop the
text it showed).

``record_response`` appends the assistant turn (with its cost and the session's totals) and
reports its text and usage.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass

from taor.agent.context.compact_step import compact, due, take_focus
from taor.agent.events import (
    AssistantTextDelta,
    AssistantTextEnd,
    AssistantTextStart,
    Compaction,
    Event,
    Retry,
    ServerToolResult,
    ServerToolUse,
    ThinkingDelta,
    TurnLimit,
    UsageEvent,
)
from taor.agent.loop.call_ids import unique_calls
from taor.agent.loop.idle import watched_stream
from taor.agent.record.turns import AssistantTurn
from taor.agent.runtime import Runtime
from taor.errors import ContextLengthError
from taor.llm import events as llm
from taor.llm.assembler import Assembler
from taor.llm.response import FinishReason, Response, Usage
from taor.llm.retry import RetryInfo, RetryPolicy, retry_stream
from taor.llm.types import Message, Request, ServerToolPart, TextPart


@dataclass(kw_only=True, slots=True)
class Streamed:
    """Where ``stream_response`` leaves its result (and, while it runs, what has arrived)."""

    assembler: Assembler | None = None
    response: Response | None = None
    limit: TurnLimit | None = None  # no response: the limit that kept a recovery from starting

    def partial_text(self) -> str:
        return self.assembler.message().text if self.assembler is not None else ""


async def call_model(rt: Runtime, out: Streamed) -> AsyncIterator[Event]:
    """The cycle's next model call, into ``out``: a requested or due compaction first, the
    context warning, then the stream; a context-length error compacts and retries once."""
    if rt.compaction_requests:
        async for event in compact(rt, "request", focus=take_focus(rt)):
            yield event
    request = rt.request()
    tokens = rt.estimate(request)
    if due(rt, tokens):
        async for event in compact(rt, "threshold"):
            yield event
        request = rt.request()
        tokens = rt.estimate(request)
    if (warning := rt.context_warning(tokens)) is not None:
        yield warning
    from taor.agent.loop.malformed import stream_recovering  # it builds on stream_response

    try:
        async for event in stream_recovering(rt, request, out):
            yield event
        return
    except ContextLengthError as error:
        overflow = error
    compacted = False
    if rt.config.compaction.enabled:
        async for event in compact(rt, "overflow"):
            compacted = compacted or isinstance(event, Compaction)
            yield event
    if not compacted:
        raise overflow
    request = rt.request()
    if (warning := rt.context_warning(rt.estimate(request))) is not None:
        yield warning
    async for event in stream_recovering(rt, request, out):
        yield event


# The raw finish reasons when one call per reply cut the stream: its call was whole.
WHOLE = "stopped after one tool call"
SECOND = "stopped at a second tool call"


async def stream_response(rt: Runtime, request: Request, out: Streamed) -> AsyncIterator[Event]:
    """Stream ``request`` into ``out`` through the session's retry policy (``retry_stream``):
    each retry starts a fresh assembler and is reported with a ``retry`` event."""

    def attempt() -> AsyncIterator[llm.StreamEvent]:
        rt.model_calls += 1  # every request the server sees counts, a retry's too
        rt.cycle.model_calls += 1
        return watched_stream(rt.model, request, rt.config.timeouts)

    out.assembler = assembler = Assembler(rt.model.provider)
    shown = False  # text of this attempt reached the host
    one_call = rt.config.parallel_tool_calls is False
    items = retry_stream(attempt, _within_limit(rt), rt.sleep)
    async with aclosing(items):  # type: ignore[type-var]
        async for item in items:
            if isinstance(item, RetryInfo):
                out.assembler = assembler = Assembler(rt.model.provider)
                yield _retry_event(item, discarded_text=shown)
                shown = False
                continue
            if one_call and type(item) is llm.ToolCallStart and assembler.message().tool_calls:
                # One call per reply: the first is whole once a second begins. Stop reading
                # (closing the stream stops the generation) rather than wait for a small
                # model to write the same call dozens of times.
                assembler.feed(llm.Finish(reason=FinishReason(reason="tool_calls", raw=SECOND)))
                break
            assembler.feed(item)
            if one_call and type(item) is llm.ToolCallDelta and assembler.call_is_whole(item):
                # Its arguments are a whole JSON object: nothing the model writes after them
                # (the fence's close, a second call) is used, so stop it now.
                assembler.feed(llm.Finish(reason=FinishReason(reason="tool_calls", raw=WHOLE)))
                break
            if type(item) is llm.TextDelta:
                if not shown:
                    shown = True
                    yield AssistantTextStart()
                yield AssistantTextDelta(delta=item.text)
            elif type(item) is llm.ThinkingDelta and item.text:
                yield ThinkingDelta(delta=item.text)
            elif type(item) is llm.ServerToolUse or type(item) is llm.ServerToolResult:
                yield _server_tool_event(ServerToolPart(provider="", block=item.block))
            else:
                continue
            # A response that arrives in one burst is parsed without a pause: let the readers
            # have each delta now (one pass of the event loop), not after the whole turn.
            await asyncio.sleep(0)
    response = assembler.response()
    message = unique_calls(response.message, rt.transcript.call_ids())
    out.response = dataclasses.replace(response, message=message)


def _within_limit(rt: Runtime) -> RetryPolicy:
    """The retry policy, its attempts cut to what the call limit has left: retries are
    requests too, and a limit is never passed by taor's own calls."""
    left, policy = rt.calls_left(), rt.config.retry
    if left is None or left >= policy.max_attempts:
        return policy
    return dataclasses.replace(policy, max_attempts=max(1, left))


def _server_tool_event(part: ServerToolPart) -> ServerToolUse | ServerToolResult:
    block = part.block
    if not part.is_result:
        name, given = str(block.get("name", "")), block.get("input")
        return ServerToolUse(call_id=part.call_id, name=name, input=dict(given or {}))
    content = block.get("content")
    failed = isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
    return ServerToolResult(
        call_id=part.call_id, result_type=part.block_type, content=content, is_error=failed
    )


def _retry_event(info: RetryInfo, *, discarded_text: bool) -> Retry:
    return Retry(
        attempt=info.attempt,
        delay=info.delay,
        cause=str(info.error),
        error_type=type(info.error).__name__,
        discarded_text=discarded_text,
    )


async def record_response(rt: Runtime, response: Response) -> list[Event]:
    """Append the response as an assistant turn (unless empty) and report text and usage."""
    events: list[Event] = [AssistantTextEnd(text=response.text, reasoning=response.reasoning)]
    cut = response.finish_reason.raw in (WHOLE, SECOND)
    if cut and not response.usage.input_tokens:  # the usage comes last, after the cut
        response = dataclasses.replace(response, usage=_estimated_usage(rt, response))
    cost, total_cost = rt.usage.add(
        response.usage, provider=rt.model.provider, model=response.model or rt.model.model_id
    )
    if _has_content(response.message):
        calls, session_cost = rt.session_totals()
        await rt.append(
            AssistantTurn(
                message=response.message,
                usage=response.usage,
                response_id=response.id,
                provider=response.provider or rt.model.provider,
                model=response.model or rt.model.model_id,
                finish=response.finish_reason.reason,
                cost=cost,
                session_calls=calls,
                session_cost=session_cost,
            )
        )
    if rt.last_estimate and response.usage.input_tokens and not cut:
        rt.tokens.observe(rt.last_estimate, response.usage.input_tokens)
    events.append(
        UsageEvent(
            usage=response.usage,
            total=rt.usage.total,
            cost=cost,
            total_cost=total_cost,
            response_id=response.id or "",
        )
    )
    return events


def _estimated_usage(rt: Runtime, response: Response) -> Usage:
    """The usage of a response cut before the provider reported it: the request's calibrated
    estimate in, the message's estimate out."""
    return Usage(
        input_tokens=rt.last_estimate, output_tokens=rt.tokens.estimate([response.message])
    )


async def record_partial(rt: Runtime, out: Streamed) -> AssistantTextEnd | None:
    """After an interrupt mid-stream: keep the text that arrived (no tool calls, no thinking)."""
    text = out.partial_text()
    if not text.strip():
        return None
    message = Message(role="assistant", parts=(TextPart(text=text),))
    calls, session_cost = rt.session_totals()  # its usage is unknown: the totals stand
    await rt.append(
        AssistantTurn(
            message=message,
            provider=rt.model.provider,
            model=rt.model.model_id,
            finish="interrupted",
            partial=True,
            session_calls=calls,
            session_cost=session_cost,
        )
    )
    return AssistantTextEnd(text=text, partial=True)


def _has_content(message: Message) -> bool:
    return any(not isinstance(part, TextPart) or part.text.strip() for part in message.parts)
