"""``taor serve`` as a person runs it, for the tests of the command: a home of its own (the
person's config file under ``XDG_CONFIG_HOME``, data under ``XDG_DATA_HOME``), started as a
process, asked over HTTP on loopback, stopped with SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TAOR = str(Path(sys.executable).parent / "taor")
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Home:
    """A person's directories: ``config_file`` is their own taor config file. ``environ``,
    when given, is their processes' environment as another test layout makes it."""

    root: Path
    environ: dict[str, str] | None = None

    @property
    def config_file(self) -> Path:
        return self.root / "config" / "taor" / "config.toml"

    @property
    def data(self) -> Path:
        """Where the service keeps its data when nothing says otherwise."""
        return self.root / "data" / "taor" / "service"

    def configure(self, text: str) -> Path:
        self.config_file.parent.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(text)
        return self.config_file

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a process of theirs: no TAOR_* setting and no provider key."""
        if self.environ is not None:
            return {**self.environ, **extra}
        clean = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("TAOR_") and not name.endswith(("_API_KEY", "_BASE_URL"))
        }
        own = {f"XDG_{d.upper()}_HOME": str(self.root / d) for d in ("config", "data", "state")}
        return {**clean, **own, "HOME": str(self.root / "home"), **extra}


def serve(
    home: Home, *args: str, cwd: Path | None = None, **env: str
) -> tuple[subprocess.Popen[str], list[str]]:
    """``taor serve ARGS`` running, and the lines it printed as it started (its URL, its data
    folder, the first token on a first start, and whether runs are sandboxed)."""
    process = subprocess.Popen(
        [TAOR, "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=home.env(**env),
        cwd=cwd or home.root,
    )
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("runs are"):
            return process, lines
    _, err = process.communicate(timeout=30)
    raise AssertionError(f"taor serve ended ({process.returncode}): {lines} {err}")


def run(
    home: Home, *args: str, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """``taor ARGS`` to its end."""
    return subprocess.run(
        [TAOR, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=home.env(**env),
        cwd=cwd or home.root,
    )


def stop(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """SIGTERM; its exit code and the rest of what it printed (stdout, stderr)."""
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err
    return process.returncode, out, err


def url_of(lines: list[str]) -> str:
    return lines[0].split()[3]


def token_of(lines: list[str]) -> str:
    [line] = [line for line in lines if line.startswith("first admin token")]
    return line.rsplit(" ", 1)[-1]


def call(
    method: str,
    url: str,
    token: str | None = None,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], Any]:
    """The status, the headers (lower case) and the answer: its JSON, or its text (None
    when there is none)."""
    sent = dict(headers or {})
    if token:
        sent["authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent["content-type"] = "application/json"
    request = urllib.request.Request(url, data=data, headers=sent, method=method)
    try:
        with _OPENER.open(request, timeout=10) as answer:
            status, head, raw = answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        status, head, raw = error.code, dict(error.headers), error.read()
    lowered = {name.lower(): value for name, value in head.items()}
    if "json" not in lowered.get("content-type", ""):
        return status, lowered, raw.decode() or None
    return status, lowered, json.loads(raw)
