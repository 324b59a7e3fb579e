"""``McpServers``: a session's MCP servers as one ``ToolSource`` that starts them concurrently.

``start`` connects every server at once, each within its own timeout, so start-up takes as long
as the slowest server that answers (a hanging one no longer than its timeout), and never raises:
a server that fails is reported and left out. ``tools`` are theirs together, in the order the
servers are given. ``attach`` and ``prompt`` reach their resources and prompts (``extras``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from taor.env.base import Environment
from taor.errors import ToolError
from taor.tools.base import Tool
from taor.tools.mcp.config import McpServerConfig
from taor.tools.mcp.server import McpServer, OnStatus, _ignore
from taor.tools.sources import OnChange

if TYPE_CHECKING:
    from taor.tools.mcp.extras import AttachedResources


class McpServers:
    """See the module docstring."""

    name = "mcp"

    def __init__(
        self,
        configs: Iterable[McpServerConfig],
        *,
        environment: Environment,
        on_status: OnStatus = _ignore,
        variables: Mapping[str, str] | None = None,
    ) -> None:
        self.servers: dict[str, McpServer] = {}
        for config in configs:
            self.servers[config.name] = McpServer(
                config, environment=environment, on_status=on_status, variables=variables
            )

    def set_on_status(self, on_status: OnStatus) -> None:
        for server in self.servers.values():
            server.on_status = on_status

    async def start(self) -> None:
        await asyncio.gather(*(s.start() for s in self.servers.values()))

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.servers.values()), return_exceptions=True)

    def tools(self) -> Sequence[Tool]:
        return [tool for server in self.servers.values() for tool in server.tools()]

    async def attach(self, text: str) -> AttachedResources:
        """``text`` with the resources it names as ``@server:uri`` appended (``extras``)."""
        from taor.tools.mcp.extras import attach_resources

        return await attach_resources(text, self.servers)

    async def prompt(self, server: str, name: str, argument: str = "") -> str:
        """The text of ``server``'s prompt ``name`` (``ToolError`` when there is none)."""
        from taor.tools.mcp.extras import prompt_text

        found = self.servers.get(server)
        if found is None:
            raise ToolError(f"no MCP server {server!r} in this session.")
        return await prompt_text(found, name, argument)

    def subscribe(self, on_change: OnChange) -> None:
        for server in self.servers.values():
            server.subscribe(on_change)
