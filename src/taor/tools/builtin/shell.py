"""The ``shell`` tool: run a command in the environment, stream its output, report how it ended.

The command runs through ``context.environment.run`` (``/bin/bash -c`` in a new process group
for ``LocalEnvironment``), whose output reaches ``context.on_output`` as it arrives. The model
gets a header (exit code, duration, and any timeout or clamping) then the combined output, cut
by ``taor.tools.truncation`` (shell: head and tail); the host gets the output the environment
kept (all of it up to its capture cap, 1 MiB head and 1 MiB tail for ``LocalEnvironment``),
stdout and stderr in ``metadata``, and, when the output was bigger and the session gave an
output directory, ``output_file``: the path of a file holding all of it. A non-zero exit code
is not an error result (the model reads the code); a timeout is, with the partial output. ``timeout`` defaults to the environment's (10 s for
``LocalEnvironment``); a request above its maximum (600 s) is clamped and the model is told.
Setting ``context.cancelled`` stops the command (its process group is killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from taor._records import frozen
from taor.env.base import CommandResult, EnvError, Environment, StreamName
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.effects import Effects, string_field, text_argument
from taor.tools.truncation import Limits, truncate

_LISTED = 10  # entries named per kind of change

SHELL_LIMITS = Limits(chars=30_000, lines=256)
SHELL_PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to run."},
        "timeout": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "Seconds before the command is stopped (default 10, at most 600).",
        },
        "description": {
            "type": "string",
            "description": "What the command does, in a few words (shown to the user).",
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}


def _header(result: CommandResult) -> str:
    parts = [f"Exit code: {result.exit_code}", f"Duration: {result.duration:.2f} s"]
    if result.timed_out:
        parts.append(f"TIMED OUT after {result.timeout:g} s (partial output below)")
    if result.requested_timeout is not None:
        parts.append(
            f"timeout clamped from {result.requested_timeout:g} s to the maximum "
            f"{result.timeout:g} s"
        )
    return " | ".join(parts)


def _plain(result: CommandResult, body: str, changed: str, cwd: str) -> str:
    if result.timed_out:
        return f"The command did not finish within {result.timeout:g} s and was stopped.\n{body}"
    if result.exit_code != 0:
        failed = f"The command failed (exit code {result.exit_code}). Its output:\n{body}{changed}"
        return failed + _missing_scripts(result.output, cwd)
    return (
        f"The command succeeded (exit code 0). It printed:\n{body.rstrip()}{changed}\n\n"
        "If this completes the task, reply now with a short answer and no tool call."
    )


Entries = dict[str, tuple[bool, bool]]  # name -> (is a directory, is an empty file)
# A script a command could not open: python's "can't open file 'X'", bash's "X: No such file".
_MISSING = re.compile(
    r"(?:can't open file '|^(?:\S+: )?(?:line \d+: )?)(?P<path>[^'\s:]+\.(?:py|sh|js|mjs|rb|pl))'?"
    r":? \[?(?:Errno 2\] )?No such file or directory",
    re.MULTILINE,
)


def _missing_scripts(output: str, cwd: str) -> str:
    """A line for each script the output says does not exist (a small model runs the script
    it was asked to write before writing it, then makes an empty file to quiet the error)."""
    found = dict.fromkeys(m.group("path") for m in _MISSING.finditer(output[-4000:]))
    notes = []
    for path in list(found)[:2]:
        inside = os.path.relpath(path, cwd) if os.path.isabs(path) else os.path.normpath(path)
        if not inside.startswith(".."):
            notes.append(
                f"\n{inside} does not exist yet. Write it first: call write_file with its whole "
                "content, then run it."
            )
    return "".join(notes)


async def _entries(env: Environment) -> Entries | None:
    """The working directory's entries (hidden ones left out); None when it cannot be listed."""
    try:
        listed = await env.list_dir(".")
    except (OSError, EnvError):
        return None
    return {e.name: (e.is_dir, not e.is_dir and e.size == 0) for e in listed if e.name[0] != "."}


def _changes(before: Entries | None, after: Entries | None) -> str:
    """What a command added to or removed from the working directory, in plain words."""
    if before is None or after is None:
        return ""

    def named(names: set[str], kinds: Entries) -> str:
        shown = sorted(names)[:_LISTED]
        more = f" and {len(names) - _LISTED} more" if len(names) > _LISTED else ""
        kind = {(True, False): "a folder", (False, False): "a file", (False, True): "an empty file"}
        return ", ".join(f"{name} ({kind[kinds[name]]})" for name in shown) + more

    swapped = {name for name in before.keys() & after.keys() if before[name][0] != after[name][0]}
    new, gone = (after.keys() - before.keys()) | swapped, (before.keys() - after.keys()) | swapped
    parts = [f"new: {named(new, after)}"] if new else []
    parts += [f"gone: {named(gone, before)}"] if gone else []
    return f"\nIn the folder now, {'; '.join(parts)}." if parts else ""


def _metadata(result: CommandResult) -> dict[str, Any]:
    return {
        "exit_code": result.exit_code,
        "duration": result.duration,
        "timed_out": result.timed_out,
        "timeout": result.timeout,
        "requested_timeout": result.requested_timeout,
        "full_output": result.output,
        "output_file": result.output_file,
        "stdout": result.stdout,
        "stderr": result.stderr,
    }


def _spill_option(context: ToolContext) -> dict[str, Any]:
    """Where the whole output goes when it does not fit, if the host gave a directory (the
    option is left out otherwise, for environments written before it existed)."""
    path = context.output_file()
    return {} if path is None else {"output_file": path}


async def _until_cancelled(run: asyncio.Task[CommandResult], cancelled: asyncio.Event) -> bool:
    """Wait for ``run``; True when ``cancelled`` was set first (``run`` is then cancelled)."""
    waiter = asyncio.ensure_future(cancelled.wait())
    try:
        await asyncio.wait({run, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not run.done():
            run.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await run
    return run.cancelled()


@frozen
class ShellTool:
    """Runs ``bash -c command`` in the environment. ``limits`` overrides the shell limits."""

    name: str = "shell"
    description: str = (
        "Run a bash command in the workspace and return its exit code, duration and output "
        "(stdout and stderr combined). stdin is closed; use `timeout` for long commands."
    )
    parameters: Mapping[str, Any] = field(default_factory=lambda: SHELL_PARAMETERS)
    read_only: bool = False
    limits: Limits | None = None
    # Results in plain words for small models: whether the command succeeded, what it added to
    # or removed from the working directory, and after a success, that a finished task is
    # answered now (else they verify forever).
    plain: bool = False

    @property
    def output_limits(self) -> Limits:
        return SHELL_LIMITS

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        command = text_argument(arguments, "command")
        return Effects(  # a command may change any file: it writes elsewhere
            runs_commands=True,
            command=str(arguments.get("command") or ""),
            subject_style="command",
            subjects=string_field(arguments, "command"),
            summary=command,
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        if context.environment is None:
            return ToolOutput.error("shell needs an execution environment; none was configured.")

        def forward(text: str, stream: StreamName) -> None:
            context.on_output(text)

        before = await _entries(context.environment) if self.plain else None
        run = asyncio.ensure_future(
            context.environment.run(
                arguments["command"],
                timeout=arguments.get("timeout"),
                on_output=forward,
                **_spill_option(context),
            )
        )
        try:
            if await _until_cancelled(run, context.cancelled):
                return ToolOutput.error("The command was cancelled; its processes were stopped.")
            result: CommandResult = run.result()
        except EnvError as exc:
            return ToolOutput.error(str(exc))
        changed = _changes(before, await _entries(context.environment)) if self.plain else ""
        cwd = context.environment.working_directory()
        return self._output(result, arguments.get("description", ""), changed, cwd)

    def _output(
        self, result: CommandResult, description: str, changed: str, cwd: str
    ) -> ToolOutput:
        cut = truncate(result.output, self.limits or SHELL_LIMITS)
        metadata = _metadata(result)
        metadata.update(omitted_chars=cut.omitted_chars, omitted_lines=cut.omitted_lines)
        metadata["description"] = description
        body = cut.text if cut.text.strip() else "(no output)"
        text = f"{_header(result)}\n{body}"
        if self.plain:
            text = _plain(result, body, changed, cwd)
        return ToolOutput.of(text, is_error=result.timed_out, metadata=metadata)
