"""``taor serve``'s settings from the ``[serve]`` table of the person's own config file, each
key checked by what the running service does: where it listens, where its data and database
are, how many runs it carries out at once, its model, body limit, CORS and sandbox, its
workspace templates, host folders and git clone timeout, its quota and queue size, and the
keep-alive comments of an idle event stream. Variables
and flags win over the file; a project's ``[serve]`` table is ignored with one line; a bad key
or value is one line naming it and what it takes."""

from __future__ import annotations

import http.client
import shutil
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from taor.server.config_file import keys
from taor.testing import FakeProviderServer, Reply, stall, text, tool_calls

from .process import Home, call, free_port, run, serve, stop, token_of, url_of


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def until(url: str, token: str, run_id: str, *states: str) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while (shown := call("GET", f"{url}/runs/{run_id}", token)[2])["status"] not in states:
        assert time.monotonic() < deadline, shown
        time.sleep(0.05)
    return shown  # type: ignore[no-any-return]


def heartbeat(url: str, token: str, run_id: str) -> str:
    """The first comment line of the run's event stream (a keep-alive), read within 10 s."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request(
            "GET", f"/runs/{run_id}/events", headers={"authorization": f"Bearer {token}"}
        )
        stream = connection.getresponse()
        while line := stream.readline():
            if line.startswith(b":"):
                return line.decode().strip()
        return ""
    finally:
        connection.close()


def preflight(url: str, origin: str) -> str | None:
    """The origin a CORS preflight of ``POST /runs`` from ``origin`` is allowed for."""
    asked = {"origin": origin, "access-control-request-method": "POST"}
    return call("OPTIONS", f"{url}/runs", headers=asked)[1].get("access-control-allow-origin")


def test_every_key_of_the_serve_table_takes_effect(home: Home) -> None:
    port, marker = free_port(), home.root / "marker.txt"
    marker.write_text("visible outside the sandbox\n")
    database = home.root / "elsewhere" / "service.db"
    starter = home.config_file.parent / "templates" / "starter"
    starter.mkdir(parents=True)
    (starter / "README.md").write_text("from the template\n")
    allowed = home.root / "allowed"
    allowed.mkdir()
    read_marker = tool_calls(("shell", {"command": f"cat {marker}"}))
    with (
        FakeProviderServer([read_marker, text("Read it.")]) as model,
        socket.socket() as silent,  # a git server that never answers
    ):
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        table = {
            "host": '"127.0.0.2"',
            "port": str(port),
            "data_dir": '"service"',
            "workers": "1",
            "model": '"openai-compat:m"',
            "base_url": f'"{model.url}"',
            "max_body": "4096",
            "cors_origins": '["http://tools.example"]',
            "sandbox": "false",
            "database_url": f'"sqlite:///{database}"',
            "templates_dir": '"templates"',
            "host_allowlist": f'["{allowed}"]',
            "git_timeout": "1",
            "max_runs_per_user": "2",
            "max_queue": "1",
            "heartbeat": "0.2",
        }
        spread = {"redis_url", "worker_timeout", "stream_retention"}  # tests/server/spread/
        assert set(table) | spread == set(keys()), "a [serve] key with no test of what it does"
        home.configure("[serve]\n" + "".join(f"{k} = {v}\n" for k, v in table.items()))
        process, lines = serve(home)
        url, token = url_of(lines), token_of(lines)
        data = home.config_file.parent / "service"  # relative: from the file's folder
        assert url == f"http://127.0.0.2:{port}"
        assert call("GET", f"{url}/healthz")[0] == 200
        assert lines[1].startswith(f"data in {data} (database sqlite:///{database}, ")
        assert lines[-1] == "runs are not sandboxed (sandbox = false)"
        assert database.exists() and not (data / "taor.db").exists()

        big = {"prompt": "x" * 5000, "permission_mode": "bypass"}
        assert call("POST", f"{url}/runs", token, big)[0] == 413
        assert preflight(url, "http://tools.example") == "http://tools.example"
        assert preflight(url, "http://elsewhere.example") is None

        template = {"kind": "template", "template": "starter"}
        reading = {"prompt": "read", "permission_mode": "bypass", "workspace": template}
        first = call("POST", f"{url}/runs", token, reading)
        done = until(url, token, first[2]["id"], "finished", "failed")
        assert done["status"] == "finished" and done["model"] == "openai-compat:m"
        workspace = Path(str(done["workspace"]))
        assert workspace.parent == data / "workspaces"
        assert (workspace / "README.md").read_text() == "from the template\n"
        assert "visible outside the sandbox" in model.requests[1].tool_results[0]

        git_url = f"git://127.0.0.1:{silent.getsockname()[1]}/repo.git"
        cloning = {"prompt": "clone", "workspace": {"kind": "git", "url": git_url}}
        hung = call("POST", f"{url}/runs", token, cloning)[2]
        assert until(url, token, hung["id"], "failed")["error"] == "git clone took over 1 s"

        elsewhere = {"kind": "host", "path": str(home.root)}
        refused = call("POST", f"{url}/runs", token, {"prompt": "x", "workspace": elsewhere})
        assert refused[0] == 422 and str(allowed) in str(refused[2])
        model.push(stall(60, after=2, reply=Reply(text="a long answer", chunk=4)))
        in_place = {"kind": "host", "path": str(allowed)}
        second = call("POST", f"{url}/runs", token, {"prompt": "slow", "workspace": in_place})
        assert until(url, token, second[2]["id"], "running")["workspace"] == str(allowed)
        assert heartbeat(url, token, second[2]["id"]).startswith(": ping")  # idle: the model stalls
        third = call("POST", f"{url}/runs", token, {"prompt": "waits"})[2]
        shown = call("GET", f"{url}/runs/{third['id']}", token)[2]
        assert shown["status"] == "queued" and shown["queue_position"] == 1  # one worker

        over = call("POST", f"{url}/runs", token, {"prompt": "a third live run"})
        assert over[0] == 429 and "max_runs_per_user=2" in over[2]["detail"]
        assert over[1]["retry-after"].isdigit()
        bob = run(home, "serve", "token", "create", "bob").stdout.strip()
        full = call("POST", f"{url}/runs", bob, {"prompt": "one more in the queue"})
        assert full[0] == 429 and "max_queue=1" in full[2]["detail"]
        assert stop(process)[0] == 0


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_sandbox_on_hides_the_host_from_a_run(home: Home) -> None:
    working = subprocess.run(["bwrap", "--ro-bind", "/", "/", "true"], capture_output=True)
    if working.returncode != 0:
        pytest.skip("bubblewrap cannot start a sandbox here")
    marker = home.root / "marker.txt"
    marker.write_text("visible outside the sandbox\n")
    read_marker = tool_calls(("shell", {"command": f"cat {marker}"}))
    with FakeProviderServer([read_marker, text("Tried.")]) as model:
        home.configure(
            f'[serve]\nport = 0\nsandbox = true\nmodel = "openai-compat:m"\n'
            f'base_url = "{model.url}"\n'
        )
        process, lines = serve(home)
        url, token = url_of(lines), token_of(lines)
        assert lines[-1] == "runs are sandboxed by bubblewrap"
        first = call("POST", f"{url}/runs", token, {"prompt": "read", "permission_mode": "bypass"})
        assert until(url, token, first[2]["id"], "finished", "failed")["status"] == "finished"
        assert stop(process)[0] == 0
    result = model.requests[1].tool_results[0]
    assert "visible outside the sandbox" not in result and "No such file" in result


def test_variables_and_flags_win_over_the_file(home: Home) -> None:
    in_file, by_flag = free_port(), free_port()
    home.configure(
        f'[serve]\nhost = "127.0.0.2"\nport = {in_file}\ndata_dir = "{home.root / "a"}"\n'
    )
    process, lines = serve(
        home, "--host", "127.0.0.1", "--port", str(by_flag),
        TAOR_SERVE_DATA_DIR=str(home.root / "b"), TAOR_SERVE_CORS_ORIGINS="http://x.example",
    )  # fmt: skip
    url = url_of(lines)
    allowed = preflight(url, "http://x.example")
    assert stop(process)[0] == 0
    assert url == f"http://127.0.0.1:{by_flag}" and allowed == "http://x.example"
    assert lines[1].startswith(f"data in {home.root / 'b'} ")
    assert (home.root / "b" / "taor.db").exists() and not (home.root / "a").exists()


def test_a_project_serve_table_is_ignored_with_one_line(home: Home) -> None:
    project = home.root / "repo"
    (project / ".git").mkdir(parents=True)
    (project / ".taor").mkdir()
    mine = free_port()
    (project / ".taor" / "config.toml").write_text(
        f'[serve]\nport = {free_port()}\ncors_origins = ["http://evil.example"]\n'
    )
    home.configure(f"[serve]\nport = {mine}\n")
    process, lines = serve(home, cwd=project)
    allowed = preflight(url_of(lines), "http://evil.example")
    code, _, err = stop(process)
    assert code == 0 and url_of(lines) == f"http://127.0.0.1:{mine}" and allowed is None
    [line] = err.splitlines()
    assert line.startswith(f"taor: ignored [serve] in {project / '.taor' / 'config.toml'}: ")
    assert "never configures a service" in line and str(home.config_file) in line
    shown = run(home, "config", "show", cwd=project)  # the command reads both files as well
    assert shown.returncode == 0, shown.stderr
    assert "# ignored: [serve] (" in shown.stdout and "never configures a service" in shown.stdout


BAD = {
    "prot = 1": "unknown key 'serve.prot' (did you mean 'serve.port'?)",
    'default_model = "m"': "unknown key 'serve.default_model' (did you mean 'serve.model'?)",
    'port = "8765"': "serve.port = '8765' is not allowed; it must be a whole number from 0 to 65535",
    "port = 70000": "serve.port = 70000 is not allowed; it must be a whole number from 0 to 65535",
    "workers = 0": "serve.workers = 0 is not allowed; it must be a whole number, 1 or more",
    "max_body = -1": "serve.max_body = -1 is not allowed; it must be a whole number, 1 or more",
    'cors_origins = "http://a"': "serve.cors_origins = 'http://a' is not allowed; it must be a list of strings",
    'sandbox = "no"': "serve.sandbox = 'no' is not allowed; it must be true or false",
    "data_dir = 7": "serve.data_dir = 7 is not allowed; it must be a path",
    'host = ""': "serve.host = '' is not allowed; it must be a string",
    "model = 1": "serve.model = 1 is not allowed; it must be a string",
}


FILES = {
    **{f"[serve]\n{line}\n": expected for line, expected in BAD.items()},
    "serve = 3\n": "serve must be a table ([serve] and its keys)",
    "[serve\nport = 1\n": "not valid TOML",
}


@pytest.mark.parametrize(("content", "expected"), FILES.items())
def test_a_bad_key_or_value_is_one_line_that_names_it(
    home: Home, content: str, expected: str
) -> None:
    path = home.configure(content)
    done = run(home, "serve", "--port", "0")
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    [said] = done.stderr.splitlines()
    assert said.startswith(f"taor: {path}: ") and expected in said


@pytest.mark.parametrize(
    ("flags", "env", "expected"),
    [
        ((), {"TAOR_SERVE_PORT": "http"}, "TAOR_SERVE_PORT='http' is not allowed; it must be a whole number"),
        ((), {"TAOR_SERVE_SANDBOX": "maybe"}, "TAOR_SERVE_SANDBOX='maybe' is not allowed; it must be true or false"),
        (("--workers", "0"), {}, "--workers 0 is not allowed; it must be a whole number, 1 or more"),
    ],
)  # fmt: skip
def test_a_bad_variable_or_flag_is_one_line_that_names_it(
    home: Home, flags: tuple[str, ...], env: dict[str, str], expected: str
) -> None:
    done = run(home, "serve", *flags, **env)
    assert done.returncode == 2 and done.stdout == ""
    [said] = done.stderr.splitlines()
    assert said.startswith(f"taor: {expected}")
