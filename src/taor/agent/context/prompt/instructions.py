"""Project instructions: which files are read, from where, in which order.

``AGENTS.md`` is always read, plus the profile's own files (``CLAUDE.md``, ``GEMINI.md``,
``.codex/instructions.md``), in every directory from the git root (the working directory when
it is not in a repository) down to the working directory. The order is precedence, lowest
first: the user-level file (a path on the host, e.g. ``~/.config/taor/AGENTS.md``; None skips
it), then the root's files, then each deeper directory's; within one directory ``AGENTS.md``
before the profile's files. Later files win where they conflict.

Project files are read through the ``Environment``, so its path policy applies: a git root above
the workspace root is read only when the environment allows it (``allowed_roots``); paths it
refuses or cannot read are listed in ``skipped``, never raised. The user-level file is the
user's own and is read from the host. Empty (whitespace-only) files are left out.

``fingerprint`` stats every candidate path (sizes and modification times, no reads), so a
cached prompt can tell cheaply whether anything changed, was added or was removed.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
from pathlib import Path
from typing import Literal

from taor._records import frozen
from taor.env.base import EnvError, Environment, PathNotFoundError

AGENTS_FILE = "AGENTS.md"

Stamp = tuple[int, float] | Literal["absent", "refused"]


@frozen
class InstructionFile:
    """One file's text; ``path`` is how the prompt names it (absolute)."""

    path: str
    content: str


@frozen
class ProjectInstructions:
    """The files found, lowest precedence first, and the paths that could not be read."""

    files: tuple[InstructionFile, ...] = ()
    skipped: tuple[str, ...] = ()


@frozen
class InstructionSources:
    """Where to look: ``directories`` root first, ``names`` in reading order, the user file."""

    directories: tuple[str, ...]
    names: tuple[str, ...]
    user_file: Path | None = None

    def candidates(self) -> tuple[str, ...]:
        """Every project path to try, lowest precedence first."""
        return tuple(posixpath.join(d, name) for d in self.directories for name in self.names)


def instruction_names(profile_files: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``AGENTS.md`` then the profile's files, each once."""
    return tuple(dict.fromkeys((AGENTS_FILE, *profile_files)))


def directory_chain(working_directory: str, git_root: str | None) -> tuple[str, ...]:
    """The directories from ``git_root`` down to ``working_directory``, root first.

    Just the working directory outside git, or when the git root is not one of its ancestors.
    """
    cwd = posixpath.normpath(working_directory)
    if git_root is None:
        return (cwd,)
    root = posixpath.normpath(git_root)
    relative = posixpath.relpath(cwd, root)
    if relative == ".":
        return (cwd,)
    if relative == ".." or relative.startswith("../"):
        return (cwd,)
    parts = relative.split("/")
    return (root, *(posixpath.join(root, *parts[: i + 1]) for i in range(len(parts))))


def sources_for(
    working_directory: str,
    git_root: str | None,
    *,
    profile_files: tuple[str, ...] | list[str] = (),
    user_file: Path | None = None,
) -> InstructionSources:
    """The ``InstructionSources`` of a working directory inside ``git_root`` (or no repository)."""
    return InstructionSources(
        directories=directory_chain(working_directory, git_root),
        names=instruction_names(profile_files),
        user_file=user_file,
    )


async def _read_env(env: Environment, path: str) -> str | EnvError | None:
    try:
        return await env.read_text(path)
    except PathNotFoundError:
        return None
    except EnvError as error:
        return error


def _read_host(path: Path) -> str | OSError | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as error:
        return error


async def read_instructions(env: Environment, sources: InstructionSources) -> ProjectInstructions:
    """Read every candidate that exists, lowest precedence first; refusals go to ``skipped``."""
    found: list[tuple[str, str | EnvError | OSError | None]] = []
    if sources.user_file is not None:
        found.append(
            (str(sources.user_file), await asyncio.to_thread(_read_host, sources.user_file))
        )
    for path in sources.candidates():
        found.append((path, await _read_env(env, path)))
    files = [
        InstructionFile(path=path, content=text)
        for path, text in found
        if isinstance(text, str) and text.strip()
    ]
    skipped = [path for path, text in found if isinstance(text, Exception)]
    return ProjectInstructions(files=tuple(files), skipped=tuple(skipped))


async def _stamp_env(env: Environment, path: str) -> Stamp:
    try:
        info = await env.stat(path)
    except PathNotFoundError:
        return "absent"
    except EnvError:
        return "refused"
    return (info.size, info.mtime)


def _stamp_host(path: Path) -> Stamp:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "absent"
    except OSError:
        return "refused"
    return (info.st_size, info.st_mtime_ns)


async def fingerprint(env: Environment, sources: InstructionSources) -> tuple[Stamp, ...]:
    """Size and modification time of every candidate (``absent``/``refused`` otherwise)."""
    stamps = [await _stamp_env(env, path) for path in sources.candidates()]
    if sources.user_file is not None:
        stamps.append(_stamp_host(sources.user_file))
    return tuple(stamps)
