"""The idle watchdog of a model stream: no event for too long is an ``IdleTimeoutError``.

The first event may take ``first`` seconds (the connection, a cold SDK import), every later one
``idle``. Used by the loop's model calls and by the summaries of a compaction alike, so no call
the session makes can hang on a stalled stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing

from taor.errors import IdleTimeoutError
from taor.llm.events import StreamEvent
from taor.llm.model import Model, Timeouts
from taor.llm.types import Request


async def watched(
    stream: AsyncIterator[StreamEvent], *, idle: float, first: float, provider: str
) -> AsyncIterator[StreamEvent]:
    """The events of ``stream`` (which the caller closes), each within its time limit."""
    events = aiter(stream)
    wait = first
    while True:
        try:
            async with asyncio.timeout(wait):
                event = await anext(events)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise IdleTimeoutError(
                f"no data from the model for {wait:g} seconds", provider=provider
            ) from None
        wait = idle
        yield event


async def watched_stream(
    model: Model, request: Request, timeouts: Timeouts
) -> AsyncIterator[StreamEvent]:
    """``model.stream(request)`` under the watchdog (``first``: idle plus connect), closed
    however the consumer stops."""
    async with aclosing(model.stream(request)) as stream:  # type: ignore[type-var]
        first = timeouts.idle + timeouts.connect
        async for event in watched(
            stream, idle=timeouts.idle, first=first, provider=model.provider
        ):
            yield event
