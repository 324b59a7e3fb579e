"""``MeteredModel``: a model that notes the usage of each response it streams.

Calls the session makes outside the loop's own model call (the summaries of a compaction) go
through it, so their usage and cost can be counted in the session's ledger afterwards, the
calls in its model-call count, and a stalled stream ends with ``IdleTimeoutError`` as in the
loop (``taor.llm.idle``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing

from taor.llm.events import StreamEvent, UsageUpdate
from taor.llm.idle import watched_stream
from taor.llm.model import Model, Timeouts
from taor.llm.response import Usage
from taor.llm.types import Request


class MeteredModel:
    """Streams through ``model``; ``usages`` holds the last usage of each finished stream."""

    def __init__(self, model: Model, timeouts: Timeouts) -> None:
        self.inner = model
        self.timeouts = timeouts
        self.usages: list[Usage] = []
        self.calls = 0

    @property
    def provider(self) -> str:
        return self.inner.provider

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        usage: Usage | None = None
        self.calls += 1
        events = watched_stream(self.inner, request, self.timeouts)
        async with aclosing(events):  # type: ignore[type-var]
            async for event in events:
                if type(event) is UsageUpdate:
                    usage = event.usage
                yield event
        if usage is not None:
            self.usages.append(usage)

    async def aclose(self) -> None:
        """The inner model belongs to the session: left open."""
