"""Configuration as people set it: the user's and the project's config files, ``TAOR_*``
variables, the project's ``.env`` and flags, each read by the real ``taor`` process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

from .support import home, in_process, local, taor


def project(tmp_path: Path, config: str = "", dotenv: str = "") -> Path:
    """A git project (its root holds ``.taor/`` and ``.env``) and a folder inside it."""
    root = tmp_path / "proj"
    (root / ".taor").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if config:
        (root / ".taor" / "config.toml").write_text(config)
    if dotenv:
        (root / ".env").write_text(dotenv)
    inside = root / "src"
    inside.mkdir()
    return inside


def user_config(cwd: Path, config: str) -> None:
    folder = home(cwd, "config") / "taor"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(config)


def shown(cwd: Path, env: dict[str, str] | None = None, *flags: str) -> dict[str, dict[str, str]]:
    done = in_process("config", "show", "--json", *flags, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    settings: dict[str, dict[str, str]] = json.loads(done.stdout)["settings"]
    return settings


def test_each_layer_overrides_the_one_before(tmp_path: Path) -> None:
    cwd = project(tmp_path, 'effort = "low"\nmax_turns = 5\nmax_wall = 60\n')
    user_config(cwd, 'effort = "minimal"\nmax_turns = 3\nmax_wall = 30\nmax_budget_usd = 1.5\n')
    s = shown(cwd, {"TAOR_MAX_WALL": "90", "TAOR_MAX_TURNS": "7"})
    user = str(home(cwd, "config") / "taor" / "config.toml")
    assert s["max_budget_usd"] == {"value": 1.5, "source": user}
    assert s["effort"]["value"] == "low" and s["effort"]["source"].endswith(".taor/config.toml")
    assert s["max_wall"] == {"value": 90.0, "source": "env TAOR_MAX_WALL"}
    assert s["max_turns"] == {"value": 7, "source": "env TAOR_MAX_TURNS"}
    assert shown(cwd)["permissions.mode"] == {"value": "default", "source": "default"}


def test_flags_win_and_rule_lists_add_up(tmp_path: Path, server: FakeProviderServer) -> None:
    cwd = project(tmp_path, '[permissions]\nmode = "plan"\ndeny = ["shell(rm *)"]\n')
    user_config(cwd, '[permissions]\ndeny = ["shell(curl *)"]\n')
    server.push(tool_calls(("shell", {"command": "echo hi > made.txt"})), text("Done."))
    done = taor(
        "-p", "go", *local(server), "--permission-mode", "bypass", "--deny", "edit_file", cwd=cwd
    )
    assert done.returncode == 0 and (cwd / "made.txt").read_text() == "hi\n"  # bypass won
    s = shown(cwd, None)
    assert s["permissions.deny"]["value"] == ["shell(curl *)", "shell(rm *)"]


def test_the_project_file_and_env_choose_the_model(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    url = server.base_url("openai-compat")
    cwd = project(tmp_path, f'model = "openai-compat:local"\nbase_url = "{url}"\n')
    server.push(text("From the config."))
    done = taor("-p", "hi", "--trust", cwd=cwd)  # a project's base URL: a trusted folder's
    assert (done.returncode, done.stdout) == (0, "From the config.\n")
    server.push(text("From the environment."))
    done = taor("-p", "hi", "--trust", cwd=cwd, env={"TAOR_MODEL": "openai-compat:other"})
    assert server.requests[-1].json["model"] == "other"


def test_a_key_in_dotenv_is_used_and_never_shown_or_written(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    secret = "sk-ant-test-0123456789abcdef"
    cwd = project(tmp_path, dotenv=f"ANTHROPIC_API_KEY={secret}\n")
    assert in_process("trust", cwd=cwd).returncode == 0  # a project's key: a trusted folder's
    server.push(text("Hello from the default model."))
    endpoint = {"ANTHROPIC_BASE_URL": server.base_url("anthropic")}
    done = taor("-p", "hi", "--verbose", cwd=cwd, env=endpoint)
    assert done.returncode == 0, done.stderr
    sent = server.requests[-1].headers
    assert secret in (sent.get("x-api-key"), sent.get("authorization", "").removeprefix("Bearer "))
    assert server.requests[-1].json["model"] == "claude-sonnet-4-5"
    listing = in_process("config", "show", cwd=cwd).stdout
    assert "keys.anthropic" in listing and ".env ANTHROPIC_API_KEY" in listing
    written = [
        p.read_text()
        for what in ("data", "state")
        for p in home(cwd, what).rglob("*")
        if p.is_file()
    ]
    assert written and all(secret not in body for body in written)
    assert secret not in listing + done.stdout + done.stderr


def test_the_environment_wins_over_dotenv(tmp_path: Path) -> None:
    cwd = project(tmp_path, dotenv="TAOR_EFFORT=low\nOPENAI_API_KEY=from-file\n")
    assert in_process("trust", cwd=cwd).returncode == 0
    s = shown(cwd, {"TAOR_EFFORT": "high"})
    assert s["effort"] == {"value": "high", "source": "env TAOR_EFFORT"}
    assert s["keys.openai"] == {"value": "********", "source": ".env OPENAI_API_KEY"}


@pytest.mark.parametrize(
    ("config", "env", "says"),
    [
        ('[permissions]\nmode = "yolo"\n', {}, "permissions.mode = 'yolo' is not allowed"),
        ("max_turns = -2\n", {}, "must be a positive whole number"),
        ('modle = "x"\n', {}, "unknown key 'modle' (did you mean 'model'?)"),
        ("model = \n", {}, "not valid TOML"),
        ("[tool_output_limits]\nshell = 0\n", {}, "tool names to positive whole numbers"),
        ("", {"TAOR_SANDBOX": "maybe"}, "env TAOR_SANDBOX: sandbox = 'maybe'"),
    ],
)
def test_a_bad_value_names_where_it_is_and_what_is_allowed(
    tmp_path: Path, config: str, env: dict[str, str], says: str
) -> None:
    cwd = project(tmp_path, config)
    for args in (["-p", "hi"], ["config", "show"]):
        done = taor(*args, cwd=cwd, env=env)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
        if config:
            assert ".taor/config.toml" in done.stderr


def test_limits_and_instructions_from_config_reach_the_session(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    cwd = project(tmp_path, "[tool_output_limits]\nshell = 200\n")
    (home(cwd, "config") / "taor").mkdir(parents=True)
    (home(cwd, "config") / "taor" / "AGENTS.md").write_text("Always answer in French.")
    server.push(tool_calls(("shell", {"command": "seq 1 2000"})), text("Fini."))
    done = taor("-p", "count", *local(server), "--permission-mode", "bypass", cwd=cwd)
    assert done.returncode == 0, done.stderr
    system = server.requests[0].json["messages"][0]["content"]
    assert "Always answer in French." in system
    result = server.requests[1].json["messages"][-1]["content"]
    assert len(result) < 1000 and "2000" in result  # cut to 200 characters, head and tail


def test_the_log_file_has_each_response_id_and_verbose_shows_it(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("list_dir", {"path": "."})), text("Empty."))
    done = taor("-p", "look", *local(server), "--verbose", cwd=tmp_path)
    assert done.returncode == 0
    log = (home(tmp_path, "state") / "taor" / "log" / "taor.log").read_text()
    ids = [
        line.split("model response ")[1].split(":")[0]
        for line in log.splitlines()
        if "model response" in line
    ]
    assert len(ids) == 2 and all(i.startswith("chatcmpl-") for i in ids)
    assert "tool list_dir" in log and f"model response {ids[0]}" in done.stderr
