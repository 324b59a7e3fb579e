"""``Runtime``: the session's state derived from the facts each step owns, and a fresh
``Cycle`` (counters, running calls, stop reason, failure) for every input."""

from __future__ import annotations

import asyncio

from taor.agent.config import SessionConfig
from taor.agent.record.transcript import Transcript
from taor.agent.runtime import Runtime
from taor.env.memory import MemoryEnvironment
from taor.errors import ServerError
from taor.llm.catalog import Catalog
from taor.testing import ScriptedModel
from taor.tools.registry import ToolRegistry


def runtime() -> Runtime:
    return Runtime(
        session_id="s",
        model=ScriptedModel([]),
        environment=MemoryEnvironment(),
        tools=ToolRegistry(),
        config=SessionConfig(),
        catalog=Catalog.default(),
        transcript=Transcript(),
    )


async def test_the_state_follows_the_facts_with_a_fixed_precedence() -> None:
    rt = runtime()
    assert rt.state == "idle"
    rt.busy = True
    assert rt.state == "running"
    rt.compacting = True
    assert rt.state == "compacting"
    rt.permission_waiters["perm_1"] = asyncio.get_running_loop().create_future()
    assert rt.state == "awaiting_permission"
    rt.permission_waiters.clear()
    rt.compacting = rt.busy = False
    assert rt.state == "idle"


def test_each_cycle_starts_with_nothing_of_the_last() -> None:
    times = iter([10.0, 20.0])
    rt = runtime()
    rt.clock = lambda: next(times)
    first = rt.new_cycle()
    first.rounds, first.calls, first.stopping = 3, 5, "interrupted"
    first.running_calls["c1"] = "shell"
    first.failure = ServerError("boom", provider="x")
    second = rt.new_cycle()
    assert rt.cycle is second and second.started == 20.0
    assert (second.rounds, second.calls, second.stopping, second.failure) == (0, 0, None, None)
    assert second.running_calls == {}
