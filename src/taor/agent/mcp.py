"""A session's MCP servers (``Session(..., mcp_servers=[...])``): one ``McpServers`` source on
its registry, started with the other sources, whose health changes become
``mcp_server_status`` events. The SDK is imported only when servers are given."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from taor.agent.events import Event, McpServerStatus
from taor.env.base import Environment
from taor.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from taor.tools.mcp.config import McpServerConfig
    from taor.tools.mcp.server import McpServerState
    from taor.tools.mcp.servers import McpServers


def attach_mcp(
    registry: ToolRegistry,
    environment: Environment,
    configs: Sequence[McpServerConfig],
    publish: Callable[[Event], None],
) -> McpServers | None:
    """The servers as a source of ``registry`` (None for none)."""
    if not configs:
        return None
    from taor.tools.mcp.servers import McpServers

    def report(state: McpServerState) -> None:
        publish(
            McpServerStatus(
                server=state.server,
                status=state.status,
                message=state.message,
                tools=state.tools,
                transport=state.transport,
            )
        )

    servers = McpServers(configs, environment=environment, on_status=report)
    registry.add_source(servers)
    return servers
