"""The command's log: a rotating file under the user state directory (platformdirs:
``$XDG_STATE_HOME/taor/log/taor.log`` on Linux, 1 MB x 4 files), at the configured level, and
with ``--verbose`` also on stderr. It tells what each run did: its session, each model response
with the provider's id (quote it to the provider's support), retries, tool calls, limits and
errors. Keys are never in it: nothing logged comes from the environment or the config. The
folder is 0700 and every log file 0600 (also those rotation starts): only their owner reads
them."""

from __future__ import annotations

import io
import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

from taor._private import private_dir, private_open
from taor.agent.events import (
    ErrorEvent,
    Event,
    Retry,
    SessionStart,
    ToolCallEnd,
    ToolCallStart,
    TurnLimit,
    UsageEvent,
    WarningEvent,
)

FORMAT = "%(asctime)s %(levelname)s %(message)s"


def log_file() -> Path:
    from platformdirs import user_log_dir

    return Path(user_log_dir("taor")) / "taor.log"


def open_log(level: str, *, verbose: bool) -> logging.Logger:
    """A logger of its own (not registered with ``logging``'s global tree) writing to the log
    file, if its folder can be made, and with ``verbose`` to stderr at every level."""
    log = logging.Logger("taor", logging.DEBUG if verbose else level.upper())
    path = log_file()
    try:
        private_dir(path.parent)
        handler = _PrivateFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
    except OSError:
        pass  # no log file is no reason to refuse to work; `taor doctor` reports it
    else:
        handler.setFormatter(logging.Formatter(FORMAT))
        handler.setLevel(level.upper())
        log.addHandler(handler)
    if verbose:
        stderr = logging.StreamHandler(sys.stderr)
        stderr.setFormatter(logging.Formatter("taor: %(message)s"))
        log.addHandler(stderr)
    return log


class _PrivateFileHandler(RotatingFileHandler):
    """A rotating log whose every file is created 0600 (an existing one is brought to it)."""

    def _open(self) -> io.TextIOWrapper:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC
        fd = private_open(self.baseFilename, flags)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)


def close_log(log: logging.Logger) -> None:
    for handler in list(log.handlers):
        handler.close()
        log.removeHandler(handler)


def log_event(log: logging.Logger, event: Event) -> None:
    """One line for what is worth keeping of ``event``; subagents' lines are tagged."""
    tag = f"[{event.agent_id}] " if event.agent_id else ""
    match event:
        case SessionStart():
            log.info("%ssession %s: %s:%s", tag, event.session_id, event.provider, event.model)
        case UsageEvent():
            log.info(
                "%smodel response %s: %d tokens in, %d out%s",
                tag,
                event.response_id or "(no id)",
                event.usage.input_tokens,
                event.usage.output_tokens,
                f", ${event.cost:.4f}" if event.cost is not None else "",
            )
        case ToolCallStart():
            log.info("%stool %s", tag, event.summary or event.name)
        case ToolCallEnd() if event.is_error:
            first = event.output.strip().splitlines()[0][:300] if event.output.strip() else ""
            log.warning("%stool %s failed: %s", tag, event.name, first)
        case Retry():
            log.warning("%sretry %d in %.1f s: %s", tag, event.attempt, event.delay, event.cause)
        case TurnLimit() | WarningEvent():
            log.warning("%s%s", tag, event.message)
        case ErrorEvent():
            rid = f" (request id {event.request_id})" if event.request_id else ""
            log.error("%s%s%s", tag, event.message, rid)
        case _:
            pass
