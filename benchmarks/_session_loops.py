"""The echo conversation through taor's ``Session``, for ``session_overhead.py``.

As a driver of ``_driver.py`` (``session-anthropic``): ``build_anthropic(base_url, n, echo)``
builds the session (anthropic adapter against the fake server, ``MemoryEnvironment``, one
``echo`` tool, bypass permissions, no store) and returns the measured coroutine function, which
runs the conversation with ``Session.run`` and returns the final text.

Run directly, it measures what CPU cannot show, in one process, and prints one JSON line:

    python benchmarks/_session_loops.py latency --n 200 --base-url URL
    python benchmarks/_session_loops.py memory --n 1000 --base-url URL

``latency``: a wrapper around the adapter stamps (``perf_counter``) every text delta as the
adapter yields it; the host iterating ``Session.submit`` stamps every ``assistant_text_delta``
it receives. Both sides count characters, so a delivered delta settles every adapter delta its
text covers (coalesced ones included): latency = receipt - adapter stamp, per adapter delta.
``memory``: after a one-turn warm-up session (lazy imports, the catalog, caches), ``tracemalloc``
from the measured session's creation; peak and still-allocated bytes at the end of the run, next
to the size of the JSONL transcript the session wrote (``Session.recorded``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from _driver import ADAPTERS, DESCRIPTION, SCHEMA, Echo, prompt

from taor.agent.config import CompactionConfig, PermissionConfig, SessionConfig
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm import connect
from taor.llm import events as llm
from taor.tools.base import ToolContext, ToolOutput

# The same work as the bare loops: no profile prompt, the echo tool only, no compaction (a
# 1000-turn echo conversation passes 85% of the window; the baselines never summarize).
CONFIG = SessionConfig(
    permissions=PermissionConfig(mode="bypass"), compaction=CompactionConfig(enabled=False)
)


@dataclass(frozen=True, kw_only=True, slots=True)
class EchoTool:
    """The benchmark's tool as a taor ``Tool``: returns its argument (counted by ``echo``)."""

    echo: Echo
    name: str = "echo"
    description: str = DESCRIPTION
    parameters: Mapping[str, Any] = field(default_factory=lambda: SCHEMA)
    read_only: bool = True

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return ToolOutput.of(self.echo(**arguments))


def connect_anthropic(base_url: str):
    _, model_string, sdk = ADAPTERS["anthropic"]
    importlib.import_module(sdk)  # imported on the first request: keep it in the baseline
    return connect(model_string, api_key="fake", base_url=base_url)


def new_session(model, echo: Echo, path: str | None = None) -> Session:
    options = {"environment": MemoryEnvironment(), "tools": [EchoTool(echo=echo)], "config": CONFIG}
    if path:
        return Session.recorded(path, model, profile=None, **options)
    return Session(model, profile=None, **options)


def build_anthropic(base_url: str, n: int, echo: Echo):
    model = connect_anthropic(base_url)
    session = new_session(model, echo)

    async def go() -> str:
        async with session:
            result = await session.run(prompt(n))
        await model.aclose()
        return result.text

    return go


class Stamped:
    """A ``Model`` that passes the adapter's stream through, stamping text deltas."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.provider, self.model_id = inner.provider, inner.model_id
        self.stamps: deque[tuple[int, float]] = deque()  # (characters so far, perf_counter)
        self.chars = 0

    async def stream(self, request) -> AsyncIterator[llm.StreamEvent]:
        async for event in self.inner.stream(request):
            if type(event) is llm.TextDelta:
                self.chars += len(event.text)
                self.stamps.append((self.chars, time.perf_counter()))
            yield event

    async def aclose(self) -> None:
        await self.inner.aclose()


async def measure_latency(base_url: str, n: int) -> dict:
    echo = Echo()
    model = Stamped(connect_anthropic(base_url))
    latencies: list[float] = []
    received = 0
    final = ""
    async with new_session(model, echo) as session:
        async for event in session.submit(prompt(n)):
            if event.kind == "assistant_text_delta":
                now = time.perf_counter()
                received += len(event.delta)
                while model.stamps and model.stamps[0][0] <= received:
                    latencies.append(now - model.stamps.popleft()[1])
            elif event.kind == "processing_end":
                final = event.text
    await model.aclose()
    ms = sorted(x * 1000 for x in latencies)
    return {
        "mode": "latency",
        "n": n,
        "turns": echo.calls,
        "final": final,
        "deltas": len(ms),
        "undelivered": len(model.stamps),
        "p50_ms": statistics.median(ms),
        "p99_ms": ms[min(len(ms) - 1, int(len(ms) * 0.99))],
        "max_ms": ms[-1],
    }


async def measure_memory(base_url: str, n: int, path: str) -> dict:
    model = connect_anthropic(base_url)
    async with new_session(model, Echo()) as warm_up:  # lazy imports, catalog, caches
        await warm_up.run(prompt(1))
    echo = Echo()
    tracemalloc.start()
    async with new_session(model, echo, path) as session:
        result = await session.run(prompt(n))
        current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    await model.aclose()
    return {
        "mode": "memory",
        "n": n,
        "turns": echo.calls,
        "final": result.text,
        "peak_bytes": peak,
        "retained_bytes": current,
    }


def run_memory(base_url: str, n: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "session.jsonl")
        rec = asyncio.run(measure_memory(base_url, n, path))
        size = rec["transcript_bytes"] = os.path.getsize(path)
    rec.update(
        peak_per_byte=rec["peak_bytes"] / size, retained_per_byte=rec["retained_bytes"] / size
    )
    return rec


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("latency", "memory"))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--base-url", required=True)
    a = ap.parse_args()
    url = a.base_url.rstrip("/")
    rec = asyncio.run(measure_latency(url, a.n)) if a.mode == "latency" else run_memory(url, a.n)
    rec["ok"] = (
        rec["turns"] == a.n and rec["final"].strip() == f"DONE turns={a.n} echo_ok={a.n}/{a.n}"
    )
    print(json.dumps(rec), flush=True)
    sys.exit(0 if rec["ok"] else 1)


if __name__ == "__main__":
    main()
