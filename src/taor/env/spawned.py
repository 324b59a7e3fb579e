"""A long-lived process with stdin and stdout, inside an environment (``Environment.spawn``).

A stdio server (an MCP server, a language server) runs as long as the session needs it: the
caller writes to its stdin and reads lines or bytes from its stdout; its stderr is captured
(the last ``STDERR_CAP`` bytes) for the message that explains why it died. It runs in its own
process group with the environment's command policy (the same filtered variables and secrets as
``run``, the sandbox's bubblewrap where there is one). ``terminate`` sends SIGTERM to the group
and SIGKILL 2 s later; the environment's ``cleanup`` terminates every process still running.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from taor.env.base import EnvError
from taor.env.process_group import kill_group

STDERR_CAP = 64 * 1024
LINE_LIMIT = 1 << 24  # the longest stdout line read_line accepts (16 MiB)
_Pipe = TypeVar("_Pipe", asyncio.StreamWriter, asyncio.StreamReader)


class SpawnedProcess:
    """A handle on a spawned process (see the module docstring)."""

    def __init__(self, proc: asyncio.subprocess.Process, argv: Sequence[str]) -> None:
        self._proc = proc
        self.argv = tuple(argv)
        self._stderr = bytearray()
        self._stderr_task = asyncio.ensure_future(self._capture_stderr())
        self._terminated = False

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has exited (negative: killed by that signal)."""
        return self._proc.returncode

    @property
    def stderr(self) -> str:
        """What the process wrote to stderr so far (its last ``STDERR_CAP`` bytes), decoded."""
        return self._stderr.decode("utf-8", "replace")

    async def write(self, data: str | bytes) -> None:
        """Write to stdin (text as UTF-8) and flush; ``EnvError`` once the process is gone."""
        stdin = self._pipe(self._proc.stdin)
        try:
            stdin.write(data.encode("utf-8") if isinstance(data, str) else data)
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise EnvError(f"{self._name()} no longer reads its input: {exc}") from exc

    async def close_stdin(self) -> None:
        """Close stdin: the process reads end of file."""
        stdin = self._pipe(self._proc.stdin)
        if not stdin.is_closing():
            stdin.close()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await stdin.wait_closed()

    async def read_line(self) -> bytes:
        """The next line of stdout with its newline; ``b""`` at end of file."""
        stdout = self._pipe(self._proc.stdout)
        try:
            return await stdout.readline()
        except ValueError as exc:  # longer than the stream's limit
            raise EnvError(f"{self._name()} wrote a line over {LINE_LIMIT} bytes.") from exc

    async def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes of stdout (all of it to end of file for -1); ``b""`` at its end."""
        return await self._pipe(self._proc.stdout).read(size)

    async def wait(self) -> int:
        """Wait for the process to exit; its exit status."""
        code = await self._proc.wait()
        await asyncio.gather(self._stderr_task, return_exceptions=True)
        return code

    async def terminate(self) -> int | None:
        """SIGTERM to the process group, SIGKILL 2 s later if anything still runs; the exit
        status. Done already, it does nothing."""
        if not self._terminated:  # its group may outlive it: ended all the same
            self._terminated = True
            await kill_group(self._proc)
            await self._proc.wait()
        self._stderr_task.cancel()
        await asyncio.gather(self._stderr_task, return_exceptions=True)
        return self._proc.returncode

    async def _capture_stderr(self) -> None:
        stderr = self._proc.stderr
        if stderr is None:
            return
        while chunk := await stderr.read(4096):
            self._stderr += chunk
            del self._stderr[:-STDERR_CAP]

    def _pipe(self, pipe: _Pipe | None) -> _Pipe:
        if pipe is None:  # not reachable: spawn opens all three
            raise EnvError(f"{self._name()} has no such pipe.")
        return pipe

    def _name(self) -> str:
        return f"The process {self.argv[0] if self.argv else ''!r} (pid {self.pid})"


async def spawn_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    prefix: Sequence[str] = (),
    on_start: Callable[[SpawnedProcess], None] | None = None,
) -> SpawnedProcess:
    """Start ``[*prefix, *argv]`` in its own process group with pipes for stdin, stdout and
    stderr; ``EnvError`` when it cannot be started."""
    if not argv:
        raise EnvError("spawn needs a command: give the program and its arguments as a list.")
    try:
        proc = await asyncio.create_subprocess_exec(
            *prefix,
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
            limit=LINE_LIMIT,
        )
    except OSError as exc:
        raise EnvError(f"The process {argv[0]!r} could not be started: {exc}") from exc
    spawned = SpawnedProcess(proc, argv)
    if on_start is not None:
        on_start(spawned)
    return spawned
