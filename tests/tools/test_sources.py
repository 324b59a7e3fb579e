"""Tool sources in a ``ToolRegistry``: offered when added and anew after each change they
report, a tool registered directly wins over a source's, and a source that fails to start has
the sources started with it closed again."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from taor.tools import tool
from taor.tools.base import Tool
from taor.tools.registry import ToolRegistry
from taor.tools.sources import OnChange, StaticSource, ToolSource


@tool(read_only=True)
async def ping() -> str:
    """Answer pong."""
    return "pong"


@tool(read_only=True)
async def pong() -> str:
    """Answer ping."""
    return "ping"


@dataclass(kw_only=True)
class Changing:
    name: str = "changing"
    offered: list[Tool] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    fail_start: bool = False
    listeners: list[OnChange] = field(default_factory=list)

    async def start(self) -> None:
        if self.fail_start:
            raise RuntimeError(f"{self.name} did not start")
        self.log.append(f"start {self.name}")

    async def close(self) -> None:
        self.log.append(f"close {self.name}")

    def tools(self) -> Sequence[Tool]:
        return tuple(self.offered)

    def subscribe(self, on_change: OnChange) -> None:
        self.listeners.append(on_change)

    def change(self, *tools: Tool) -> None:
        self.offered = list(tools)
        for listener in self.listeners:
            listener()


def test_a_source_is_offered_and_offered_anew_after_a_change() -> None:
    source = Changing(offered=[ping])
    assert isinstance(source, ToolSource) and isinstance(StaticSource(offered=()), ToolSource)
    registry = ToolRegistry(sources=[StaticSource(offered=(pong,)), source])
    assert registry.names() == ["pong", "ping"] and registry.sources[1] is source
    source.change()
    assert registry.names() == ["pong"]
    source.change(ping)
    assert [d.name for d in registry.definitions()] == ["pong", "ping"]


def test_a_tool_registered_directly_wins_over_a_sources() -> None:
    source = Changing(offered=[ping])
    registry = ToolRegistry(sources=[source])
    mine = dataclasses.replace(pong, name="ping")
    registry.register(mine)
    source.change(ping)
    assert registry.get("ping") is mine


async def test_a_failed_start_closes_what_started_and_later_closes_run_in_reverse() -> None:
    log: list[str] = []
    first, broken = (
        Changing(name="first", log=log),
        Changing(name="broken", log=log, fail_start=True),
    )
    registry = ToolRegistry(sources=[first, broken])
    with pytest.raises(RuntimeError, match="broken did not start"):
        await registry.start_sources()
    assert log == ["start first", "close first"]
    assert await registry.close_sources() == []  # nothing is open any more
    broken.fail_start = False
    await registry.start_sources()
    assert await registry.close_sources() == []
    assert log[2:] == ["start first", "start broken", "close broken", "close first"]
