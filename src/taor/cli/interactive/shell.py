"""``!command``: a shell command run at once in the project folder, not by the model. It runs
through the session's environment, so the sandbox and the filter of secret variables apply as
they do to the model's own commands; its output is shown folded like a tool call's (Ctrl-O or
``/expand`` shows it whole).

The model does not see it when it runs: the command and its output go to the model with the
next input, before it (Claude Code does the same), so ``!pytest`` then "fix that" works. Ctrl-C
or Esc stops a command still running.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text

from taor.cli.interactive.live import RunningCall
from taor.cli.interactive.views import Fold, call_line, folded
from taor.errors import TaorError

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

TIMEOUT = 600.0  # seconds; the environment's own maximum
KEY = "!shell"  # its place among the running calls of the live area
CONTEXT_LIMIT = 10_000  # characters of output kept for the model (its tail)


def is_shell(text: str) -> bool:
    return text.startswith("!") and bool(text[1:].strip())


def start(repl: Repl, text: str) -> None:
    """Runs ``!command`` in the background, so the prompt (and Ctrl-C) stay free."""
    if repl.shell_task is not None and not repl.shell_task.done():
        repl.screen.line("a ! command is still running: wait for it, or Ctrl-C", "yellow")
        return
    command = text[1:].strip()
    repl.live.calls[KEY] = RunningCall(summary=f"! {command}")
    repl.shell_task = asyncio.create_task(_run(repl, command))


def stop(repl: Repl) -> bool:
    """Ctrl-C while a ``!`` command runs: it is stopped (True), else False."""
    task = repl.shell_task
    if task is None or task.done():
        return False
    task.cancel()
    return True


def for_the_model(command: str, output: str, exit_code: int | None) -> str:
    """What the model gets with the next input about a command the person ran."""
    kept = output if len(output) <= CONTEXT_LIMIT else "…" + output[-CONTEXT_LIMIT:]
    return (
        f"[The user ran a shell command in the project folder: `{command}` "
        f"(exit code {exit_code}). Its output:]\n{kept.rstrip()}"
    )


async def _run(repl: Repl, command: str) -> None:
    def tail(text: str, stream: str) -> None:
        call = repl.live.calls.get(KEY)
        if call is not None:
            lines = (call.tail + text).rstrip("\n").splitlines()
            call.tail = lines[-1] if lines else ""

    try:
        result = await repl.session.environment.run(command, timeout=TIMEOUT, on_output=tail)
    except asyncio.CancelledError:
        repl.live.calls.pop(KEY, None)
        repl.screen.print(call_line(f"! {command}", failed=True), folded("stopped", 0), "")
        return
    except TaorError as error:
        repl.live.calls.pop(KEY, None)
        repl.screen.line(f"✗ ! {command}: {error}", "red")
        return
    repl.live.calls.pop(KEY, None)
    failed = result.exit_code != 0
    output = result.output or "(no output)"
    number = repl.folds.add(Fold(title=f"! {command}", text=output))
    repl.screen.print(
        call_line(f"! {command}", failed=failed, seconds=result.duration),
        folded(output, number, style="red" if failed else ""),
        Text("  (the model gets this with your next input)", style="dim"),
        "",
    )
    repl.shell_notes.append(for_the_model(command, result.output, result.exit_code))
    repl.redraw()
