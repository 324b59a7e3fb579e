"""Every ``env_policy`` on LocalEnvironment and SandboxEnvironment, seen by a real command."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from taor.env import LocalEnvironment, SandboxEnvironment
from taor.env.envvars import EnvPolicy
from taor.env.reaper import MARKER

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (apt-get install bubblewrap)"
)
HOST = {
    "PATH": os.environ["PATH"],
    "HOME": "/home/someone",
    "LANG": "C.UTF-8",
    "EDITOR": "vi",
    "GH_TOKEN": "ghp_notreal",
    "DATABASE_URL": "postgres://app:hunter2@db/app",
}
# What bash itself sets in every shell, whatever it was given.
BASH_OWN = {"PWD", "SHLVL", "_", "OLDPWD"}
EXPECTED = {
    "inherit_all": {"PATH", "HOME", "LANG", "EDITOR"},
    "core_only": {"PATH", "HOME", "LANG"},
    "none": set(),
}


async def _names(environment: LocalEnvironment) -> set[str]:
    """The names a command sees, from ``env -0`` run by a real bash."""
    result = await environment.run("exec /usr/bin/env -0")
    assert result.exit_code == 0, result.stderr
    names = {entry.split("=", 1)[0] for entry in result.stdout.split("\0") if entry}
    return names - BASH_OWN - {MARKER}


@pytest.mark.parametrize("policy", ["inherit_all", "core_only", "none"])
async def test_local_commands_see_what_the_policy_passes(tmp_path: Path, policy: EnvPolicy) -> None:
    environment = LocalEnvironment(tmp_path, environ=HOST, env_policy=policy)

    assert await _names(environment) == EXPECTED[policy]


@needs_bwrap
@pytest.mark.parametrize("policy", ["inherit_all", "core_only", "none"])
async def test_sandboxed_commands_see_what_the_policy_passes(
    tmp_path: Path, policy: EnvPolicy
) -> None:
    environment = SandboxEnvironment(tmp_path, environ=HOST, env_policy=policy)
    await environment.initialize()

    assert await _names(environment) == EXPECTED[policy]


@pytest.mark.parametrize("policy", ["inherit_all", "core_only", "none"])
async def test_the_taor_process_environment_never_leaks_in(
    tmp_path: Path, policy: EnvPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAOR_TEST_HOST_ONLY", "leaked")
    environment = LocalEnvironment(tmp_path, environ=HOST, env_policy=policy)

    result = await environment.run('echo "[$TAOR_TEST_HOST_ONLY][$MINE]"', env={"MINE": "m"})

    assert result.stdout == "[][m]\n"
