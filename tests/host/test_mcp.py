"""Where a run's MCP servers come from: the person's config, the project's files (only once its
folder is trusted), ``--mcp-config`` files; ``${VAR}`` filled at start, secrets never shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taor.errors import ConfigurationError
from taor.host.mcp import held_back_line, mcp_plan
from taor.tools.mcp.config import McpServerConfig, servers_from_json

USER_TOML = """
[mcp]
startup_timeout = 5
call_timeout = 60

[mcp.servers.git]
command = "git-mcp"
args = ["--repo", "${REPO:-.}"]
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }

[mcp.servers.docs]
url = "https://docs.example/mcp"
headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
startup_timeout = 2
"""


def folders(tmp_path: Path, *, project_json: dict[str, object] | None = None) -> tuple[Path, Path]:
    root, config_dir = tmp_path / "project", tmp_path / "config"
    (root / ".taor").mkdir(parents=True)
    config_dir.mkdir()
    (config_dir / "config.toml").write_text(USER_TOML)
    if project_json is not None:
        (root / ".mcp.json").write_text(json.dumps(project_json))
    return root, config_dir


PROJECT = {"mcpServers": {"tests": {"command": "run-tests-mcp"}, "git": {"command": "evil"}}}


def test_the_persons_servers_come_with_the_mcp_defaults(tmp_path: Path) -> None:
    root, config_dir = folders(tmp_path)
    plan = mcp_plan(root, config_dir, trusted=False)
    git, docs = plan.servers
    assert (git.name, git.command, git.args) == ("git", "git-mcp", ("--repo", "${REPO:-.}"))
    assert (git.startup_timeout, git.call_timeout) == (5.0, 60.0)
    assert (docs.transport, docs.startup_timeout) == ("http", 2.0)
    assert plan.held_back == ()


def test_a_projects_servers_are_held_back_until_its_folder_is_trusted(tmp_path: Path) -> None:
    root, config_dir = folders(tmp_path, project_json=PROJECT)
    (root / ".taor" / "config.toml").write_text('[mcp.servers.lint]\ncommand = "lint-mcp"\n')
    untrusted = mcp_plan(root, config_dir, trusted=False)
    assert [s.command for s in untrusted.servers] == ["git-mcp", ""]
    assert untrusted.held_back == (
        "lint (.taor/config.toml)",
        "tests (.mcp.json)",
        "git (.mcp.json)",
    )
    assert "taor trust" in held_back_line(untrusted) and "tests (.mcp.json)" in held_back_line(
        untrusted
    )
    trusted = mcp_plan(root, config_dir, trusted=True)
    assert {s.name: s.command for s in trusted.servers} == {
        "git": "evil",
        "docs": "",
        "lint": "lint-mcp",
        "tests": "run-tests-mcp",
    }


def test_an_explicit_file_is_started_and_wins(tmp_path: Path) -> None:
    root, config_dir = folders(tmp_path, project_json=PROJECT)
    given = tmp_path / "servers.json"
    given.write_text(json.dumps({"mcpServers": {"git": {"command": "mine", "cwd": "/srv"}}}))
    plan = mcp_plan(root, config_dir, trusted=False, files=[given])
    assert {s.name: s.command for s in plan.servers} == {"git": "mine", "docs": ""}
    with pytest.raises(ConfigurationError, match="no such MCP config file"):
        mcp_plan(root, config_dir, trusted=False, files=[tmp_path / "missing.json"])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"servers": {}}, "expected"),
        ({"mcpServers": {"x": {"command": "a", "url": "http://b"}}}, "either a command"),
        ({"mcpServers": {"x": {}}}, "either a command"),
        ({"mcpServers": {"x": {"command": "a", "args": "b"}}}, "args must be a list"),
        ({"mcpServers": {"x": {"command": "a", "colour": "red"}}}, "unknown key"),
        ({"mcpServers": {"bad name": {"command": "a"}}}, "letters, digits"),
        ({"mcpServers": {"x": {"url": "ws://a", "type": "sse"}}}, "not supported"),
    ],
)
def test_bad_entries_say_what_to_fix(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        servers_from_json(data, source="f.json")


def test_variables_are_filled_at_start_and_secrets_never_shown() -> None:
    server = McpServerConfig(
        name="docs",
        url="https://${HOST}/mcp",
        headers={"Authorization": "Bearer ${TOKEN}"},
    )
    filled = server.expanded({"HOST": "docs.example", "TOKEN": "s3cret"})
    assert filled.url == "https://docs.example/mcp"
    assert filled.headers == {"Authorization": "Bearer s3cret"}
    assert "s3cret" not in json.dumps(filled.redacted())
    assert server.to_json()["headers"] == {"Authorization": "Bearer ${TOKEN}"}
    with pytest.raises(ConfigurationError, match="the variable TOKEN is not set"):
        server.expanded({"HOST": "x"})
