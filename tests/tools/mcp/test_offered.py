"""What a server's tool list becomes: names made safe, schemas given a root object, hints as
effects, and a tool a provider would refuse left out (said in the status) rather than failing
the session."""

from __future__ import annotations

from mcp import types

from taor.env.memory import MemoryEnvironment
from taor.tools.mcp.config import McpServerConfig
from taor.tools.mcp.server import McpServer, McpServerState
from taor.tools.mcp.tool import tool_name
from taor.tools.registry import ToolRegistry


def test_a_servers_tools_as_offered() -> None:
    states: list[McpServerState] = []
    server = McpServer(
        McpServerConfig(name="git", command="git-mcp"),
        environment=MemoryEnvironment(),
        on_status=states.append,
    )
    registry = ToolRegistry(sources=[server])
    hints = types.ToolAnnotations(read_only_hint=True)
    server._tools_changed(  # what a connection hands over after tools/list
        [
            types.Tool(name="status", input_schema={"type": "object"}, annotations=hints),
            types.Tool(name="push it", input_schema={"type": "object", "properties": {}}),
            types.Tool(
                name="broken",
                input_schema={"type": "object", "properties": {"x": {"type": "nonsense"}}},
            ),
        ]
    )
    assert registry.names() == ["mcp__git__status", "mcp__git__push_it"]
    status, push = registry.get("mcp__git__status"), registry.get("mcp__git__push_it")
    assert status is not None and push is not None
    assert status.read_only and not push.read_only
    assert dict(status.parameters) == {"type": "object", "properties": {}}
    (left_out,) = [s.message for s in states if "left out" in s.message]
    assert "mcp__git__broken" in left_out and "invalid JSON Schema" in left_out
    assert tool_name("git", "x/y.z") == "mcp__git__x_y_z"
