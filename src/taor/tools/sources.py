"""Tool sources: where a session's tools come from, with a lifecycle.

A ``ToolSource`` has a name, an async ``start`` (connect, spawn a server) and ``close``, the
``tools()`` it offers now, and ``subscribe(on_change)``: the source calls ``on_change()`` after
its list changed, and the registry that holds it offers the new list from the next model
request. The built-in tools are one source (``StaticSource``: nothing to start, never changes);
an MCP server will be another.

A ``ToolRegistry`` holds sources beside the tools registered on it directly;
``SourceSet`` starts them in order and closes them in reverse, and the failure of one close
does not stop the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from taor._records import frozen
from taor.tools.base import Tool

OnChange = Callable[[], None]

log = logging.getLogger("taor.tools")


@runtime_checkable
class ToolSource(Protocol):
    """Tools with a lifecycle (see the module docstring)."""

    @property
    def name(self) -> str: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    def tools(self) -> Sequence[Tool]: ...

    def subscribe(self, on_change: OnChange) -> None:
        """Call ``on_change()`` whenever ``tools()`` changes."""
        ...


@frozen
class StaticSource:
    """A fixed list of tools (the built-ins): nothing to start or close, never a change."""

    offered: tuple[Tool, ...]
    name: str = "builtin"

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def tools(self) -> Sequence[Tool]:
        return self.offered

    def subscribe(self, on_change: OnChange) -> None:
        return None


@dataclass(kw_only=True, slots=True)
class SourceSet:
    """Sources in order, and which of them have started."""

    sources: list[ToolSource] = field(default_factory=list)
    started: list[ToolSource] = field(default_factory=list)

    def add(self, source: ToolSource) -> None:
        self.sources.append(source)

    async def start(self, after_start: Callable[[ToolSource], None]) -> None:
        """Start each source not started yet, in order (``after_start`` then reads its tools).
        When one fails, those this call started are closed again and the error propagates."""
        begun: list[ToolSource] = []
        for source in self.sources:
            if any(source is s for s in self.started):
                continue
            try:
                await source.start()
            except BaseException:
                await close_all(reversed(begun))
                self.started = [s for s in self.started if not any(s is b for b in begun)]
                raise
            begun.append(source)
            self.started.append(source)
            after_start(source)

    async def close(self) -> list[BaseException]:
        """Close the started sources in reverse order; every one is closed whatever the others
        do, and the errors come back (in closing order)."""
        started, self.started = self.started, []
        return await close_all(reversed(started))


async def close_all(sources: Iterable[ToolSource]) -> list[BaseException]:
    errors: list[BaseException] = []
    for source in sources:
        try:
            await source.close()
        except Exception as error:  # the next source is closed all the same
            log.warning("closing the tool source %s failed", source.name, exc_info=True)
            errors.append(error)
    return errors
