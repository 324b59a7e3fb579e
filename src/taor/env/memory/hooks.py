"""The test side of ``MemoryEnvironment``: faults, scripts, the call log and a file snapshot.

``MemoryEnvironment`` inherits these hooks; they are what a test (or a host that simulates)
uses to set the environment up and to check what happened. Nothing here is part of the
``Environment`` protocol.

Faults by tool name: ``fail_tool("read_file", ...)`` is ``fail("tool:read_file", ...)``. The
tool layer runs every call through ``intercept_tool`` when the environment has one
(``taor.tools.registry.ToolRegistry.execute`` looks it up with ``getattr``: this package does
not import ``taor.tools``), so each tool call is recorded as ``tool:<name>`` with its arguments
and its ``ToolOutput`` (or the exception it raised), and a fault replaces the call.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping

from taor.env.memory.commands import CommandReply, CommandScript, CommandScripts
from taor.env.memory.faults import NO_RESULT, Call, CallLog, Fault
from taor.env.memory.fs import MemoryTree, encode
from taor.env.paths import relative_display

TOOL_PREFIX = "tool:"


class MemoryHooks:
    """Test hooks over the state a ``MemoryEnvironment`` sets up in its ``__init__``."""

    roots: list[str]
    tree: MemoryTree
    commands: CommandScripts
    log: CallLog

    @property
    def calls(self) -> list[Call]:
        """Every operation so far: its name, arguments, result or error, in order of completion.

        A call is recorded when it ends, so the operations a tool call made come before it.
        """
        return self.log.calls

    def calls_of(self, operation: str) -> list[Call]:
        return self.log.calls_of(operation)

    def fail(
        self,
        operation: str,
        *,
        nth: int | None = 1,
        error: BaseException | type[BaseException] | None = None,
        result: object = NO_RESULT,
    ) -> Fault:
        """Make the ``nth`` call of ``operation`` from now (None: every call) raise or return."""
        return self.log.fail(operation, nth=nth, error=error, result=result)

    def fail_tool(
        self,
        name: str,
        *,
        nth: int | None = 1,
        error: BaseException | type[BaseException] | None = None,
        result: object = NO_RESULT,
    ) -> Fault:
        """Make the ``nth`` call of the tool ``name`` from now raise ``error`` or return ``result``.

        Through a ``ToolRegistry``, an error becomes an ``is_error`` output as if the tool had
        raised it; a ``ToolOutput`` result is returned as is, a ``str`` as its text.
        """
        return self.log.fail(TOOL_PREFIX + name, nth=nth, error=error, result=result)

    async def intercept_tool(
        self,
        name: str,
        arguments: Mapping[str, object],
        action: Callable[[], Awaitable[object]],
    ) -> object:
        """Run a tool call (``action``) as operation ``tool:<name>``: faults applied, recorded."""
        return await self.log.intercept(TOOL_PREFIX + name, arguments, action)

    def script(
        self,
        match: str | re.Pattern[str] | None,
        reply: CommandReply,
        *,
        exit_code: int = 0,
        stderr: str = "",
        duration: float = 0.0,
    ) -> None:
        """Script the commands equal to ``match`` (or matching the regex; None: any command)."""
        self.commands.add(
            CommandScript(
                match=match, reply=reply, exit_code=exit_code, stderr=stderr, duration=duration
            )
        )

    def put(self, path: str, content: str | bytes) -> None:
        """Create or replace a file (parents created) as test setup: not recorded, no faults."""
        self.tree.write(self.tree.resolve(path), encode(content))

    def make_dir(self, path: str) -> None:
        """Create a directory and its parents as test setup: not recorded, no faults."""
        self.tree.make_dir(self.tree.resolve(path))

    @property
    def files(self) -> dict[str, bytes]:
        """A snapshot of the files, keyed as the model sees them (relative to the root)."""
        return {relative_display(p, self.roots[0]): d for p, d in self.tree.files.items()}
