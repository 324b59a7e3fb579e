"""``taor -p``: one input, headless, then exit with a code that says how it ended."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from argparse import Namespace
from typing import TYPE_CHECKING, Any

from taor.cli.args import UsageError, parse
from taor.errors import ConfigurationError, TaorError

if TYPE_CHECKING:
    from logging import Logger

    from taor.agent.events import Event
    from taor.agent.result import RunResult
    from taor.agent.session import Session
    from taor.cli.render import Renderer
    from taor.cli.settings import Settings

EXIT_DONE, EXIT_ERROR, EXIT_USAGE, EXIT_LIMIT, EXIT_DENIED, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130


def run_command(argv: list[str]) -> int:
    try:
        args = parse(argv)  # --help and --version exit here, before the library is imported
    except UsageError as error:
        print(f"taor: {error} (see taor --help)", file=sys.stderr)
        return EXIT_USAGE
    from taor.cli.setup import settings_from

    try:
        settings = settings_from(args, os.environ)
    except ConfigurationError as error:
        print(f"taor: {error}", file=sys.stderr)
        return EXIT_USAGE
    from taor.cli.logs import close_log, open_log

    log = open_log(settings.log_level, verbose=settings.verbosity == "verbose")
    try:
        return _headless(args, settings, log)
    finally:
        close_log(log)


def _headless(args: Namespace, settings: Settings, log: Logger) -> int:
    from taor.cli.render import Renderer, stderr_is_terminal

    render = Renderer(
        settings.output_format,
        progress=settings.verbosity == "normal" and stderr_is_terminal(),
        out=sys.stdout,
        err=sys.stderr,
    )
    if args.headless is None:
        render.problem('the interactive mode is not built yet; run headless with taor -p "task"')
        return EXIT_USAGE
    prompt = args.headless or ("" if sys.stdin.isatty() else sys.stdin.read())
    if not prompt.strip():
        render.problem('no prompt: give one after -p, or on stdin (echo "task" | taor -p)')
        return EXIT_USAGE
    try:
        return asyncio.run(_run(args, settings, prompt, render, log))
    except ConfigurationError as error:
        log.debug("configuration error", exc_info=True)
        render.problem(str(error))
        return EXIT_USAGE
    except TaorError as error:
        log.error("%s", error, exc_info=True)
        render.problem(str(error))
        return EXIT_ERROR
    except Exception as error:  # a bug of taor's: its details go to the log, not the screen
        from taor.cli.logs import log_file

        log.critical("internal error", exc_info=True)
        render.problem(f"internal error ({type(error).__name__}: {error}); details in {log_file()}")
        return EXIT_ERROR


async def _run(
    args: Namespace, settings: Settings, prompt: str, render: Renderer, log: Logger
) -> int:
    from taor.agent.result import ResultBuilder
    from taor.cli.logs import log_event
    from taor.cli.setup import session_from

    started = time.monotonic()
    session, model = session_from(args, settings)
    interrupted = _on_signals(session)
    builder, denied = ResultBuilder(), False
    try:
        async for event in session.submit(prompt):  # subscribed before session_start goes out
            render.event(event)
            log_event(log, event)
            if not event.agent_id:
                builder.feed(event)
                denied = denied or _denied_headless(event)
    finally:
        await session.close()
        await model.aclose()
    result = builder.result()
    log.info("run ended: %s after %.1f s", result.stop_reason, time.monotonic() - started)
    render.final(_summary(session.id, result, time.monotonic() - started))
    if interrupted.is_set():
        return EXIT_INTERRUPTED
    return _exit_code(result.stop_reason, denied)


def _on_signals(session: Session) -> asyncio.Event:
    """SIGINT and SIGTERM interrupt the cycle; the run then ends and the session closes."""
    flag = asyncio.Event()
    loop = asyncio.get_running_loop()

    def stop() -> None:
        flag.set()
        session.interrupt()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop)
    return flag


def _denied_headless(event: Event) -> bool:
    """A call denied because no one could be asked (the headless default answer)."""
    from taor.agent.events import PermissionDecision

    return (
        isinstance(event, PermissionDecision)
        and event.decision == "deny"
        and event.source == "default"
    )


def _exit_code(stop: str, denied: bool) -> int:
    if stop == "interrupted" or stop == "closed":
        return EXIT_INTERRUPTED
    if stop == "error":
        return EXIT_ERROR
    if stop == "turn_limit":
        return EXIT_LIMIT
    return EXIT_DENIED if denied else EXIT_DONE


def _summary(session_id: str, result: RunResult, duration: float) -> dict[str, Any]:
    usage = result.usage
    return {
        "result": result.text,
        "stop_reason": result.stop_reason,
        "session_id": session_id,
        "error": result.error,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
        "cost_usd": result.cost,
        "model_calls": result.turns,
        "tool_calls": result.tool_calls,
        "duration_s": round(duration, 3),
    }
