"""Running one command: ``/bin/bash -c`` in its own process group, output bounded, no orphans.

- stdin is /dev/null; stdout and stderr are read concurrently, kept separately (bytes, decoded
  with replacement at the end) and combined in arrival order for the model (``output``).
- Memory is bounded: each buffer keeps a head and a tail of ``cap`` each and counts what it
  dropped from the middle (bytes for stdout/stderr, characters for ``output``).
- Timeout (default 10 s, at most 600 s; larger requests are clamped and ``output`` says so):
  SIGTERM to the group, SIGKILL 2 s later, partial output kept, and a note on how to ask for
  more time. Cancelling the awaiting task does the same cleanup, then re-raises.
- When bash exits while a background child still holds the pipes, reading stops after a short
  grace period and the group is killed. Background children that redirect their output survive
  the command (a dev server started for a screenshot); ``on_start`` receives the group's id
  (bash's pid) so the caller can end such groups later (``LocalEnvironment.cleanup``).

``prefix`` lets a wrapper (bubblewrap) run ``[*prefix, "/bin/bash", "-c", command]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from taor.env.base import CommandResult, EnvError, OutputCallback
from taor.env.capture import Capture
from taor.env.process_group import kill_group

DEFAULT_TIMEOUT = 10.0
MAX_TIMEOUT = 600.0
OUTPUT_CAP = 1 << 20  # per side (head and tail) of each buffer
PIPE_GRACE = 0.25  # seconds to keep reading after bash exits


def clamp_timeout(
    requested: float | None, *, default: float = DEFAULT_TIMEOUT, maximum: float = MAX_TIMEOUT
) -> tuple[float, float | None]:
    """The timeout to apply and, when the request was clamped, the requested value."""
    if requested is None:
        return default, None
    if requested <= 0:
        raise EnvError(f"timeout must be a positive number of seconds, got {requested}.")
    if requested > maximum:
        return maximum, requested
    return float(requested), None


async def _spawn(
    argv: Sequence[str], cwd: Path | None, env: Mapping[str, str] | None
) -> asyncio.subprocess.Process:
    """Start the command. Cancelled while it starts, the start still completes and the group
    is ended (asyncio alone would kill bash only, then wait for the children holding its pipes)."""
    starting = asyncio.ensure_future(_start(argv, cwd, env))
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        await asyncio.shield(_abandon(starting))
        raise


async def _abandon(starting: asyncio.Future[asyncio.subprocess.Process]) -> None:
    with contextlib.suppress(EnvError):
        await _cleanup_after_cancel(await starting, [])


async def _start(
    argv: Sequence[str], cwd: Path | None, env: Mapping[str, str] | None
) -> asyncio.subprocess.Process:
    try:
        return await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=None if env is None else dict(env),
            start_new_session=True,
        )
    except OSError as exc:
        raise EnvError(f"The command could not be started: {exc}") from exc


async def _finish_reading(
    proc: asyncio.subprocess.Process, readers: list[asyncio.Task[None]]
) -> None:
    _, pending = await asyncio.wait(readers, timeout=PIPE_GRACE)
    if pending:  # a background child holds the pipes: stop it, then stop reading
        await kill_group(proc)
        _, pending = await asyncio.wait(pending, timeout=PIPE_GRACE)
    for task in pending:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    if pending:
        _close_pipes(proc)


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Close our ends of the pipes still held by a process outside the group (``setsid``).

    ``Process`` has no public close; without it the transport would leak until that process ends.
    """
    transport = getattr(proc, "_transport", None)
    if isinstance(transport, asyncio.SubprocessTransport):
        transport.close()


async def _wait(
    proc: asyncio.subprocess.Process, readers: list[asyncio.Task[None]], limit: float
) -> bool:
    """Wait for the command and its output; True when it timed out (the group is then killed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    delay = 0.01
    while (remaining := deadline - loop.time()) > 0:
        _, pending = await asyncio.wait(readers, timeout=min(delay, remaining))
        if not pending:  # the pipes are closed: the exit is near
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), deadline - loop.time())
                return False
        elif proc.returncode is not None:  # bash is gone, a background child holds the pipes
            await _finish_reading(proc, readers)
            return False
        delay = min(delay * 2, 0.1)
    await kill_group(proc)
    await _finish_reading(proc, readers)
    return True


def _notes(timed_out: bool, timeout: float, requested: float | None, maximum: float) -> str:
    notes = []
    if requested is not None:
        notes.append(
            f"[NOTE: a timeout of {requested:g} s was requested; the maximum of {maximum:g} s "
            "was used.]"
        )
    if timed_out:
        more = (
            f" Retry with a larger `timeout` (in seconds, up to {maximum:g}) if it needs more time."
            if timeout < maximum
            else " It already had the maximum time; run it in smaller steps or in the background."
        )
        notes.append(
            f"[ERROR: Command timed out after {timeout:g} s. Partial output is shown above.{more}]"
        )
    return "\n".join(notes)


def _with_notes(body: str, notes: str) -> str:
    if not notes:
        return body
    return f"{body}\n{notes}" if body and not body.endswith("\n") else body + notes


async def run_command(
    command: str,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,  # noqa: ASYNC109 (the command's limit, not the await's)
    on_output: OutputCallback | None = None,
    max_timeout: float = MAX_TIMEOUT,
    cap: int = OUTPUT_CAP,
    prefix: Sequence[str] = (),
    on_start: Callable[[int], None] | None = None,
    output_file: str | None = None,
) -> CommandResult:
    """Run ``command`` with ``/bin/bash -c`` (see the module docstring); never orphans children."""
    capture = Capture(cap, on_output, output_file)
    try:
        return await _run(command, capture, cwd, env, timeout, max_timeout, prefix, on_start)
    finally:
        capture.close()


async def _run(
    command: str,
    capture: Capture,
    cwd: Path | None,
    env: Mapping[str, str] | None,
    timeout: float | None,  # noqa: ASYNC109 (the command's limit, not the await's)
    max_timeout: float,
    prefix: Sequence[str],
    on_start: Callable[[int], None] | None,
) -> CommandResult:
    limit, requested = clamp_timeout(timeout, maximum=max_timeout)
    started = time.monotonic()
    proc = await _spawn([*prefix, "/bin/bash", "-c", command], cwd, env)
    if on_start is not None:
        on_start(proc.pid)  # also the process group's id
    assert proc.stdout is not None and proc.stderr is not None
    readers = [
        asyncio.create_task(capture.pump(proc.stdout, "stdout")),
        asyncio.create_task(capture.pump(proc.stderr, "stderr")),
    ]
    try:
        timed_out = await _wait(proc, readers, limit)
    except BaseException:  # cancelled: the same cleanup, then re-raise
        await asyncio.shield(_cleanup_after_cancel(proc, readers))
        raise
    if capture.callback_error is not None:
        raise capture.callback_error
    stdout, stderr, combined = capture.texts()
    return CommandResult(
        command=command,
        exit_code=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        output=_with_notes(combined, _notes(timed_out, limit, requested, max_timeout)),
        duration=time.monotonic() - started,
        timed_out=timed_out,
        timeout=limit,
        requested_timeout=requested,
        stdout_dropped=capture.raw["stdout"].dropped,
        stderr_dropped=capture.raw["stderr"].dropped,
        output_dropped=capture.combined.dropped,
        output_file=capture.spilled,
    )


async def _cleanup_after_cancel(
    proc: asyncio.subprocess.Process, readers: list[asyncio.Task[None]]
) -> None:
    await kill_group(proc)
    for task in readers:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    _close_pipes(proc)
