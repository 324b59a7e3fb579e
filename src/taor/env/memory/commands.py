"""Scripted command results for ``MemoryEnvironment``.

A script matches a command exactly (a ``str``), by a regex (a compiled ``re.Pattern``, used with
``search``) or always (``None``). Exact scripts win; otherwise the first matching script in the
order they were added. Its reply is the stdout text, a whole ``CommandResult``, or a handler
``(command, cwd, env) -> CommandResult | str`` (or an awaitable of one: a slow command to cancel)
called with the absolute working directory and the extra variables the caller passed. A command
no script matches exits 127 with a message. An awaitable reply still pending when the command's
timeout (in real seconds) runs out is cancelled, and the command times out as a real one does
(exit code -15, ``timed_out``, a note in ``output``).
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace

from taor._records import frozen
from taor.env.base import CommandResult, OutputCallback, StreamName

CommandHandler = Callable[
    [str, str, Mapping[str, str]], CommandResult | str | Awaitable[CommandResult | str]
]
CommandReply = str | CommandResult | CommandHandler
UNSCRIPTED_EXIT_CODE = 127
TIMED_OUT_EXIT_CODE = -15  # killed by SIGTERM, as LocalEnvironment reports it


@frozen
class CommandScript:
    """What a matching command returns; ``exit_code``/``stderr``/``duration`` apply to text."""

    match: str | re.Pattern[str] | None
    reply: CommandReply
    exit_code: int = 0
    stderr: str = ""
    duration: float = 0.0

    def matches(self, command: str) -> bool:
        if self.match is None:
            return True
        if isinstance(self.match, str):
            return command == self.match
        return self.match.search(command) is not None


@frozen
class _Timing:
    timeout: float
    requested: float | None


def _text_result(
    command: str, stdout: str, stderr: str, exit_code: int, duration: float, timing: _Timing
) -> CommandResult:
    return CommandResult(
        command=command,
        exit_code=exit_code,
        stdout=stdout,
        stderr=stderr,
        output=stdout + stderr,
        duration=duration,
        timed_out=False,
        timeout=timing.timeout,
        requested_timeout=timing.requested,
    )


def _timed_out(command: str, timing: _Timing) -> CommandResult:
    note = f"[ERROR: Command timed out after {timing.timeout:g} s.]"
    return replace(
        _text_result(command, "", "", TIMED_OUT_EXIT_CODE, timing.timeout, timing),
        output=note,
        timed_out=True,
    )


class CommandScripts:
    """The scripts of one environment, in the order they were added."""

    def __init__(self) -> None:
        self.scripts: list[CommandScript] = []
        self._running: set[asyncio.Task[object]] = set()

    def add(self, script: CommandScript) -> None:
        self.scripts.append(script)

    def find(self, command: str) -> CommandScript | None:
        """The exact script for ``command``, else the first that matches, else None."""
        exact = [s for s in self.scripts if isinstance(s.match, str) and s.match == command]
        return next(iter(exact), None) or next(
            (s for s in self.scripts if s.matches(command)), None
        )

    async def cancel_running(self) -> None:
        """Cancel the tasks awaiting a handler (all but the current one) and wait for them."""
        tasks = [t for t in self._running if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def respond(
        self,
        command: str,
        cwd: str,
        env: Mapping[str, str],
        limit: float,
        requested: float | None,
    ) -> CommandResult:
        """The scripted result of ``command`` (exit code 127 when nothing matches).

        ``limit`` is the timeout applied, ``requested`` the one asked for when it was clamped.
        """
        timing = _Timing(timeout=limit, requested=requested)
        script = self.find(command)
        if script is None:
            message = f"MemoryEnvironment: no scripted result for {command!r}\n"
            return _text_result(command, "", message, UNSCRIPTED_EXIT_CODE, 0.0, timing)
        reply = await self._reply(script, command, cwd, env, limit)
        if reply is None:
            return _timed_out(command, timing)
        if isinstance(reply, CommandResult):
            return reply
        return _text_result(
            command, reply, script.stderr, script.exit_code, script.duration, timing
        )

    async def _reply(
        self, script: CommandScript, command: str, cwd: str, env: Mapping[str, str], limit: float
    ) -> CommandResult | str | None:
        """The script's reply; None when an awaitable reply outlasted ``limit`` seconds."""
        if not callable(script.reply):
            return script.reply
        reply = script.reply(command, cwd, env)
        if not inspect.isawaitable(reply):
            return reply
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        try:
            async with asyncio.timeout(limit) as scope:
                return await reply
        except TimeoutError:
            if scope.expired():
                return None
            raise
        finally:
            self._running.discard(task)


async def replay_output(result: CommandResult, on_output: OutputCallback | None) -> None:
    """Give the callback the result's stdout, then its stderr (each only when not empty)."""
    if on_output is None:
        return
    streams: tuple[tuple[str, StreamName], ...] = (
        (result.stdout, "stdout"),
        (result.stderr, "stderr"),
    )
    for text, stream in streams:
        if text:
            returned = on_output(text, stream)
            if inspect.isawaitable(returned):
                await returned
