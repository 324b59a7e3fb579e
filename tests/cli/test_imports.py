"""What the installed ``taor`` command imports, read from the real process's ``-X importtime``
report (``PYTHONPROFILEIMPORTTIME``): each run loads what it uses and nothing more. What it
imports, not how long that takes: no timing is asserted."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text

from .support import local, taor

IMPORT_REPORT = {"PYTHONPROFILEIMPORTTIME": "1"}


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
    assert not {"openai", "anthropic", "google", "httpx2", "jsonschema"} & packages(names)


def test_a_local_model_run_imports_the_openai_sdk_and_no_other(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("done"))
    run = taor("-p", "hi", *local(server), cwd=tmp_path, env=IMPORT_REPORT)
    assert (run.returncode, run.stdout) == (0, "done\n")
    names = imported(run)
    assert "openai" in names
    assert not {"anthropic", "google"} & packages(names)
    # the local environment only: the sandbox's and the test double's modules stay unloaded
    assert "taor.env.local" in names
    assert not {"taor.env.sandbox", "taor.env.memory"} & names
