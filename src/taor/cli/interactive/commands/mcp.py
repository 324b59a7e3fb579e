"""``/mcp``: the session's MCP servers, their health and tools, and restarting one.

``/mcp`` lists them (status, tool count, why one failed); ``/mcp tools NAME`` lists a
server's tools (read-only ones marked); ``/mcp restart NAME`` connects it again (also after it
was given up). Health changes also show as they happen (``status_line``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from taor.cli.interactive.commands.command import Command

if TYPE_CHECKING:
    from taor.agent.events import Event
    from taor.cli.interactive.app import Repl
    from taor.tools.mcp.servers import McpServers

STYLE = {"connected": "green", "failed": "red", "exited": "yellow", "restarting": "yellow"}


def servers_of(repl: Repl) -> McpServers | None:
    return getattr(repl.session, "mcp", None)


async def show_mcp(repl: Repl, argument: str) -> None:
    servers = servers_of(repl)
    if servers is None or not servers.servers:
        repl.screen.line(
            "no MCP servers in this session (taor mcp add NAME COMMAND, or a project's "
            ".mcp.json in a trusted folder)",
            "dim",
        )
        return
    action, _, name = argument.partition(" ")
    if not action:
        repl.screen.print(_table(servers))
        return
    server = servers.servers.get(name.strip())
    if action not in ("tools", "restart") or server is None:
        known = ", ".join(servers.servers)
        repl.screen.line(f"/mcp [tools NAME | restart NAME] (servers: {known})", "yellow")
        return
    if action == "tools":
        tools = server.tools()
        for tool in tools:
            mark = " (read-only)" if tool.read_only else ""
            repl.screen.line(f"  {tool.name}{mark}: {tool.description.splitlines()[0]}")
        if not tools:
            repl.screen.line(f"{server.name} offers no tools now ({server.state.status})", "dim")
        return
    repl.screen.line(f"restarting {server.name}…", "dim")
    connected = await server.restart()
    state = server.state
    if connected:
        repl.screen.line(f"{server.name}: connected, {state.tools} tools", "green")
    else:
        repl.screen.line(f"{server.name}: {state.status}: {state.message}", "red")


def _table(servers: McpServers) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    table.add_column(justify="right")
    table.add_column(style="dim")
    for server in servers.servers.values():
        state = server.state
        status = Text(state.status, style=STYLE.get(state.status, ""))
        table.add_row(server.name, status, f"{state.tools} tools", state.message)
    return table


def status_line(event: Event) -> tuple[str, str] | None:
    """The line a health change shows as it happens (None for the quiet ones)."""
    status, server, message = (
        getattr(event, "status", ""),
        getattr(event, "server", ""),
        getattr(event, "message", ""),
    )
    match status:
        case "failed":
            return f"⚠ MCP server {server} {message}; going on without it (/mcp)", "red"
        case "exited":
            return f"⚠ MCP server {server} exited ({message}); restarting it", "yellow"
        case "connected" if message != "tool list changed":
            return f"MCP server {server}: connected, {getattr(event, 'tools', 0)} tools", "dim"
    return None


MCP = Command(
    name="mcp",
    run=show_mcp,
    arguments="[tools NAME | restart NAME]",
    help="the MCP servers: status, tools, restart",
    choices=("tools", "restart"),
)
