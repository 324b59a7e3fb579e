"""``taor serve`` as a person runs it: it prints its URL, its data folder and, the first time
only, an admin token that works; ``taor serve token`` makes, lists and revokes tokens; SIGTERM
ends it with 0; a port in use is one clear line."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from taor.testing import FakeProviderServer, Reply, stall

TAOR = str(Path(sys.executable).parent / "taor")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(data: Path, port: int, lines: int) -> tuple[subprocess.Popen[str], list[str]]:
    """``taor serve`` running, and the first ``lines`` it printed."""
    process = subprocess.Popen(
        [TAOR, "serve", "--port", str(port), "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, [process.stdout.readline() for _ in range(lines)]


def get(url: str, token: str | None = None) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(
        url, headers={"authorization": f"Bearer {token}"} if token else {}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    """SIGTERM; its exit code and the rest of what it printed."""
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err
    return process.returncode, out


def tokens(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TAOR, "serve", "token", *args, "--data-dir", str(data)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_serve_prints_where_it_is_and_a_first_token_once(tmp_path: Path) -> None:
    data, port = tmp_path / "service", free_port()
    process, lines = start(data, port, 3)
    assert lines[0].startswith(f"taor service on http://127.0.0.1:{port}")
    assert lines[1].strip() == f"data in {data}"
    assert lines[2].startswith("first admin token (shown once, keep it): taor_")
    token = lines[2].rsplit(" ", 1)[-1].strip()
    assert get(f"http://127.0.0.1:{port}/healthz")[0] == 200
    assert get(f"http://127.0.0.1:{port}/me", token) == (200, {"name": "admin", "admin": True})
    assert get(f"http://127.0.0.1:{port}/me")[0] == 401
    assert stop(process)[0] == 0
    again, _ = start(data, port, 2)
    assert get(f"http://127.0.0.1:{port}/me", token)[0] == 200
    code, rest = stop(again)
    assert code == 0 and "token" not in rest  # shown once, the first time only
    assert token not in (data / "taor.db").read_bytes().decode("latin-1")


def test_tokens_are_made_listed_and_revoked(tmp_path: Path) -> None:
    data = tmp_path / "service"
    made = tokens(data, "create", "ci-bot")
    assert made.returncode == 0 and made.stdout.startswith("taor_")
    listed = tokens(data, "list")
    assert "ci-bot\tuser\tin use\tlast used never" in listed.stdout
    assert made.stdout.strip() not in listed.stdout
    assert tokens(data, "revoke", "ci-bot").returncode == 0
    assert "ci-bot\tuser\trevoked" in tokens(data, "list").stdout
    again = tokens(data, "revoke", "ci-bot")
    assert again.returncode == 1 and "no token 'ci-bot' in use" in again.stderr
    missing = tokens(data, "create")
    assert missing.returncode == 2 and "needs a NAME" in missing.stderr
    bad = tokens(data, "create", "no spaces")
    assert (
        bad.returncode == 2 and "invalid token name" in bad.stderr and "Traceback" not in bad.stderr
    )


def test_a_port_in_use_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [TAOR, "serve", "--port", str(port), "--data-dir", str(tmp_path / "s")],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "Traceback" not in done.stderr


def post(url: str, token: str, body: dict[str, object]) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status, json.loads(answer.read())


def test_sigterm_mid_run_leaves_it_interrupted_and_the_next_start_says_so(tmp_path: Path) -> None:
    data, port = tmp_path / "service", free_port()
    with FakeProviderServer(
        [stall(60, after=2, reply=Reply(text="a long answer", chunk=4))]
    ) as model:
        process = subprocess.Popen(
            [TAOR, "serve", "--port", str(port), "--data-dir", str(data),
             "--model", "openai-compat:m", "--base-url", model.url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert process.stdout is not None
        token = [process.stdout.readline() for _ in range(3)][2].rsplit(" ", 1)[-1].strip()
        base = f"http://127.0.0.1:{port}"
        _, run = post(f"{base}/runs", token, {"prompt": "go"})
        deadline = time.monotonic() + 30
        while get(f"{base}/runs/{run['id']}", token)[1]["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        while not model.requests:  # the model is streaming, stalled
            assert time.monotonic() < deadline
            time.sleep(0.05)
        started = time.monotonic()
        code, _ = stop(process)
        assert code == 0 and time.monotonic() - started < 20
    again, _ = start(data, port, 2)
    status, shown = get(f"http://127.0.0.1:{port}/runs/{run['id']}", token)
    assert stop(again)[0] == 0
    assert status == 200 and shown["status"] == "interrupted"
    transcript = data / "runs" / f"{run['id']}.jsonl"
    assert transcript.exists() and transcript.stat().st_size > 0
