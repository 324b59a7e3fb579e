"""One taor using another as an MCP server: the outer session reaches ``taor mcp serve``
through taor's own MCP client (``Session(mcp_servers=...)``) or through the ``mcp`` SDK's client
alone, and the inner taor does the work."""

from __future__ import annotations

import sys
from pathlib import Path

import mcp_types as types
from mcp import Client

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.llm.types import ToolResultPart
from taor.testing import FakeProviderServer, ScriptedModel, text, tool_calls
from taor.tools.decorator import tool
from taor.tools.mcp.config import McpServerConfig

from ..cli.support import environ, local
from .support import stdio

BYPASS = SessionConfig(permissions=PermissionConfig(mode="bypass"))


def sent_result(model: ScriptedModel) -> str:
    parts = model.requests[1].messages[-1].parts
    (sent,) = [part for part in parts if isinstance(part, ToolResultPart)]
    return sent.text


async def test_a_session_delegates_to_another_taor_through_its_own_mcp_client(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "echo hello > out.txt"})), text("Wrote out.txt."))
    xdg = {k: v for k, v in environ(tmp_path).items() if k.startswith("XDG_")}
    inner = McpServerConfig(
        name="taor",
        command=sys.executable,
        args=("-m", "taor.mcp_server", *local(server), "--permission-mode", "bypass"),
        env=xdg,
        cwd=str(tmp_path),
    )
    model = ScriptedModel(
        [tool_calls(("mcp__taor__run_task", {"task": "write hello"})), text("Done.")]
    )
    environment = LocalEnvironment(str(tmp_path))
    async with Session(
        model, environment=environment, mcp_servers=[inner], config=BYPASS, profile=None
    ) as session:
        outcome = await session.run("have the other taor write hello")
    assert outcome.text == "Done."
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert "Wrote out.txt." in sent_result(model)
    assert server.requests[0].json["messages"][-1]["content"] == "write hello"


async def test_a_session_delegates_a_task_to_another_taor_over_the_sdk_client(
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
    environment = MemoryEnvironment()
    async with Session(model, environment=environment, tools=[delegate], config=BYPASS) as session:
        outcome = await session.run("have the other taor write hello")
    assert outcome.text == "Done."
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert sent_result(model) == "Wrote out.txt."
    assert server.requests[0].json["messages"][-1]["content"] == "write hello"
