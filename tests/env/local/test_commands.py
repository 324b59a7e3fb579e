"""LocalEnvironment.cleanup ends the process groups that outlived their commands (real processes)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from taor.env import LocalEnvironment


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


@pytest.fixture
def env(tmp_path: Path) -> LocalEnvironment:
    return LocalEnvironment(tmp_path)


async def test_a_background_child_outlives_its_command_but_not_cleanup(
    env: LocalEnvironment,
) -> None:
    result = await env.run("sleep 300 >/dev/null 2>&1 & echo $!")
    pid = int(result.stdout)
    assert _running(pid)  # kept running: a dev server started by the agent

    await env.cleanup()

    assert not _running(pid)


async def test_a_python_server_that_writes_its_pid_is_ended(
    env: LocalEnvironment, tmp_path: Path
) -> None:
    server = "import os, time; open('server.pid', 'w').write(str(os.getpid())); time.sleep(300)"
    await env.run(f"{sys.executable} -c {server!r} >/dev/null 2>&1 &")
    pid_file = tmp_path / "server.pid"
    for _ in range(500):
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.01)
    pid = int(pid_file.read_text())
    assert _running(pid)

    await env.cleanup()

    assert not _running(pid)


async def test_a_child_ignoring_sigterm_is_killed_after_the_grace(env: LocalEnvironment) -> None:
    result = await env.run("(trap '' TERM; exec sleep 300) >/dev/null 2>&1 & echo $!")
    pid = int(result.stdout)

    await env.cleanup()

    assert not _running(pid)


async def test_running_commands_and_lingering_groups_end_together(env: LocalEnvironment) -> None:
    lingering = int((await env.run("sleep 300 >/dev/null 2>&1 & echo $!")).stdout)
    task = asyncio.create_task(env.run("sleep 300", timeout=600))
    await asyncio.sleep(0.2)

    await env.cleanup()

    assert task.cancelled() and not _running(lingering)
    assert (await env.run("echo still usable")).stdout == "still usable\n"


async def test_cleanup_leaves_processes_it_did_not_start_alone(env: LocalEnvironment) -> None:
    other = await asyncio.create_subprocess_exec("sleep", "300", start_new_session=True)
    try:
        await env.run("true")
        await env.run("sleep 300 >/dev/null 2>&1 &")

        await env.cleanup()

        assert _running(other.pid)
    finally:
        os.kill(other.pid, signal.SIGKILL)
        await other.wait()
