"""The stream step of a model call: the request streamed through the model, its text and
thinking turned into events as they arrive, retried by the session's policy, and asked again
differently when the server cannot parse the model's tool call.

``stream_response`` streams the request. A stream silent for longer than
``config.timeouts.idle`` (before its first event: idle plus ``connect``) fails with
``IdleTimeoutError``. Retryable failures are retried by the session's ``RetryPolicy`` through
``taor.llm.retry_stream`` (whose docstring has the rule), each with a ``retry`` event, also
after part of the response was streamed: no tool has run yet, so asking again has no side
effects (``discarded_text`` tells the host to drop the text it showed).

``stream_recovering`` handles a tool call the server could not parse
(``MalformedToolCallError``: llama.cpp answers HTTP 500 "Failed to parse tool call arguments as
JSON" when a model writes a call whose arguments are not JSON, for example a long string left
unclosed). Asking the same again would get the same call back, so the model is asked
differently, each time with a ``retry`` event: once more with a nudge that says what went wrong
and a little temperature, then with more temperature, then without tools (it answers in words,
and the cycle ends there rather than on an error). Each request counts against the session's
call and cost limits; when they are used up no recovery starts and the cycle ends at the limit.
The nudge is added to the request only, never to the transcript; a recovered response is
recorded like any other.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass

from taor.agent.events import (
    AssistantTextDelta,
    AssistantTextStart,
    Event,
    Retry,
    ServerToolResult,
    ServerToolUse,
    ThinkingDelta,
    TurnLimit,
)
from taor.agent.parts import Calls
from taor.agent.record.call_ids import unique_calls
from taor.errors import MalformedToolCallError
from taor.llm import events as llm
from taor.llm.assembler import Assembler
from taor.llm.idle import watched_stream
from taor.llm.response import FinishReason, Response
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


# The raw finish reasons when one call per reply cut the stream: its call was whole.
WHOLE = "stopped after one tool call"
SECOND = "stopped at a second tool call"


async def stream_response(rt: Calls, request: Request, out: Streamed) -> AsyncIterator[Event]:
    """Stream ``request`` into ``out`` through the session's retry policy (``retry_stream``):
    each retry starts a fresh assembler and is reported with a ``retry`` event."""

    def attempt() -> AsyncIterator[llm.StreamEvent]:
        rt.model_calls += 1  # every request the server sees counts, a retry's too
        rt.cycle.model_calls += 1
        return watched_stream(rt.model, request, rt.config.timeouts)

    out.assembler = assembler = Assembler(rt.model.provider)
    shown = False  # text of this attempt reached the host
    one_call = rt.config.parallel_tool_calls is False
    items = retry_stream(attempt, _within_limit(rt.config.retry, rt.calls_left()), rt.sleep)
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


def _within_limit(policy: RetryPolicy, left: int | None) -> RetryPolicy:
    """The retry policy, its attempts cut to what the call limit has ``left``: retries are
    requests too, and a limit is never passed by taor's own calls."""
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


NUDGE = (
    "Your last tool call could not be read: its arguments were not valid JSON. Call the tool "
    "again with a valid JSON object as its arguments (escape quotes and newlines inside "
    "strings; keep long contents short)."
)
NO_TOOLS = (
    "Your tool calls could not be read: their arguments were not valid JSON. Tools are off for "
    "this reply: say in plain words what you have done and what is left to do."
)


def _nudged(request: Request, text: str, temperature: float) -> Request:
    """``request`` with ``text`` added to its last user message (or as one) and at least
    ``temperature``."""
    messages = list(request.messages)
    if messages and messages[-1].role == "user":
        last = messages[-1]
        messages[-1] = dataclasses.replace(last, parts=(*last.parts, TextPart(text=text)))
    else:
        messages.append(Message.user(text))
    warmer = max(request.temperature or 0.0, temperature)
    return dataclasses.replace(request, messages=tuple(messages), temperature=warmer)


RECOVERIES: tuple[Callable[[Request], Request], ...] = (
    lambda request: _nudged(request, NUDGE, 0.4),
    lambda request: _nudged(request, NUDGE, 0.8),
    lambda request: dataclasses.replace(_nudged(request, NO_TOOLS, 0.4), tools=()),
)


async def stream_recovering(rt: Calls, request: Request, out: Streamed) -> AsyncIterator[Event]:
    """``stream_response``, asked again as ``RECOVERIES`` say while the server cannot parse the
    model's tool call; the last failure is raised."""
    attempt = request
    for number, recovery in enumerate((*RECOVERIES, None), 1):
        try:
            async for event in stream_response(rt, attempt, out):
                yield event
            return
        except MalformedToolCallError as error:
            if recovery is None:
                raise
            if (limit := rt.spent()) is not None:  # asking again would pass the limit
                out.limit = limit
                return
            yield Retry(
                attempt=number,
                delay=0.0,
                cause=str(error),
                error_type=type(error).__name__,
                discarded_text=bool(out.partial_text()),
            )
            attempt = recovery(request)
