"""Running the installed ``taor`` command in tests: with no provider key in its environment,
its sessions kept beside the workspace, and the fake server as its model."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from taor.testing import FakeProviderServer

TAOR = str(Path(sys.executable).parent / "taor")
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def data_home(cwd: Path) -> Path:
    """Where the runs in ``cwd`` keep their sessions (outside the workspace)."""
    return home(cwd, "data")


def home(cwd: Path, what: str) -> Path:
    """The run's own XDG ``what`` directory (data, config, state), outside the workspace."""
    return cwd.parent / f"{cwd.name}-{what}"


def _setting(name: str) -> bool:
    return name in KEYS or name.startswith("TAOR_") or name.endswith(("_API_KEY", "_BASE_URL"))


def environ(cwd: Path) -> dict[str, str]:
    """No provider key, no TAOR_* setting, and XDG directories of the test's own."""
    clean = {k: v for k, v in os.environ.items() if not _setting(k)}
    xdg = {f"XDG_{what.upper()}_HOME": str(home(cwd, what)) for what in ("data", "config", "state")}
    return {**clean, **xdg}


def local(server: FakeProviderServer) -> list[str]:
    return ["--model", "openai-compat:local", "--base-url", server.base_url("openai-compat")]


def taor(
    *args: str,
    cwd: Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TAOR, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**environ(cwd), **(env or {})},
    )


def in_process(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``taor *args`` as ``taor()`` runs it (the same environment, working directory, exit code
    and output), but by the command's ``main`` in this process: for subcommands whose behaviour
    is not about the process, it spares a start-up of taor for each call."""
    from taor.cli import main

    environment = {**environ(cwd), **(env or {})}
    environment.setdefault("COLUMNS", "80")  # the width a process writing to a pipe gets
    saved_environ, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
    return subprocess.CompletedProcess([TAOR, *args], code, out.getvalue(), err.getvalue())


def running_a_tool(*args: str, cwd: Path) -> subprocess.Popen[str]:
    """``taor *args --output-format stream-json``, returned once a tool call has started."""
    proc = subprocess.Popen(
        [TAOR, *args, "--output-format", "stream-json"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ(cwd),
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if json.loads(line).get("kind") == "tool_call_start":
            break
    return proc
