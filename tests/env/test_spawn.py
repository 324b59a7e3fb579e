"""``Environment.spawn``: a long-lived process with stdin and stdout, run like a command (the
same filtered variables, the sandbox's bubblewrap), ended by ``terminate`` (SIGTERM to its
group, SIGKILL 2 s later) or by the environment's ``cleanup``. Real processes throughout."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taor.env.base import EnvError, Environment
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.env.sandbox import SandboxEnvironment

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (apt-get install bubblewrap)"
)

# A line server: answers each line with it in capitals; says on stderr that it started.
SERVER = [
    "/bin/bash",
    "-c",
    'echo ready >&2; while read -r line; do echo "${line^^}"; done; echo bye',
]
ENVIRON = {"PATH": os.environ["PATH"], "HOME": "/h", "MY_API_KEY": "sk-secret", "COLOR": "blue"}


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


@pytest.fixture(params=["local", pytest.param("sandbox", marks=needs_bwrap)])
async def env(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Environment]:
    root = tmp_path / "ws"
    root.mkdir()
    kind = LocalEnvironment if request.param == "local" else SandboxEnvironment
    environment = kind(root, environ=ENVIRON)
    await environment.initialize()
    yield environment
    await environment.cleanup()


async def test_a_server_answers_line_by_line_until_its_input_ends(env: Environment) -> None:
    server = await env.spawn(SERVER)
    await server.write("hello\n")
    assert await server.read_line() == b"HELLO\n"
    await server.write(b"again\n")
    assert await server.read_line() == b"AGAIN\n"
    await server.close_stdin()
    assert await server.read() == b"bye\n"
    assert await server.wait() == 0
    assert server.returncode == 0 and server.stderr == "ready\n"
    assert await server.read_line() == b""


async def test_it_runs_in_the_workspace_with_the_commands_variables(env: Environment) -> None:
    (Path(env.working_directory()) / "sub").mkdir()
    show = 'pwd; echo "$COLOR ${MY_API_KEY:-None} $EXTRA"'
    process = await env.spawn(["/bin/bash", "-c", show], cwd="sub", env={"EXTRA": "1"})
    output = (await process.read()).decode()
    assert await process.wait() == 0
    cwd, variables = output.splitlines()
    assert Path(cwd) == (Path(env.working_directory()) / "sub").resolve()
    assert variables == "blue None 1"  # the secret is not passed, as to commands


async def test_terminate_ends_the_whole_group_even_a_process_that_ignores_sigterm(
    env: Environment,
) -> None:
    stubborn = "trap '' TERM; sleep 300 & echo $!; wait"
    process = await env.spawn(["/bin/bash", "-c", stubborn])
    line = await process.read_line()
    if isinstance(env, SandboxEnvironment):  # the pid is the sandbox's own: not visible here
        child = None
    else:
        child = int(line)
        assert _alive(child)
    code = await process.terminate()
    assert code is not None and code != 0 and process.returncode == code
    if child is not None:
        assert not _alive(child)
    assert await process.terminate() == code  # again: nothing more to do


async def test_cleanup_of_the_environment_ends_what_it_spawned(tmp_path: Path) -> None:
    env = LocalEnvironment(tmp_path, environ=ENVIRON)
    process = await env.spawn(SERVER)
    assert _alive(process.pid)
    await env.cleanup()
    assert process.returncode is not None and not _alive(process.pid)
    with pytest.raises(EnvError, match="no longer reads its input"):
        await process.write("late\n")


async def test_a_program_that_does_not_exist_is_a_clear_error(tmp_path: Path) -> None:
    env = LocalEnvironment(tmp_path)
    with pytest.raises(EnvError, match="could not be started"):
        await env.spawn([str(tmp_path / "no-such-program")])
    with pytest.raises(EnvError, match="give the program and its arguments"):
        await env.spawn([])
    await env.cleanup()


async def test_a_memory_environment_says_it_runs_no_process() -> None:
    with pytest.raises(EnvError, match="MemoryEnvironment cannot spawn processes"):
        await MemoryEnvironment().spawn(["cat"])
