"""``taor mcp add|list|get|remove`` as a person uses them, and ``taor mcp serve`` handed to
taor's MCP server front end by name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ..tools.mcp.support import DEMO
from .support import home, in_process


def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_add_list_get_and_remove_in_both_scopes(tmp_path: Path) -> None:
    root = project(tmp_path)
    mine = home(root, "config") / "taor" / "mcp.json"
    added = in_process(
        "mcp",
        "add",
        "demo",
        "-e",
        "TOKEN=s3cret",
        "--",
        sys.executable,
        str(DEMO),
        "--name",
        "x",
        cwd=root,
    )
    assert added.returncode == 0 and str(mine) in added.stdout
    assert json.loads(mine.read_text())["mcpServers"]["demo"]["args"] == [str(DEMO), "--name", "x"]
    assert mine.stat().st_mode & 0o777 == 0o600
    shared = in_process(
        "mcp",
        "add",
        "-s",
        "project",
        "docs",
        "https://docs.example/mcp",
        "-H",
        "Authorization: Bearer ${T}",
        cwd=root,
    )
    assert shared.returncode == 0 and "taor trust" in shared.stdout
    assert json.loads((root / ".mcp.json").read_text())["mcpServers"]["docs"] == {
        "type": "http",
        "url": "https://docs.example/mcp",
        "headers": {"Authorization": "Bearer ${T}"},
    }
    listed = in_process("mcp", "list", "--no-check", cwd=root).stdout.splitlines()
    assert listed[0].startswith("demo: ") and listed[0].endswith("not checked")
    assert (
        listed[1].startswith("docs: https://docs.example/mcp (http") and "not trusted" in listed[1]
    )
    got = in_process("mcp", "get", "demo", cwd=root)
    assert json.loads(got.stdout)["env"] == {"TOKEN": "***"} and "s3cret" not in got.stdout
    assert in_process("mcp", "remove", "docs", cwd=root).returncode == 0
    assert json.loads((root / ".mcp.json").read_text()) == {"mcpServers": {}}
    missing = in_process("mcp", "remove", "docs", cwd=root)
    assert missing.returncode == 2 and "no MCP server 'docs'" in missing.stderr


def test_list_starts_each_server_once_and_says_whether_it_answers(tmp_path: Path) -> None:
    root = project(tmp_path)
    in_process("mcp", "add", "demo", "--", sys.executable, str(DEMO), cwd=root)
    in_process("mcp", "add", "gone", str(tmp_path / "no-such-server"), cwd=root)
    listed = in_process("mcp", "list", cwd=root)
    lines = listed.stdout.splitlines()
    assert lines[0].endswith("connected, 7 tools")
    assert lines[1].startswith("gone: ") and "failed: could not start" in lines[1]


def test_mistakes_are_one_line_and_serve_belongs_to_the_mcp_server_front_end(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    for argv, message in [
        (["mcp"], "say what to do"),
        (["mcp", "add", "x"], "required: target"),
        (["mcp", "add", "bad name", "cmd"], "letters, digits"),
        (["mcp", "add", "web", "https://a/mcp", "extra"], "takes a URL only"),
        (["mcp", "add", "cmd", "run", "-H", "A: b"], "--header is for http servers"),
        (["mcp", "add", "cmd", "run", "-e", "NOEQUALS"], "expected --env KEY=VALUE"),
        (["mcp", "get", "nothing"], "no MCP server 'nothing'"),
    ]:
        done = in_process(*argv, cwd=root)
        assert done.returncode == 2 and message in done.stderr, (argv, done.stderr)
        assert done.stderr.count("\n") == 1
    served = in_process("mcp", "serve", "--help", cwd=root)
    try:
        import taor.mcp_server.command  # noqa: F401 (another front end, when installed)
    except ImportError:
        assert served.returncode == 2 and "taor mcp serve is not available" in served.stderr
