"""``taor serve`` as a person runs it: it prints its URL, what its data folder holds and, the
first time only, an admin token that works and is never shown or logged again; ``taor serve
token`` makes, lists and revokes tokens in the service's database; SIGTERM ends it with 0; a
port in use or a data folder it cannot use is one clear line and exit 2."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, Reply, stall

from .process import Home, call, free_port, run, serve, stop, token_of, url_of


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def tokens(home: Home, *args: str) -> tuple[int, str, str]:
    done = run(home, "serve", "token", *args)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


def test_serve_prints_where_it_is_and_a_first_token_once(home: Home) -> None:
    data, port = home.root / "service", free_port()
    process, lines = serve(home, "--port", str(port), "--data-dir", str(data))
    assert (
        lines[0] == f"taor service on http://127.0.0.1:{port}  (docs: http://127.0.0.1:{port}/docs)"
    )
    assert lines[1] == (
        f"data in {data} (database taor.db, transcripts in runs/, workspaces in workspaces/)"
    )
    assert lines[2].startswith("first admin token (shown once, keep it): taor_")
    token, url = token_of(lines), url_of(lines)
    assert call("GET", f"{url}/healthz")[0] == 200
    assert call("GET", f"{url}/me", token)[::2] == (200, {"name": "admin", "admin": True})
    assert call("GET", f"{url}/me")[0] == 401
    assert call("GET", f"{url}/me", token[:-4] + "AAAA")[0] == 401  # a wrong token: not logged
    code, out, err = stop(process)
    assert code == 0
    again, second = serve(home, "--port", str(port), "--data-dir", str(data))
    assert call("GET", f"{url}/me", token)[0] == 200
    code, rest, err_again = stop(again)
    assert code == 0 and not any("token" in line for line in second)  # the first start only
    for printed in (out, err, rest, err_again, "\n".join(second)):
        assert token not in printed and token[-12:] not in printed
    for file in home.root.rglob("*"):  # the database keeps its hash; no file, no log the token
        if file.is_file():
            assert token[-12:] not in file.read_bytes().decode("latin-1"), file


def test_tokens_are_made_listed_and_revoked(home: Home) -> None:
    code, made, _ = tokens(home, "create", "ci-bot")
    assert code == 0 and made.startswith("taor_")
    assert (home.data / "taor.db").exists()  # the service's own data folder, as serve uses it
    listed = tokens(home, "list")[1]
    assert "ci-bot\tuser\tin use\tlast used never" in listed
    assert made.strip() not in listed
    assert tokens(home, "revoke", "ci-bot")[0] == 0
    assert "ci-bot\tuser\trevoked" in tokens(home, "list")[1]
    code, _, err = tokens(home, "revoke", "ci-bot")
    assert code == 1 and "no token 'ci-bot' in use" in err
    code, _, err = tokens(home, "create")
    assert code == 2 and "needs a NAME" in err
    code, _, err = tokens(home, "create", "no spaces")
    assert code == 2 and "invalid token name" in err


def test_tokens_are_made_in_the_data_folder_the_config_file_names(home: Home) -> None:
    home.configure('[serve]\ndata_dir = "../../team-service"\n')  # from the file's folder
    data = home.root / "team-service"
    code, made, _ = tokens(home, "create", "ann")
    assert code == 0 and (data / "taor.db").exists() and not home.data.exists()
    process, lines = serve(home, "--port", "0")
    assert lines[1].startswith(f"data in {data} ")
    status, _, me = call("GET", f"{url_of(lines)}/me", made.strip())
    assert stop(process)[0] == 0
    assert (status, me) == (200, {"name": "ann", "admin": False})


def test_a_port_in_use_is_one_clear_line(home: Home) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run(home, "serve", "--port", str(port), "--data-dir", str(home.root / "s"))
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in line
    assert "--port" in line and str(home.config_file) in line


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("a file", "is not a folder; pick another with --data-dir"),
        ("under a file", "cannot make the data folder"),
        ("not writable", "is not writable; pick another with --data-dir"),
        ("a broken database", "cannot open the database"),
        ("a folder as its database", "cannot start: "),
    ],
)
def test_a_data_folder_that_cannot_be_used_is_one_clear_line(
    home: Home, where: str, says: str
) -> None:
    blocker, data = home.root / "blocker", home.root / "service"
    blocker.write_text("not a folder\n")
    mode = blocker.stat().st_mode & 0o777  # a file in the way is left as it was
    if where in ("a file", "under a file"):
        data = blocker if where == "a file" else blocker / "service"
    elif where == "not writable":
        if os.geteuid() == 0:
            pytest.skip("root writes in any folder")
        data = home.root / "locked" / "service"
        data.parent.mkdir(mode=0o500)
    elif where == "a broken database":
        data.mkdir()
        (data / "taor.db").write_bytes(b"not a database, " * 100)
    else:
        (data / "taor.db").mkdir(parents=True)
    done = run(home, "serve", "--port", "0", "--data-dir", str(data))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("taor: ") and str(data) in line and says in line
    assert blocker.read_text() == "not a folder\n" and blocker.stat().st_mode & 0o777 == mode


def test_sigterm_mid_run_leaves_it_interrupted_and_the_next_start_says_so(home: Home) -> None:
    data, port = home.root / "service", free_port()
    with FakeProviderServer(
        [stall(60, after=2, reply=Reply(text="a long answer", chunk=4))]
    ) as model:
        process, lines = serve(
            home, "--port", str(port), "--data-dir", str(data),
            "--model", "openai-compat:m", "--base-url", model.url,
        )  # fmt: skip
        token, base = token_of(lines), url_of(lines)
        _, _, created = call("POST", f"{base}/runs", token, {"prompt": "go"})
        deadline = time.monotonic() + 30
        while call("GET", f"{base}/runs/{created['id']}", token)[2]["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        while not model.requests:  # the model is streaming, stalled
            assert time.monotonic() < deadline
            time.sleep(0.05)
        code, _, _ = stop(process)
        assert code == 0
    again, _ = serve(home, "--port", str(port), "--data-dir", str(data))
    status, _, shown = call("GET", f"{base}/runs/{created['id']}", token)
    assert stop(again)[0] == 0
    assert status == 200 and shown["status"] == "interrupted"
    transcript = data / "runs" / f"{created['id']}.jsonl"
    assert transcript.exists() and transcript.stat().st_size > 0
