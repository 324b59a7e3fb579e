"""One taor using another as an MCP server: the outer session's tool is a client of ``taor mcp
serve`` (written with the ``mcp`` SDK's client alone), and the inner taor does the work."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
from mcp import Client

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm.types import ToolResultPart
from taor.testing import FakeProviderServer, ScriptedModel, text, tool_calls
from taor.tools.decorator import tool

from .support import stdio


async def test_a_session_delegates_a_task_to_another_taor(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "echo hello > out.txt"})), text("Wrote out.txt."))
    inner = stdio(tmp_path, server, "--permission-mode", "bypass")

    @tool(name="delegate")
    async def delegate(task: str) -> str:
        """Give a task to another taor.

        Args:
            task: What it should do.
        """
        async with Client(inner) as client:
            result = await client.call_tool("run_task", {"task": task})
        return "\n".join(p.text for p in result.content if isinstance(p, types.TextContent))

    model = ScriptedModel([tool_calls(("delegate", {"task": "write hello"})), text("Done.")])
    config = SessionConfig(permissions=PermissionConfig(mode="bypass"))
    environment = MemoryEnvironment()
    async with Session(model, environment=environment, tools=[delegate], config=config) as session:
        outcome = await session.run("have the other taor write hello")
    assert outcome.text == "Done."
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    parts = model.requests[1].messages[-1].parts
    (sent,) = [part for part in parts if isinstance(part, ToolResultPart)]
    assert sent.text == "Wrote out.txt."
    assert server.requests[0].json["messages"][-1]["content"] == "write hello"
