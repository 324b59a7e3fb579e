"""No process a command started outlives its environment or taor, wherever it went: setsid,
double forks and daemons are ended by cleanup(); after a SIGKILL of taor itself the watchdog
ends them, so a command's side effect never lands later (real processes)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from taor.agent.session import Session
from taor.env import LocalEnvironment
from taor.env.reaper import MARKER
from taor.testing import ScriptedModel, text, tool_calls

from ..agent.session_drive import config

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs Linux /proc")

SLEEPER = f"{sys.executable} -c 'import time; time.sleep(300)'"
DAEMON = (  # the classic: fork, setsid, fork again, close every descriptor
    f"{sys.executable} -c 'import os, sys, time\n"
    "if os.fork(): sys.exit()\n"
    "os.setsid()\n"
    "if os.fork(): sys.exit()\n"
    "os.closerange(0, 1024)\n"
    "time.sleep(300)'"
)


def escapes(tag: str) -> dict[str, str]:
    """Commands that leave a process behind outside their process group, each tagged."""
    return {
        "setsid": f"setsid {SLEEPER} {tag}-setsid >/dev/null 2>&1 &",
        "double fork": f"( ( {SLEEPER} {tag}-double >/dev/null 2>&1 & ) & )",
        "daemon": f"{DAEMON} {tag}-daemon",
    }


def running(tag: str) -> list[int]:
    """Host pids of the sleepers tagged ``tag`` (an argument starting with it; a zombie has no
    arguments, and the bash running the command has them all in one)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit():
                arguments = (entry / "cmdline").read_text().split("\0")
                if any(a.startswith(tag) for a in arguments):
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


async def until(check: object, seconds: float = 5.0) -> bool:
    for _ in range(int(seconds / 0.02)):
        if check():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.02)
    return False


async def test_cleanup_ends_what_left_the_process_group(tmp_path: Path) -> None:
    tag = f"taor-{uuid.uuid4().hex}"
    env = LocalEnvironment(tmp_path)
    try:
        for name, command in escapes(tag).items():
            result = await env.run(command)
            assert result.exit_code == 0, (name, result.output)
        assert await until(lambda: len(running(tag)) == 3), running(tag)
        await env.cleanup()
        assert await until(lambda: not running(tag), 3.0), running(tag)
    finally:
        for pid in running(tag):
            os.kill(pid, signal.SIGKILL)


async def test_session_close_ends_a_daemon_a_tool_call_started(tmp_path: Path) -> None:
    tag = f"taor-{uuid.uuid4().hex}"
    model = ScriptedModel(
        [tool_calls(("shell", {"command": escapes(tag)["daemon"]})), text("started it")]
    )
    try:
        async with Session(
            model, environment=LocalEnvironment(tmp_path), config=config()
        ) as session:
            await session.run("start the server")
            assert await until(lambda: len(running(tag)) == 1)
        assert await until(lambda: not running(tag), 3.0), running(tag)
    finally:
        for pid in running(tag):
            os.kill(pid, signal.SIGKILL)


async def test_a_command_cannot_read_another_environments_mark(tmp_path: Path) -> None:
    first, second = LocalEnvironment(tmp_path), LocalEnvironment(tmp_path)
    try:
        marks = [(await e.run(f'echo "${MARKER}"')).stdout.strip() for e in (first, second)]
    finally:
        await first.cleanup()
        await second.cleanup()
    assert all(marks) and marks[0] != marks[1]


SOURCE = str(Path(__file__).resolve().parents[2] / "src")
CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from taor.env import LocalEnvironment

    async def main():
        env = LocalEnvironment(sys.argv[1])
        task = asyncio.create_task(env.run(sys.argv[2], timeout=60))
        await asyncio.sleep(0.5)
        print("started", flush=True)
        await task

    asyncio.run(main())
    """
)


async def test_commands_die_with_taor_even_after_sigkill(tmp_path: Path) -> None:
    """A worker killed mid-run: the command in flight and what it left behind are ended, and
    the file it would have written a moment later never appears."""
    tag = f"taor-{uuid.uuid4().hex}"
    late = tmp_path / "side-effect"
    command = f"{escapes(tag)['setsid']} {SLEEPER} {tag}-fg & sleep 2; touch {late}; wait"
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        str(tmp_path),
        command,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": SOURCE},
    )
    try:
        assert child.stdout is not None
        assert await child.stdout.readline() == b"started\n"
        assert await until(lambda: len(running(tag)) == 2), running(tag)
        child.kill()  # SIGKILL: taor cannot clean up
        await child.wait()
        assert await until(lambda: not running(tag), 4.0), running(tag)
        await asyncio.sleep(2.5)  # past the moment the command would have touched the file
        assert not await asyncio.to_thread(late.exists)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
        for pid in running(tag):
            os.kill(pid, signal.SIGKILL)
