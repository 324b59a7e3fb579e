"""``/mcp``: the session's MCP servers, their health and tools, and restarting one.

``/mcp`` lists them (status, tool count, why one failed) and their prompts; ``/mcp tools
NAME`` lists a server's tools (read-only ones marked), ``/mcp resources NAME`` its resources;
``/mcp restart NAME`` connects it again (also after it was given up). Health changes also show
as they happen (``status_line``). A server's prompt is a command of its own,
``/mcp__SERVER__PROMPT args``, whose text is sent as the input; ``@SERVER:URI`` in an input
attaches that resource (``attach_resources``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from taor.cli.interactive.commands.command import Command
from taor.errors import TaorError

if TYPE_CHECKING:
    from taor.agent.context.mentions import Attached
    from taor.agent.events import Event
    from taor.cli.interactive.app import Repl
    from taor.tools.mcp.server import McpServer
    from taor.tools.mcp.servers import McpServers

PROMPT_PREFIX = "mcp__"
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
        from taor.tools.mcp import extras

        repl.screen.print(_table(servers))
        names = [
            f"/{PROMPT_PREFIX}{server.name}__{p.name}"
            for server in servers.servers.values()
            for p in extras.prompts(server)
        ]
        if names:
            repl.screen.line(f"prompts: {' '.join(names)}", "dim")
        return
    server = servers.servers.get(name.strip())
    if action not in ("tools", "resources", "restart") or server is None:
        known = ", ".join(servers.servers)
        repl.screen.line(
            f"/mcp [tools NAME | resources NAME | restart NAME] (servers: {known})", "yellow"
        )
        return
    if action == "resources":
        await _resources(repl, server)
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


async def _resources(repl: Repl, server: McpServer) -> None:
    from taor.tools.mcp import extras

    try:
        found = await extras.list_resources(server)
    except TaorError as error:
        repl.screen.line(f"✗ {error}", "red")
        return
    for resource in found:
        repl.screen.line(
            f"  @{server.name}:{resource.uri}  {resource.description or resource.name}"
        )
    if not found:
        repl.screen.line(f"{server.name} has no resources", "dim")


async def run_prompt(repl: Repl, name: str, argument: str) -> None:
    """``/mcp__SERVER__PROMPT args``: the prompt's text sent as the input."""
    server_name, _, prompt = name[len(PROMPT_PREFIX) :].partition("__")
    servers = servers_of(repl)
    if servers is None or server_name not in servers.servers or not prompt:
        repl.screen.line(f"unknown command /{name}; /mcp lists the servers' prompts", "yellow")
        return
    try:
        text = await servers.prompt(server_name, prompt, argument)
    except TaorError as error:
        repl.screen.line(f"✗ {error}", "red")
        return
    await repl.send(text)


async def attach_resources(repl: Repl, attached: Attached) -> Attached:
    """``attached`` with the ``@SERVER:URI`` resources its text names appended."""
    servers = servers_of(repl)
    if servers is None:
        return attached
    found = await servers.attach(attached.text)
    return dataclasses.replace(
        attached,
        text=found.text,
        files=(*attached.files, *found.resources),
        problems=(*attached.problems, *found.problems),
    )


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
    arguments="[tools|resources|restart NAME]",
    help="the MCP servers: status, tools, resources, prompts, restart",
    choices=("tools", "resources", "restart"),
)
