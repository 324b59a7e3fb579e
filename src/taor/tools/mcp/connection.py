"""``Connection``: one live connection to an MCP server, held by a task of its own.

The SDK's transports and ``ClientSession`` are async context managers whose task groups must be
entered and left in one task, so a connection runs in its own task: it connects, initializes,
lists the tools (and the prompts, when it has some), sets ``ready`` and then waits until it is closed or its server goes away
(``ended``: the stdio server's output ended, or the connection failed). Calls are made from
other tasks through ``session``. A ``notifications/tools/list_changed`` has the tools listed
again and ``on_tools`` called with them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from mcp import ClientSession, types

from taor._version import __version__
from taor.env.base import Environment, Spawned
from taor.tools.mcp.config import McpServerConfig
from taor.tools.mcp.transport import connect_streams

OnTools = Callable[[list[types.Tool]], None]
CLOSE_GRACE = 5.0
MAX_PAGES = 100


class Connection:
    """See the module docstring; ``config`` has its variables expanded already."""

    def __init__(self, config: McpServerConfig, environment: Environment, on_tools: OnTools):
        self.config = config
        self.ready = asyncio.Event()
        self.ended = asyncio.Event()  # the server is gone (or the connection failed)
        self.session: ClientSession | None = None
        self.process: Spawned | None = None
        self.tools: list[types.Tool] = []
        self.prompts: list[types.Prompt] = []
        self.error: BaseException | None = None
        self._environment = environment
        self._on_tools = on_tools
        self._stop = asyncio.Event()
        self._relisting: set[asyncio.Task[None]] = set()
        self.task = asyncio.create_task(self._run(), name=f"mcp server {config.name}")

    async def _run(self) -> None:
        try:
            async with (
                connect_streams(self.config, self._environment, self.ended) as (streams, process),
                ClientSession(
                    *streams,
                    message_handler=self._on_message,
                    client_info=types.Implementation(name="taor", version=__version__),
                ) as session,
            ):
                self.process = process
                await session.initialize()
                self.tools = await list_tools(session)
                capabilities = session.server_capabilities
                if capabilities is not None and capabilities.prompts is not None:
                    self.prompts = (await session.list_prompts()).prompts
                self.session = session
                self.ready.set()
                await _first(self._stop.wait(), self.ended.wait())
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # an ExceptionGroup from the SDK's task groups
            self.error = first_error(error)
        finally:
            self.session = None
            self.ended.set()
            self.ready.set()

    async def _on_message(self, message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            task = asyncio.create_task(self._relist())
            self._relisting.add(task)
            task.add_done_callback(self._relisting.discard)

    async def _relist(self) -> None:
        session = self.session
        if session is None:
            return
        with contextlib.suppress(Exception):  # the server went away meanwhile
            self.tools = await list_tools(session)
            self._on_tools(self.tools)

    async def close(self) -> None:
        """Leave the connection (the stdio server is terminated); never raises. One that never
        got ready is cancelled at once (a hanging server does not read what is sent)."""
        self._stop.set()
        for task in self._relisting:
            task.cancel()
        if self.session is None and not self.task.done():
            self.task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), CLOSE_GRACE)
        except (TimeoutError, asyncio.CancelledError):
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
        except Exception:
            pass

    def describe_end(self) -> str:
        """Why the connection ended, for a person: the error, the exit status, stderr's tail."""
        parts = []
        if self.error is not None:
            parts.append(f"{type(self.error).__name__}: {self.error}")
        process = self.process
        if process is not None and process.returncode is not None:
            parts.append(f"exit status {process.returncode}")
        if process is not None and process.stderr.strip():
            tail = process.stderr.strip().splitlines()[-1][:200]
            parts.append(f"stderr: {tail}")
        return "; ".join(parts) or "the connection closed"


async def list_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def first_error(error: BaseException) -> BaseException:
    """The first error inside nested exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


async def _first(*waits: object) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]  # type: ignore[call-overload]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
