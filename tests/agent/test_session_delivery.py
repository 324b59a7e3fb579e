"""Delivery latency: a reader sees each text or thinking delta as it streams, not
after the model's whole response was read, even when the response arrives in one burst."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

from taor.agent.events import ToolCallEnd
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.llm import events as llm
from taor.llm.types import Request
from taor.testing import Reply, ScriptedModel, text, tool_calls

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
    async with Session(
        model, environment=MemoryEnvironment(), tools=[], config=config()
    ) as session:
        async for event in session.submit("go"):
            if event.kind in ("assistant_text_delta", "thinking_delta"):
                seen.append((len(seen) + 1, model.streamed))
    assert len(seen) == 20
    assert all(received == streamed for received, streamed in seen)


async def test_iterators_dropped_unread_keep_nothing(tmp_path: Path) -> None:
    """40 cycles, each printing 1 MB, each started by a submit() whose iterator is dropped
    unread: memory stays that of about one cycle, and a kept iterator still gets its events."""
    print_1mb = ("shell", {"command": "head -c 1000000 /dev/zero | tr '\\0' x"})
    model = ScriptedModel([*[tool_calls(print_1mb), text("printed")] * 41, text("done")])
    async with Session(model, environment=LocalEnvironment(tmp_path), config=config()) as session:
        kept = session.submit("kept")  # made first, read last
        tracemalloc.start()
        try:
            for _ in range(40):
                session.submit("print it")  # dropped at once
            await session.run("and finish")
            gc.collect()
            held, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        events = [event async for event in kept]
    assert held < 10_000_000, f"{held / 1e6:.0f} MB still held after 40 cycles"
    assert events[0].kind == "user_input" and events[-1].kind == "processing_end"
    (end,) = [e for e in events if isinstance(e, ToolCallEnd)]
    assert len(end.output) == 1_000_000
