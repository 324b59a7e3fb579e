"""``EnvironmentFacts``: what the environment block says, gathered once per session.

Everything comes through the ``Environment`` (a ``MemoryEnvironment`` or a sandbox answers for
itself; the host OS is never asked directly), except the date, which the caller injects (a
session passes its clock's date). ``render_environment`` turns the facts into the
``<environment>`` block; the same facts always render to the same bytes.
"""

from __future__ import annotations

import datetime

from taor._records import frozen
from taor.agent.context.prompt.git import GIT_TIMEOUT, GitSnapshot, git_snapshot
from taor.env.base import Environment
from taor.errors import EnvError


@frozen
class EnvironmentFacts:
    """The working directory, platform, date and model, and the git snapshot (None outside git)."""

    working_directory: str
    platform: str
    os_version: str
    date: datetime.date
    model: str
    knowledge_cutoff: str | None = None
    git: GitSnapshot | None = None
    files: tuple[str, ...] | None = None  # the working directory's entries, when asked for

    @property
    def is_git_repository(self) -> bool:
        return self.git is not None


async def gather_facts(
    env: Environment,
    *,
    model: str,
    today: datetime.date,
    knowledge_cutoff: str | None = None,
    git_timeout: float = GIT_TIMEOUT,
    list_files: int = 0,
) -> EnvironmentFacts:
    """Ask ``env`` for its facts and run the git snapshot (never raises for a git failure);
    with ``list_files``, up to that many entries of the working directory as well."""
    return EnvironmentFacts(
        working_directory=env.working_directory(),
        platform=env.platform(),
        os_version=env.os_version(),
        date=today,
        model=model,
        knowledge_cutoff=knowledge_cutoff,
        git=await git_snapshot(env, timeout=git_timeout),
        files=await _listing(env, list_files) if list_files else None,
    )


async def _listing(env: Environment, limit: int) -> tuple[str, ...]:
    """The working directory's entries (folders with a slash, hidden ones left out), sorted;
    ``limit`` of them and a count of the rest. A directory that cannot be listed lists none."""
    try:
        entries = await env.list_dir(".")
    except (OSError, EnvError):
        return ()
    names = sorted(
        e.name + "/" if e.is_dir else e.name for e in entries if not e.name.startswith(".")
    )
    if len(names) > limit:
        names = [*names[:limit], f"... and {len(names) - limit} more"]
    return tuple(names)


def _git_lines(git: GitSnapshot, working_directory: str) -> list[str]:
    lines = [f"Git branch: {git.branch or '(unknown)'}"]
    if git.root != working_directory:
        lines.append(f"Git root: {git.root}")
    if git.modified is not None and git.untracked is not None:
        counts = f"{git.modified} modified, {git.untracked} untracked"
        lines.append(f"Git status: {'clean' if git.modified + git.untracked == 0 else counts}")
    if git.commits:
        lines.append("Recent commits:")
        lines.extend(f"  {commit}" for commit in git.commits)
    return lines


def render_environment(facts: EnvironmentFacts, *, working_directory: bool = True) -> str:
    """The ``<environment>`` block, one ``Name: value`` line per fact; without
    ``working_directory``, the working directory's path is left out (a small model copies it
    into every path it writes, at a dozen tokens each, when a name relative to it would do)."""
    lines = [f"Working directory: {facts.working_directory}"] if working_directory else []
    lines.append(f"Is git repository: {'yes' if facts.git else 'no'}")
    if facts.git is not None:
        lines.extend(_git_lines(facts.git, facts.working_directory))
    lines += [
        f"Platform: {facts.platform}",
        f"OS version: {facts.os_version}",
        f"Today's date: {facts.date.isoformat()}",
        f"Model: {facts.model}",
    ]
    if facts.knowledge_cutoff:
        lines.append(f"Knowledge cutoff: {facts.knowledge_cutoff}")
    if facts.files is not None:
        lines.append(f"Files here: {', '.join(facts.files) or '(none)'}")
    return "<environment>\n" + "\n".join(lines) + "\n</environment>"
