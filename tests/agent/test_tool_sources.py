"""Tool sources through a real ``Session``: started in order when the session starts, closed in
reverse when it closes (a close that fails does not keep the others open), and a source whose
tool list changes mid-session has the new list offered from the next model request."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.testing import ScriptedModel, text, tool_calls
from taor.tools import FunctionTool, tool
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.registry import ToolRegistry
from taor.tools.sources import OnChange, StaticSource

from .session_drive import config


@tool(read_only=True)
async def echo(words: str) -> str:
    """Say the words back."""
    return words


@dataclass(kw_only=True)
class Plugins:
    """A source that offers ``install``; installing ``echo`` adds that tool to its list."""

    name: str = "plugins"
    log: list[str] = field(default_factory=list)
    fail_close: bool = False
    offered: list[Tool] = field(default_factory=list)
    listeners: list[OnChange] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.offered.append(Install(source=self))

    async def start(self) -> None:
        self.log.append(f"start {self.name}")

    async def close(self) -> None:
        self.log.append(f"close {self.name}")
        if self.fail_close:
            raise RuntimeError(f"{self.name} would not close")

    def tools(self) -> Sequence[Tool]:
        return tuple(self.offered)

    def subscribe(self, on_change: OnChange) -> None:
        self.listeners.append(on_change)

    def install(self, new: FunctionTool) -> None:
        self.offered.append(new)
        for listener in self.listeners:
            listener()


@dataclass(frozen=True, kw_only=True)
class Install:
    source: Plugins
    name: str = "install"
    description: str = "Install the echo tool."
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    read_only: bool = False

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        self.source.install(echo)
        return ToolOutput.of("installed echo")


def offered(model: ScriptedModel) -> list[list[str]]:
    return [sorted(t.name for t in request.tools) for request in model.requests]


async def test_a_changed_tool_list_is_offered_from_the_next_request() -> None:
    plugins = Plugins()
    model = ScriptedModel(
        [tool_calls(("install", {})), tool_calls(("echo", {"words": "hi"})), text("done")]
    )
    registry = ToolRegistry(sources=[plugins])
    async with Session(
        model, environment=MemoryEnvironment(), tools=registry, config=config()
    ) as session:
        result = await session.run("install echo, then use it")
    assert offered(model) == [["install"], ["echo", "install"], ["echo", "install"]]
    assert result.text == "done"
    results = [p for m in model.requests[-1].messages for p in m.parts if p.kind == "tool_result"]
    assert [(r.name, r.is_error) for r in results] == [("install", False), ("echo", False)]
    assert "hi" in str(results[-1].content)


async def test_sources_start_in_order_and_close_in_reverse_despite_a_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log: list[str] = []
    first, second = Plugins(name="first", log=log, fail_close=True), Plugins(name="second", log=log)
    builtins = StaticSource(offered=(echo,))
    registry = ToolRegistry(sources=[builtins, first, second])
    session = Session(
        ScriptedModel([text("hello")]), environment=MemoryEnvironment(), tools=registry
    )
    await session.start()
    assert log == ["start first", "start second"]
    await session.run("hi")
    await session.close()
    assert log == ["start first", "start second", "close second", "close first"]
    assert "first would not close" in caplog.text
    assert session.state == "closed"
