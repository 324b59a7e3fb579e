"""Recovery from a tool call the server could not parse (``MalformedToolCallError``: llama.cpp
answers HTTP 500 "Failed to parse tool call arguments as JSON" when a model writes a call whose
arguments are not JSON, for example a long string left unclosed).

Asking the same again would get the same call back, so the model is asked differently, each
time with a ``retry`` event: once more with a nudge that says what went wrong and a little
temperature, then with more temperature, then without tools (it answers in words, and the cycle
ends there rather than on an error). Each request counts against the session's call and cost
limits; when they are used up no recovery starts and the cycle ends at the limit. The nudge is added to the request only, never to the
transcript; a recovered response is recorded like any other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable

from taor.agent.events import Event, Retry
from taor.agent.loop.model_call import Streamed, stream_response
from taor.agent.runtime import Runtime
from taor.errors import MalformedToolCallError
from taor.llm.types import Message, Request, TextPart

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


async def stream_recovering(rt: Runtime, request: Request, out: Streamed) -> AsyncIterator[Event]:
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
