"""How a headless run ends on the terminal: the one stderr line for a run a limit stopped, and
the signals that interrupt it. Shared by ``headless`` (one input) and ``stream_run``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from taor.agent.session import Session
    from taor.host.outcome import Outcome

# The flag that raises each limit the command sets (the others come from the config file).
LIMIT_FLAGS = {"model_calls": "--max-turns", "cost": "--max-budget-usd", "wall_time": "--max-wall"}


def stop_line(outcome: Outcome, summary: dict[str, Any]) -> str | None:
    """The one stderr line for a run a limit or the loop detection stopped (which, what was
    done, and how to go on), or whose input the provider refused; None for any other end."""
    if outcome.input_refused:
        return (
            "the provider refused this input; it is left out of the session from now on: go "
            'on with taor -p --continue "another input", or --rewind N to go back before it'
        )
    if not outcome.stopped_by or summary["stop_reason"] not in ("turn_limit", "loop_detected"):
        return None
    cost = summary["cost_usd"]
    spent = "cost unknown" if cost is None else f"${cost:.4f}"
    done = f"{summary['model_calls']} model call(s), {summary['tool_calls']} tool call(s), {spent}"
    flag = LIMIT_FLAGS.get(outcome.limit)
    if outcome.limit:
        how = f"raise {flag} and " if flag else "raise the limit and "
    else:
        how = "give it another way in and "
    return (
        f"{outcome.stopped_by.rstrip('.')}; done: {done}. To go on, {how}"
        'run taor -p --continue "what next"'
    )


def on_signals(session: Session) -> asyncio.Event:
    """SIGINT and SIGTERM interrupt the cycle and set the flag returned; the caller then ends
    the run, closes the session and exits ``EXIT_INTERRUPTED``."""
    import asyncio  # not at the top: --help imports this module for the exit codes
    import signal

    flag = asyncio.Event()
    loop = asyncio.get_running_loop()

    def stop() -> None:
        flag.set()
        session.interrupt()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop)
    return flag
