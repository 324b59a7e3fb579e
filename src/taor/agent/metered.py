"""``MeteredModel``: a model that notes the usage of each response it streams.

Calls the session makes outside the loop's own model call (the summaries of a compaction) go
through it, so their usage and cost can be counted in the session's ledger afterwards.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from taor.llm.events import StreamEvent, UsageUpdate
from taor.llm.model import Model
from taor.llm.types import Request, Usage


class MeteredModel:
    """Streams through ``model``; ``usages`` holds the last usage of each finished stream."""

    def __init__(self, model: Model) -> None:
        self.inner = model
        self.usages: list[Usage] = []

    @property
    def provider(self) -> str:
        return self.inner.provider

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        usage: Usage | None = None
        async for event in self.inner.stream(request):
            if type(event) is UsageUpdate:
                usage = event.usage
            yield event
        if usage is not None:
            self.usages.append(usage)

    async def aclose(self) -> None:
        """The inner model belongs to the session: left open."""
