"""Delivery latency (issue 4 §6): a reader sees each text or thinking delta as it streams, not
after the model's whole response was read, even when the response arrives in one burst."""

from __future__ import annotations

from collections.abc import AsyncIterator

from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm import events as llm
from taor.llm.types import Request
from taor.testing import Reply, ScriptedModel

from .session_drive import config


class Counting(ScriptedModel):
    """Counts the deltas it has streamed; the scripted stream never waits between events."""

    streamed = 0

    async def stream(self, request: Request) -> AsyncIterator[llm.StreamEvent]:
        async for event in super().stream(request):
            if type(event) in (llm.TextDelta, llm.ThinkingDelta):
                self.streamed += 1
            yield event


async def test_each_delta_reaches_the_reader_before_the_next_one_is_read() -> None:
    model = Counting([Reply(text="x" * 40, thinking="y" * 40, chunk=4)])
    seen: list[tuple[int, int]] = []
    async with Session(model, MemoryEnvironment(), [], config()) as session:
        async for event in session.submit("go"):
            if event.kind in ("assistant_text_delta", "thinking_delta"):
                seen.append((len(seen) + 1, model.streamed))
    assert len(seen) == 20
    assert all(received == streamed for received, streamed in seen)
