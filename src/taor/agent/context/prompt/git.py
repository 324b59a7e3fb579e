"""The git snapshot of the environment block, gathered once through ``Environment.run``.

Four short read-only commands run in the working directory: ``git rev-parse --show-toplevel``
(is this a repository, and where is its root), ``git symbolic-ref --short -q HEAD`` (the branch;
detached HEAD falls back to ``git rev-parse --short HEAD``), ``git status --porcelain`` (counts
only, no diff) and ``git log --oneline -n 8``. ``GIT_OPTIONAL_LOCKS=0`` keeps ``git status``
from taking the index lock, so the snapshot never races the user's own git commands. Any
failure (no git, not a repository, a timeout, an environment that cannot run commands) means
"not a repository" or an omitted detail, never an exception.
"""

from __future__ import annotations

import asyncio

from taor._records import frozen
from taor.env.base import EnvError, Environment

GIT_TIMEOUT = 5.0
RECENT_COMMITS = 8
COMMIT_LINE_LIMIT = 100
_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}


@frozen
class GitSnapshot:
    """The repository at session start.

    ``branch`` is the branch name, ``(detached at <sha>)`` for a detached HEAD, or None when git
    could not say. ``modified`` counts the entries of ``git status --porcelain`` that are not
    untracked (staged or not, deleted and renamed included); ``untracked`` counts ``??`` entries
    (an untracked directory counts once, as git shows it); both are None when ``git status``
    failed. ``commits`` are ``git log --oneline``
    lines, newest first (empty before the first commit), each cut to 100 characters with ``…``.
    """

    root: str
    branch: str | None
    modified: int | None
    untracked: int | None
    commits: tuple[str, ...]


async def _git(env: Environment, args: str, limit: float) -> str | None:
    """The stdout of ``git <args>`` (run with a ``limit`` in seconds), or None when it fails."""
    try:
        result = await env.run(f"git {args}", timeout=limit, env=_GIT_ENV)
    except EnvError:
        return None
    if result.exit_code != 0 or result.timed_out:
        return None
    return result.stdout


async def _branch(env: Environment, limit: float) -> str | None:
    name = await _git(env, "symbolic-ref --short -q HEAD", limit)
    if name and name.strip():
        return name.strip()
    sha = await _git(env, "rev-parse --short HEAD", limit)
    return f"(detached at {sha.strip()})" if sha and sha.strip() else None


def _commit_lines(log: str | None) -> tuple[str, ...]:
    lines = [line.rstrip() for line in (log or "").splitlines() if line.strip()]
    limit = COMMIT_LINE_LIMIT
    return tuple(line if len(line) <= limit else line[: limit - 1] + "…" for line in lines)


def _status_counts(porcelain: str | None) -> tuple[int | None, int | None]:
    if porcelain is None:
        return None, None
    lines = [line for line in porcelain.splitlines() if line.strip()]
    untracked = sum(1 for line in lines if line.startswith("??"))
    ignored = sum(1 for line in lines if line.startswith("!!"))
    return len(lines) - untracked - ignored, untracked


async def git_snapshot(
    env: Environment,
    *,
    timeout: float = GIT_TIMEOUT,  # noqa: ASYNC109 (each command's limit)
    commits: int = RECENT_COMMITS,
) -> GitSnapshot | None:
    """The snapshot of the repository holding the working directory, or None outside one."""
    toplevel = await _git(env, "rev-parse --show-toplevel", timeout)
    if toplevel is None or not toplevel.strip():
        return None
    branch, status, log = await asyncio.gather(
        _branch(env, timeout),
        _git(env, "status --porcelain", timeout),
        _git(env, f"log --oneline --no-decorate --no-color -n {commits}", timeout),
    )
    modified, untracked = _status_counts(status)
    return GitSnapshot(
        root=toplevel.strip(),
        branch=branch,
        modified=modified,
        untracked=untracked,
        commits=_commit_lines(log),
    )
