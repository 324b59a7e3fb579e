"""What a ``run_task`` call asks for, and the session it gets: composed as the command composes
one (``taor.host.compose``), from the person's settings for the folder, where the project's own
files act only when the folder is trusted (``taor trust``). The server's flags give defaults;
a call may choose the model and tighten the limits, never the endpoint a key is sent to."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.host.compose.session import session_for
from taor.host.settings.confine import notice
from taor.host.settings.project import settings_for
from taor.mcp_server.job import Job


@frozen
class Defaults:
    """The server's own settings for every task (its flags, by config key)."""

    flags: dict[str, Any]
    folder: Path


@frozen
class Task:
    text: str
    folder: str | None = None
    model: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_wall: float | None = None


def compose(task: Task, defaults: Defaults) -> Job:
    """The job for ``task``, not started; ``ConfigurationError`` names what is wrong."""
    if not task.text.strip():
        raise ConfigurationError("task is empty: say what the agent should do")
    folder = _folder(task.folder, defaults.folder)
    flags = {
        **defaults.flags,
        **({"model": task.model} if task.model else {}),
        **_limits(task, defaults.flags),
    }
    settings = settings_for(folder, os.environ, flags=flags)
    session, model = session_for(folder, settings, interactive=True)
    left_out = notice(settings.ignored)
    return Job(session, model, notes=(f"taor: {left_out}",) if left_out else ())


def _folder(given: str | None, default: Path) -> Path:
    folder = (default / given).resolve() if given else default
    if not folder.is_dir():
        raise ConfigurationError(
            f"folder {given!r} is not a directory: give an existing folder "
            "(absolute, or relative to where the server was started)"
        )
    return folder


def _limits(task: Task, server: dict[str, Any]) -> dict[str, Any]:
    """The call's limits, each no laxer than the server's own."""
    chosen: dict[str, Any] = {}
    for key in ("max_turns", "max_budget_usd", "max_wall"):
        value, ceiling = getattr(task, key), server.get(key)
        if value is not None:
            chosen[key] = value if ceiling is None else min(value, ceiling)
    return chosen
