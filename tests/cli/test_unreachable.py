"""A local server that is not running: ``taor -p`` says so at once, naming the URL, for every
provider (each through its own SDK), with no retries."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from .support import taor


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port  # closed again: a connection to it is refused


@pytest.mark.parametrize(
    ("model", "path"),
    [
        ("openai-compat:x", "/v1"),
        ("anthropic:claude-sonnet-4-5", ""),
        ("openai:gpt-5", "/v1"),
        ("gemini:gemini-2.5-flash", ""),
    ],
)
def test_a_refused_loopback_connection_fails_at_once_and_names_the_url(
    tmp_path: Path, model: str, path: str
) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    keys = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"}
    done = taor("-p", "hi", "--model", model, "--base-url", url + path,
                "--output-format", "stream-json", cwd=tmp_path, env=keys)  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert "retry" not in [event.get("kind") for event in events]
    (error,) = [event for event in events if event.get("kind") == "error"]
    assert url in error["message"] and "connection refused" in error["message"], error
    assert events[-1]["error"] == error["message"]


def test_in_text_mode_it_is_one_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    done = taor("-p", "hi", "--model", "openai-compat:x", "--base-url", url, cwd=tmp_path)
    (line,) = done.stderr.splitlines()
    assert done.returncode == 1 and line.startswith("taor: ") and url in line
