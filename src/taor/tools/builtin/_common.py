"""Helpers every built-in file tool shares: the environment of a call, errors turned into
results, output cut for the model (the whole text kept for the host), and the "did you mean"
answer for a missing file."""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Awaitable, Mapping
from typing import Any

from taor.env.base import EnvError, Environment
from taor.tools.base import ToolContext, ToolError, ToolOutput
from taor.tools.truncation import Limits, truncate

_SUGGEST_DEPTH = 4
_SUGGEST_MAX_CANDIDATES = 20_000


def environment_of(context: ToolContext) -> Environment:
    """The context's environment, or a ToolError when the host gave none."""
    if context.environment is None:
        raise ToolError("This tool needs an execution environment, and none was configured.")
    env: Environment = context.environment
    return env


async def guarded(run: Awaitable[ToolOutput]) -> ToolOutput:
    """Await ``run``; a failure the model can act on becomes an ``is_error`` output."""
    try:
        return await run
    except (EnvError, ToolError, OSError, ValueError) as exc:  # EditError, PatchError: ValueError
        return ToolOutput.error(str(exc) or type(exc).__name__)


def model_output(
    limits: Limits, text: str, metadata: Mapping[str, Any] | None = None
) -> ToolOutput:
    """``text`` truncated to ``limits`` for the model; the whole of it in ``metadata`` when
    anything was cut."""
    cut = truncate(text, limits)
    meta = dict(metadata or {})
    if cut.truncated:
        meta.update(full_output=text, omitted_chars=cut.omitted_chars)
        meta.update(omitted_lines=cut.omitted_lines)
    return ToolOutput.of(cut.text, metadata=meta)


async def missing_file_message(env: Environment, path: str) -> str:
    """Says ``path`` does not exist and names the closest existing files of the workspace."""
    wanted = posixpath.normpath(_relative(env, path))
    candidates = await _candidate_paths(env, wanted)
    name = posixpath.basename(wanted)
    close = difflib.get_close_matches(wanted, candidates, n=5, cutoff=0.6)
    close += [c for c in candidates if posixpath.basename(c) == name and c not in close]
    message = f"File not found: {path!r}."
    if close:
        message += " Did you mean: " + ", ".join(close[:5]) + "?"
    return message


def _relative(env: Environment, path: str) -> str:
    root = env.working_directory().rstrip("/") + "/"
    return path[len(root) :] if path.startswith(root) else path


async def _candidate_paths(env: Environment, wanted: str) -> list[str]:
    """Files of a bounded listing: the workspace to a small depth, and the nearest parent."""
    found: list[str] = []
    parent = posixpath.dirname(wanted) or "."
    for base, depth in ((".", _SUGGEST_DEPTH), (parent, 1)):
        try:
            entries = await env.list_dir(base, depth=depth)
        except EnvError:
            continue
        prefix = "" if base == "." else base + "/"
        found += [prefix + e.path for e in entries if not e.is_dir and ".git/" not in e.path]
    return list(dict.fromkeys(found))[:_SUGGEST_MAX_CANDIDATES]
