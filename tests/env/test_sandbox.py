"""SandboxEnvironment with real bubblewrap processes: filesystem, /tmp, network, env, killing."""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from taor.env import EnvError, Environment, SandboxEnvironment

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (apt-get install bubblewrap)"
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.fixture
async def env(root: Path) -> SandboxEnvironment:
    environment = SandboxEnvironment(root, environ={"PATH": os.environ["PATH"], "HOME": "/h"})
    await environment.initialize()
    return environment


@pytest.fixture
async def port() -> AsyncIterator[int]:
    """A TCP server on the host's 127.0.0.1 that greets and hangs up."""

    async def greet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"hello from the host\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(greet, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1]


def _running(marker: str) -> list[int]:
    """Host pids whose command line contains ``marker`` (zombies have none)."""
    pids = []
    for pid_dir in Path("/proc").iterdir():
        try:
            if pid_dir.name.isdigit() and marker in (pid_dir / "cmdline").read_text():
                pids.append(int(pid_dir.name))
        except OSError:
            continue
    return pids


async def _until_running(marker: str) -> None:
    for _ in range(250):
        if _running(marker):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no process with {marker!r} started")


async def _gone(marker: str) -> list[int]:
    """The pids still running with ``marker`` once the kernel had up to 5 s to tear down the
    sandbox's pid namespace (its members die with its pid 1, but not in the same instant)."""
    for _ in range(250):
        if not (pids := _running(marker)):
            return []
        await asyncio.sleep(0.02)
    return pids


def _grandchild(marker: str) -> str:
    """A command whose background grandchild alone has ``marker`` on its command line."""
    head, tail = marker[:4], marker[4:]
    return f"m={head}; bash -c 'sleep 300; true' \"$m\"{tail} & sleep 300"


async def test_a_missing_bwrap_refuses_to_start_with_the_install_command(root: Path) -> None:
    env = SandboxEnvironment(root, bwrap=str(root / "no-such-bwrap"))

    with pytest.raises(EnvError, match="apt-get install bubblewrap") as info:
        await env.initialize()
    assert "no-such-bwrap" in str(info.value)


async def test_a_bwrap_that_fails_refuses_to_start(root: Path) -> None:
    with pytest.raises(EnvError, match="could not start a sandbox: exit code 1"):
        await SandboxEnvironment(root, bwrap="/bin/false").initialize()


@needs_bwrap
async def test_satisfies_the_protocol_and_runs_in_the_workspace(
    env: SandboxEnvironment, root: Path
) -> None:
    assert isinstance(env, Environment)
    (root / "sub").mkdir()

    result = await env.run("pwd", cwd="sub")

    assert result.exit_code == 0 and result.stdout == f"{(root / 'sub').resolve()}\n"


@needs_bwrap
async def test_writes_inside_the_workspace_succeed_and_outside_fail(
    env: SandboxEnvironment, root: Path
) -> None:
    outside = root.parent / "outside.txt"
    spot = Path("/usr/local") / f"taor-sandbox-{uuid.uuid4().hex}"

    inside = await env.run("echo made here > inside.txt && mkdir -p deep/dir")
    escape = await env.run(f"touch {outside}")
    system = await env.run(f"touch {spot}")

    assert inside.exit_code == 0 and (root / "inside.txt").read_text() == "made here\n"
    assert (root / "deep" / "dir").is_dir()
    # the workspace's parent is under /tmp here, so the touch lands in the private /tmp
    assert not outside.exists(), escape.output
    assert system.exit_code != 0 and "Read-only file system" in system.stderr
    assert not outside.exists() and not spot.exists()


@needs_bwrap
async def test_allowed_roots_are_writable(root: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    env = SandboxEnvironment(root, allowed_roots=[extra, tmp_path / "missing"])
    await env.initialize()

    result = await env.run(f"echo shared > {extra}/note")

    assert result.exit_code == 0 and (extra / "note").read_text() == "shared\n"


@pytest.fixture
def host_tmp() -> Iterator[Path]:
    """A file in the host's /tmp (which the sandbox must not see)."""
    visible = Path("/tmp") / f"taor-sandbox-{uuid.uuid4().hex}"
    visible.write_text("host\n")
    yield visible
    visible.unlink()


@needs_bwrap
async def test_tmp_is_private(env: SandboxEnvironment, host_tmp: Path) -> None:
    inner = host_tmp.with_name(host_tmp.name + "-inner")

    result = await env.run(f"echo inner > {inner} && cat {inner} && ls {host_tmp}")

    assert result.stdout == "inner\n" and "No such file" in result.stderr
    assert not inner.exists()


@needs_bwrap
async def test_the_network_is_cut_by_default(env: SandboxEnvironment, port: int) -> None:
    result = await env.run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && cat <&3")

    assert result.exit_code != 0 and "hello" not in result.stdout


@needs_bwrap
async def test_the_network_is_reachable_when_allowed(root: Path, port: int) -> None:
    env = SandboxEnvironment(root, network=True)
    await env.initialize()

    result = await env.run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && cat <&3")

    assert result.exit_code == 0 and result.stdout == "hello from the host\n"


@needs_bwrap
async def test_environment_variables_are_filtered(root: Path) -> None:
    host = {"PATH": os.environ["PATH"], "EDITOR": "vi", "GH_TOKEN": "t", "OPENAI_API_KEY": "k"}
    env = SandboxEnvironment(root, environ=host)

    result = await env.run('echo "$EDITOR|$GH_TOKEN|$OPENAI_API_KEY|$MINE"', env={"MINE": "m"})

    assert result.stdout == "vi|||m\n"


@needs_bwrap
async def test_a_timeout_kills_the_sandboxed_grandchildren(env: SandboxEnvironment) -> None:
    marker = f"taor{uuid.uuid4().hex}"
    task = asyncio.create_task(env.run(_grandchild(marker), timeout=1))
    await _until_running(marker)

    result = await task

    assert result.timed_out and await _gone(marker) == []


@needs_bwrap
async def test_cancellation_kills_the_sandboxed_grandchildren(env: SandboxEnvironment) -> None:
    marker = f"taor{uuid.uuid4().hex}"
    task = asyncio.create_task(env.run(_grandchild(marker), timeout=60))
    await _until_running(marker)

    await env.cleanup()

    assert task.cancelled() and await _gone(marker) == []


@needs_bwrap
async def test_background_children_end_with_the_command(env: SandboxEnvironment) -> None:
    marker = f"taor{uuid.uuid4().hex}"
    command = _grandchild(marker).replace(" & sleep 300", " >/dev/null 2>&1 & echo started")

    result = await env.run(command)

    assert result.stdout == "started\n" and await _gone(marker) == []
