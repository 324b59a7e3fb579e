"""``McpTool``: one tool of an MCP server, offered as ``mcp__SERVER__TOOL``.

Its schema is the server's input schema. Its effects follow the server's hints: a tool marked
read-only (``readOnlyHint``) is read-only (it runs beside other read-only calls and is not asked
about by default); any other (destructive, or no hint) may change anything and is asked about.
Its permission subject is its arguments' JSON, so rules name it as ``mcp__git__*`` or
``mcp__git__status(...)``. Running it asks the server (``McpServer.call``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from taor._records import frozen
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.effects import UNDECLARED, Effects

Call = Callable[[str, Mapping[str, Any], ToolContext], Awaitable[ToolOutput]]

SEPARATOR = "__"
PREFIX = "mcp"
NAME_LIMIT = 64


def tool_name(server: str, tool: str) -> str:
    """``mcp__SERVER__TOOL`` with characters providers refuse made ``_`` (cut to 64)."""
    clean = "".join(c if c.isalnum() or c in "_-" else "_" for c in tool)
    return f"{PREFIX}{SEPARATOR}{server}{SEPARATOR}{clean}"[:NAME_LIMIT]


@frozen
class McpTool:
    """A server's tool (see the module docstring); ``remote_name`` is its name on the server."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    read_only: bool
    remote_name: str
    server: str
    call: Call = dataclasses.field(repr=False, compare=False)

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        if self.read_only:
            return dataclasses.replace(UNDECLARED, writes_elsewhere=False)
        return UNDECLARED

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await self.call(self.remote_name, arguments, context)


def input_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The server's schema as an object schema (providers need ``type: object``)."""
    found = dict(schema or {})
    found.setdefault("type", "object")
    if found.get("type") == "object":
        found.setdefault("properties", {})
    return found
