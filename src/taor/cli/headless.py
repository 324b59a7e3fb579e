"""``taor -p``: one input, headless, then exit with a code that says how it ended. With
``--input-format stream-json`` the inputs come as JSON lines on stdin instead
(``taor.cli.stream_run``)."""

from __future__ import annotations

import os
import sys
from argparse import Namespace
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from taor.cli.args import UsageError, parse
from taor.errors import ConfigurationError, TaorError, brief
from taor.host.outcome import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE

if TYPE_CHECKING:
    from logging import Logger

    from taor.cli.render import Renderer
    from taor.host.settings import Settings


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
    if args.headless is not None or args.rewind is not None:  # interactive: it asks instead
        _say_ignored(settings)
    from taor.cli.logs import close_log, open_log

    log = open_log(settings.log_level, verbose=settings.verbosity == "verbose")
    library = _library_log(log)
    try:
        return _headless(args, settings, log)
    finally:
        library.handlers.clear()
        close_log(log)


def _say_ignored(settings: Settings) -> None:
    """One line on stderr naming the project's settings that were left out, and why."""
    from taor.host.settings.confine import notice

    line = notice(settings.ignored)
    if line:
        print(f"taor: {line}", file=sys.stderr)


def _library_log(log: Logger) -> Logger:
    """The library's logger (whole provider errors, tracebacks) into the log file only: its
    lines are too long for the screen, even with --verbose."""
    import logging

    library = logging.getLogger("taor.agent")
    library.propagate = False
    library.setLevel(log.level)
    for handler in log.handlers:
        if isinstance(handler, logging.FileHandler):
            library.addHandler(handler)
    return library


def _headless(args: Namespace, settings: Settings, log: Logger) -> int:
    from taor.cli.render import Renderer, stderr_is_terminal

    render = Renderer(
        settings.output_format,
        progress=settings.verbosity == "normal" and stderr_is_terminal(),
        out=sys.stdout,
        err=sys.stderr,
    )
    if args.headless is None:
        if args.rewind is not None:
            from taor.cli.rewind import rewind_only

            return _guarded(rewind_only(args, settings, render), render, log)
        return _interactive(args, settings, render, log)
    if settings.input_format == "stream-json":
        if settings.output_format != "stream-json":
            source = settings.sources.get("output_format", "default")
            render.problem(
                "--input-format stream-json needs --output-format stream-json "
                f"(output_format is {settings.output_format}, from {source})"
            )
            return EXIT_USAGE
        from taor.cli.stream_run import run_stream

        return _guarded(run_stream(args, settings, args.headless, render, log), render, log)
    prompt = _prompt(args.headless or args.prompt or "", render)  # taor -p --continue "task"
    if not prompt.strip():
        render.problem('no prompt: give one after -p, or on stdin (echo "task" | taor -p)')
        return EXIT_USAGE
    return _guarded(_run(args, settings, prompt, render, log), render, log)


def _prompt(given: str, render: Renderer) -> str:
    """The prompt from ``-p`` or stdin; bytes that are not UTF-8 (argv holds them as lone
    surrogates) become U+FFFD, with one line that says so."""
    if given:
        raw = given.encode("utf-8", "surrogateescape")
    else:
        raw = b"" if sys.stdin.isatty() else sys.stdin.buffer.read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        prompt = raw.decode("utf-8", "replace")
    bad = prompt.count("\ufffd") - raw.decode("utf-8", "ignore").count("\ufffd")
    render.problem(f"the prompt is not all UTF-8: {bad} character(s) replaced with U+FFFD")
    return prompt


def _interactive(args: Namespace, settings: Settings, render: Renderer, log: Logger) -> int:
    """``taor`` or ``taor "prompt"``: the interactive mode, in a terminal."""
    if not sys.stdin.isatty():
        render.problem('the interactive mode needs a terminal; run headless with taor -p "task"')
        return EXIT_USAGE
    if args.output_format or args.input_format:
        render.problem("--output-format and --input-format are for headless runs (taor -p)")
        return EXIT_USAGE
    from taor.cli.interactive import run_interactive

    return _guarded(run_interactive(args, settings, log), render, log)


def _guarded(run: Coroutine[Any, Any, int], render: Renderer, log: Logger) -> int:
    """Run it; a configuration, provider or internal problem is one line on stderr."""
    import asyncio  # here, not above: --help and usage errors answer without it

    try:
        return asyncio.run(run)
    except ConfigurationError as error:
        log.debug("configuration error", exc_info=True)
        render.problem(str(error))
        return EXIT_USAGE
    except TaorError as error:
        log.error("%s", error, exc_info=True)
        render.problem(brief(str(error)))
        return EXIT_ERROR
    except Exception as error:  # a bug of taor's: its details go to the log, not the screen
        from taor.cli.logs import log_file

        log.critical("internal error", exc_info=True)
        what = brief(f"{type(error).__name__}: {error}", 200)
        render.problem(f"internal error ({what}); details in {log_file()}")
        return EXIT_ERROR


async def _run(
    args: Namespace, settings: Settings, prompt: str, render: Renderer, log: Logger
) -> int:
    from taor.cli.ending import on_signals, stop_line
    from taor.cli.logs import log_event
    from taor.cli.rewind import rewind_first
    from taor.cli.setup import session_from
    from taor.host.outcome import Outcome

    outcome = Outcome()
    session, model = session_from(args, settings)
    interrupted = on_signals(session)
    try:
        if not await rewind_first(args, session, render, quiet=settings.verbosity == "quiet"):
            return EXIT_USAGE
        async for event in session.submit(prompt):  # subscribed before session_start goes out
            render.event(event)
            log_event(log, event)
            outcome.feed(event)
    finally:
        await session.close()
        await model.aclose()
    summary = outcome.summary(session.id)
    log.info("run ended: %s after %.1f s", summary["stop_reason"], summary["duration_s"])
    render.final(summary)
    if settings.verbosity != "quiet" and (line := stop_line(outcome, summary)) is not None:
        render.problem(line)
    return EXIT_INTERRUPTED if interrupted.is_set() else outcome.exit_code()
