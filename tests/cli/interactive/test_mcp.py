"""MCP servers in the interactive mode: a project's ``.mcp.json`` is part of the trust question
and starts only once trusted; ``/mcp`` shows the servers, their tools, and restarts one; a
server's prompt is a command and ``@server:uri`` attaches a resource."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

from ...tools.mcp.support import DEMO
from .conftest import Start
from .terminal import needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]


def test_a_projects_servers_wait_for_trust_then_mcp_shows_and_restarts_them(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    demo = {"command": sys.executable, "args": [str(DEMO)]}
    hang = {**demo, "args": [str(DEMO), "--hang"], "startup_timeout": 0.5}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": demo, "hang": hang}}))
    server.push(tool_calls(("mcp__demo__echo", {"text": "hello"})), text("Echoed it."))
    term = start("--permission-mode", "bypass")
    asked = term.wait_for("Trust this folder? [y/N]")
    assert "MCP server demo (.mcp.json)" in asked and "MCP server hang (.mcp.json)" in asked
    term.send("y")
    term.wait_for("MCP server demo: connected, 7 tools")
    term.wait_for("MCP server hang did not answer within 0.5 s; going on without it")
    term.ready()
    term.send("/mcp")
    shown = term.wait_for("prompts: /mcp__demo__review", whole=False)
    assert re.search(r"demo\s+connected\s+7 tools", shown)
    assert re.search(r"hang\s+failed\s+0 tools\s+did not answer within 0.5 s", shown)
    term.send("/mcp tools demo")
    term.wait_for("mcp__demo__echo (read-only): Say the text back.")
    term.send("echo hello")
    term.wait_for("Echoed it.")
    assert "echo: hello" in term.screen()
    server.push(text("Reviewed."), text("Milk noted."))
    term.send("/mcp__demo__review the parser")
    term.wait_for("Reviewed.")
    assert "Please review the parser carefully." in json.dumps(server.requests[-1].json)
    term.send("what is in @demo:notes://today")
    term.wait_for("Milk noted.")
    assert "attached: demo:notes://today" in term.screen()
    assert "buy milk" in json.dumps(server.requests[-1].json)
    term.send("/mcp restart demo")
    term.wait_for("demo: connected, 7 tools")
    term.keys("C-d")
    assert term.exit_code() == 0
