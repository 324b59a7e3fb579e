"""``taor -p`` with MCP servers, as a person runs it: servers from ``--mcp-config`` start and
their tools reach the model; a project's ``.mcp.json`` starts nothing until its folder is
trusted, and says so in one line; a server that fails is one line and the run goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from taor.testing import FakeProviderServer, text, tool_calls

from ..tools.mcp.support import DEMO
from .support import local, taor

DEMO_ENTRY = {"command": sys.executable, "args": [str(DEMO)]}


def project(tmp_path: Path, servers: dict[str, object]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return root


def test_a_projects_servers_start_only_once_its_folder_is_trusted(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    root = project(tmp_path, {"demo": DEMO_ENTRY})
    server.push(text("no tools"))
    done = taor("-p", "hi", *local(server), cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "demo (.mcp.json)" in done.stderr
    assert "taor trust" in done.stderr
    offered = [t["function"]["name"] for t in server.requests[0].json.get("tools", [])]
    assert not [name for name in offered if name.startswith("mcp__")]

    server.push(tool_calls(("mcp__demo__echo", {"text": "trusted"})), text("Echoed."))
    done = taor("-p", "echo", *local(server), "--trust", cwd=root)
    assert (done.returncode, done.stdout, done.stderr) == (0, "Echoed.\n", "")
    sent = server.requests[-1].json["messages"]
    assert any("echo: trusted" in json.dumps(m) for m in sent)


def test_given_servers_start_and_a_failing_one_is_one_line(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    given = tmp_path / "servers.json"
    servers = {"demo": DEMO_ENTRY, "broken": {"command": str(tmp_path / "missing-server")}}
    given.write_text(json.dumps({"mcpServers": servers}))
    server.push(tool_calls(("mcp__demo__add", {"a": 20, "b": 22})), text("42 it is."))
    done = taor("-p", "add", *local(server), "--mcp-config", str(given), cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == "42 it is.\n"
    (line,) = done.stderr.splitlines()
    assert line.startswith("taor: MCP server broken could not start") and "going on" in line
    sent = json.dumps(server.requests[-1].json["messages"])
    assert "sum" in sent and "42" in sent
