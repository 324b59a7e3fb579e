"""``McpServer``: one MCP server as a ``ToolSource``, connected and supervised.

``start`` connects within the server's ``startup_timeout``; a server that fails or does not
answer in time is reported (status ``failed``) and offers no tools: ``start`` never raises, so
the session starts without it. A connected stdio server that exits mid-session has its running
calls return an error result at once (the model can act on it), is started again after a
back-off (``RESTART_DELAYS``, up to ``max_restarts`` times) and its tools are listed again; each
change of health goes to ``on_status`` as an ``McpServerState``. A changed tool list
(``notifications/tools/list_changed``) is passed on to the registry, which offers it from the
next model request. A call runs within ``call_timeout``; a cancelled call (an interrupt) is
abandoned with the protocol's ``notifications/cancelled`` (the SDK sends it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from mcp import types

from taor._records import frozen
from taor.env.base import Environment
from taor.errors import ConfigurationError
from taor.tools.base import Tool, ToolContext, ToolOutput, definition_of
from taor.tools.mcp.config import McpServerConfig
from taor.tools.mcp.connection import Connection, first_error
from taor.tools.mcp.results import to_output
from taor.tools.mcp.tool import McpTool, input_schema, tool_name
from taor.tools.sources import OnChange

Status = Literal["connecting", "connected", "failed", "exited", "restarting", "closed"]
RESTART_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
EXIT_GRACE = 1.0  # how long a call cut short waits for the server's exit status


@frozen
class McpServerState:
    """A server's health as it changed: ``status``, why (``message``), its tool count."""

    server: str
    status: Status
    message: str = ""
    tools: int = 0
    transport: str = "stdio"


OnStatus = Callable[[McpServerState], None]


def _ignore(state: McpServerState) -> None:
    return None


class McpServer:
    """See the module docstring. ``variables`` fill ``${VAR}`` (the process's by default)."""

    def __init__(
        self,
        config: McpServerConfig,
        *,
        environment: Environment,
        on_status: OnStatus = _ignore,
        variables: Mapping[str, str] | None = None,
        restart_delays: Sequence[float] = RESTART_DELAYS,
    ) -> None:
        self.config = config
        self.on_status = on_status
        self.state = McpServerState(server=config.name, status="connecting")
        self._environment = environment
        self._variables = variables
        self._delays = tuple(restart_delays) or (0.0,)
        self._connection: Connection | None = None
        self._offered: tuple[McpTool, ...] = ()
        self._listeners: list[OnChange] = []
        self._supervisor: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()  # connections given up, ending
        self._closed = False

    @property
    def name(self) -> str:
        return self.config.name

    def tools(self) -> Sequence[Tool]:
        return self._offered

    def subscribe(self, on_change: OnChange) -> None:
        self._listeners.append(on_change)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connection(self) -> Connection | None:
        return self._connection

    async def start(self) -> None:
        """Connect (see the module docstring); never raises."""
        if await self._connect():
            self._supervisor = asyncio.create_task(self._supervise())

    async def restart(self) -> bool:
        """Connect again now (``/mcp restart``): whether it is connected."""
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
            self._supervisor = None
        await self._drop()
        self._closed = False
        await self.start()
        return self.state.status == "connected"

    async def close(self) -> None:
        self._closed = True
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        await self._drop()
        await asyncio.gather(*self._closing)
        self._report("closed", "")

    async def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()

    async def _connect(self) -> bool:
        self._report("connecting", "")
        try:
            config = self.config.expanded(self._variables)
        except ConfigurationError as error:
            self._report("failed", str(error))
            return False
        connection = Connection(config, self._environment, self._tools_changed)
        try:
            await asyncio.wait_for(connection.ready.wait(), self.config.startup_timeout or None)
        except TimeoutError:  # ended in the background: a server deaf to SIGTERM takes 2 s more
            self._failed(f"did not answer within {self.config.startup_timeout:g} s")
            closing = asyncio.create_task(connection.close())
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
            return False
        if connection.session is None:
            await connection.close()
            return self._failed(f"could not start: {connection.describe_end()}")
        self._connection = connection
        self._offer(connection.tools)
        self._report("connected", "")
        return True

    def _failed(self, message: str) -> bool:
        self._offer([])
        self._report("failed", message)
        return False

    async def _supervise(self) -> None:
        """Restart the server each time it ends, with back-off, until it is given up."""
        while not self._closed and self._connection is not None:
            connection = self._connection
            await connection.ended.wait()
            if self.closed:
                return
            await connection.close()
            self._connection = None
            self._offer([])
            if not self.config.command:  # an HTTP server is not ours to start again
                self._report("failed", f"the connection ended: {connection.describe_end()}")
                return
            self._report("exited", connection.describe_end())
            if not await self._restart_with_backoff():
                return

    async def _restart_with_backoff(self) -> bool:
        for attempt in range(self.config.max_restarts):
            self._report("restarting", f"try {attempt + 1} of {self.config.max_restarts}")
            await asyncio.sleep(self._delays[min(attempt, len(self._delays) - 1)])
            if await self._connect():
                return True
        self._report("failed", f"gave up after {self.config.max_restarts} restarts")
        return False

    def _tools_changed(self, tools: list[types.Tool]) -> None:
        self._offer(tools)
        self._report("connected", "tool list changed")

    def _offer(self, tools: Sequence[types.Tool]) -> None:
        """Offer ``tools`` (one whose name or schema a provider would refuse is left out, and
        the status says so) and tell the listeners."""
        offered, refused = [], []
        for tool in tools:
            made = self._tool(tool)
            try:
                definition_of(made)
            except ConfigurationError as error:
                refused.append(str(error))
                continue
            offered.append(made)
        self._offered = tuple(offered)
        for listener in self._listeners:
            listener()
        if refused:
            self._report(self.state.status, "left out: " + "; ".join(refused))

    def _tool(self, tool: types.Tool) -> McpTool:
        hints = tool.annotations
        read_only = bool(hints and hints.read_only_hint)
        return McpTool(
            name=tool_name(self.name, tool.name),
            description=tool.description or tool.title or tool.name,
            parameters=input_schema(tool.input_schema),
            read_only=read_only,
            remote_name=tool.name,
            server=self.name,
            call=self.call,
        )

    def _report(self, status: Status, message: str) -> None:
        self.state = McpServerState(
            server=self.name,
            status=status,
            message=message,
            tools=len(self._offered),
            transport=self.config.transport,
        )
        self.on_status(self.state)

    async def call(
        self, remote: str, arguments: Mapping[str, Any], context: ToolContext
    ) -> ToolOutput:
        """Call the server's tool ``remote``: its result, or an error result that says why."""
        connection = self._connection
        session = connection.session if connection is not None else None
        if connection is None or session is None:
            detail = f" ({self.state.message})" if self.state.message else ""
            return ToolOutput.error(
                f"MCP server {self.name} is not connected: {self.state.status}{detail}."
            )
        try:
            result = await session.call_tool(
                remote, dict(arguments), read_timeout_seconds=self.config.call_timeout or None
            )
        except Exception as error:  # cancellation (an interrupt) goes on: the SDK tells the server
            if connection.ended.is_set():
                return await self._died_during_call(connection)
            return ToolOutput.error(f"MCP server {self.name}: {_explain(first_error(error))}")
        return to_output(result)

    async def _died_during_call(self, connection: Connection) -> ToolOutput:
        process = connection.process
        if process is not None:  # its exit status, once it is reaped
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), EXIT_GRACE)
        restarting = bool(self.config.command and self.config.max_restarts)
        then = (
            " It is being restarted; the call may be tried again once it is back."
            if restarting
            else ""
        )
        return ToolOutput.error(
            f"MCP server {self.name} exited during the call ({connection.describe_end()}).{then}"
        )


def _explain(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text if "timed out" not in text.lower() else f"{text} (the call timeout is a setting)"
