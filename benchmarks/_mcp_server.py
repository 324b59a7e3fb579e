"""The MCP server the MCP benchmark talks to (the SDK's MCPServer over stdio): one read-only
``echo`` tool. ``--hang``: a server that starts and never answers."""

from __future__ import annotations

import sys

if "--hang" in sys.argv:
    sys.stdin.read()
    raise SystemExit(0)

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("bench")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Say the text back."""
    return text


if __name__ == "__main__":
    server.run()
