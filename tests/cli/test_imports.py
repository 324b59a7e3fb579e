"""What the installed ``taor`` command imports, read from the real process's ``-X importtime``
report (``PYTHONPROFILEIMPORTTIME``): each run loads what it uses and nothing more. What it
imports, not how long that takes: no timing is asserted."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text

from .support import taor

IMPORT_REPORT = {"PYTHONPROFILEIMPORTTIME": "1"}
NO_PROXY = {name: "" for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")}
SDKS = {"openai", "anthropic", "google"}
INTERACTIVE = {"prompt_toolkit", "rich"}  # the interactive mode's alone


def imported(run: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules the process imported, from its import-time lines on stderr."""
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "taor.cli" in names, "the process printed no import-time report"
    return names


def packages(names: set[str]) -> set[str]:
    return {name.split(".")[0] for name in names}


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_load_no_library(tmp_path: Path, flag: str) -> None:
    run = taor(flag, cwd=tmp_path, env=IMPORT_REPORT)
    assert run.returncode == 0 and run.stdout.startswith(("taor ", "usage: taor"))
    names = imported(run)
    assert not {"asyncio", "tomllib", "taor.agent", "taor.llm", "taor.tools", "taor.env"} & names
    assert not (SDKS | {"httpx2", "jsonschema"}) & packages(names)
    assert not INTERACTIVE & packages(names)


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("openai-compat:local", "openai-compat"),
        ("openai:gpt-5.1", "openai"),
        ("anthropic:claude-sonnet-4-5", "anthropic"),
        ("gemini:gemini-2.5-pro", "gemini"),
    ],
)
def test_a_run_imports_no_provider_sdk(
    tmp_path: Path, server: FakeProviderServer, model: str, provider: str
) -> None:
    """Every provider is spoken to over taor's own HTTP client: no SDK is loaded, nor httpx2
    and httpcore2 (a tenth of a second before the first request; only a proxy or an injected
    transport needs them)."""
    server.push(text("done"))
    keys = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k", "GEMINI_API_KEY": "k"}
    base_url = server.base_url(provider)
    run = taor(
        "-p",
        "hi",
        "--model",
        model,
        "--base-url",
        base_url,
        cwd=tmp_path,
        env=IMPORT_REPORT | keys | NO_PROXY,
    )
    assert (run.returncode, run.stdout) == (0, "done\n")
    names = imported(run)
    assert not packages(names) & SDKS
    assert not packages(names) & {"httpx2", "httpcore2"}
    assert "h11" in packages(names)  # the request did go over taor's client
    assert not INTERACTIVE & packages(names)  # a headless run loads none of the terminal UI
    # the local environment only: the sandbox's and the test double's modules stay unloaded
    assert "taor.env.local" in names
    assert not {"taor.env.sandbox", "taor.env.memory"} & names
