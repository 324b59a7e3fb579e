"""``list_dir``: a directory as an indented tree to a depth, without ``.git`` and ignored paths.

The ``.gitignore`` files are read through the environment and matched with the one parser and
matcher of ``taor.env.search`` (the one the pure-Python grep and glob use): the rules of a
directory's ``.gitignore`` apply below it, deeper files after shallower ones, and nothing under
an ignored directory is shown. The listed directory inherits the rules of its parents in the
workspace and of the workspace repository's ``.git/info/exclude``; a directory in another allowed
root inherits none.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.env.base import DirEntry, EnvError, Environment
from taor.env.search import GitignoreRule, is_ignored, parse_gitignore
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, model_output
from taor.tools.effects import Effects, path_summary
from taor.tools.truncation import FALLBACK_LIMITS

DEFAULT_DEPTH = 2
MAX_DEPTH = 10
MAX_ENTRIES = 1000
_SKIPPED = frozenset({".git"})


@dataclass(frozen=True, kw_only=True)
class ListDirTool:
    """Lists a directory as an indented tree, skipping .git and ignored paths."""

    name: str = "list_dir"
    description: str = (
        "List a directory of the workspace as a tree to a depth (default "
        f"{DEFAULT_DEPTH}). Directories end with `/`; files show their size in bytes. "
        ".git and paths ignored by .gitignore are left out."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory; default the workspace."},
                "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH},
            },
            "additionalProperties": False,
        }
    )
    read_only: bool = True

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        path = arguments.get("path", ".")
        paths = () if path is None else (path if isinstance(path, str) else str(path),)
        return Effects(
            reads=paths,
            writes_elsewhere=False,
            subject_style="path",
            subjects=paths,
            summary=path_summary(arguments),
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._list(arguments, context))

    async def _list(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env = environment_of(context)
        path = str(arguments.get("path", "."))
        depth = int(arguments.get("depth", DEFAULT_DEPTH))
        entries = await env.list_dir(path, depth=depth)
        kept = await visible_entries(env, path, entries)
        lines = [f"{'  ' * (e.depth - 1)}{_label(e)}" for e in kept[:MAX_ENTRIES]]
        if len(kept) > MAX_ENTRIES:
            lines.append(
                f"[{len(kept) - MAX_ENTRIES} more entries not shown; "
                "list a subdirectory or use a smaller depth.]"
            )
        body = "\n".join(lines) or "(empty directory)"
        meta = {"path": path, "entries": len(kept)}
        return model_output(FALLBACK_LIMITS, f"{path.rstrip('/') or '/'}/\n{body}", meta)


def _label(entry: DirEntry) -> str:
    if entry.is_dir:
        return entry.name + "/"
    if entry.size is None:
        return entry.name
    return f"{entry.name} ({entry.size} byte{'' if entry.size == 1 else 's'})"


async def visible_entries(env: Environment, path: str, entries: list[DirEntry]) -> list[DirEntry]:
    """``entries`` of directory ``path`` in tree order, without .git, ignored paths and their
    contents."""
    directory, parents = _locate(env, path)
    listed = {e.path for e in entries}
    top = parents[0] if parents else directory
    exclude = await _exclude(env, top) if parents or directory == _root(env) else []
    rules_of = {"": exclude + await _rules_along(env, [*parents, directory])}
    hidden: set[str] = set()
    kept = []
    for entry in sorted(entries, key=lambda e: e.path.split("/")):
        parent = posixpath.dirname(entry.path)
        full = posixpath.join(directory, entry.path)
        if (
            parent in hidden
            or entry.name in _SKIPPED
            or is_ignored(full, entry.is_dir, rules_of[parent])
        ):
            hidden.add(entry.path)
            continue
        kept.append(entry)
        if entry.is_dir:
            own = posixpath.join(entry.path, ".gitignore") in listed
            rules_of[entry.path] = rules_of[parent] + (await _rules(env, full) if own else [])
    return kept


def _root(env: Environment) -> str:
    return posixpath.normpath(env.working_directory())


async def _exclude(env: Environment, top: str) -> list[GitignoreRule]:
    """The rules of the workspace repository's ``.git/info/exclude`` (none when absent)."""
    try:
        text = await env.read_text(posixpath.join(top, ".git", "info", "exclude"))
    except EnvError:
        return []
    return parse_gitignore(text, top)


def _locate(env: Environment, path: str) -> tuple[str, list[str]]:
    """The listed directory as an absolute path, and its parents up to the workspace root
    (none when it is outside the workspace, in an allowed root)."""
    root = _root(env)
    full = posixpath.normpath(posixpath.join(root, path))
    if full == root or not full.startswith(root.rstrip("/") + "/"):
        return full, []
    parts = full[len(root.rstrip("/")) + 1 :].split("/")
    return full, [posixpath.join(root, *parts[:n]) for n in range(len(parts))]


async def _rules_along(env: Environment, directories: list[str]) -> list[GitignoreRule]:
    rules: list[GitignoreRule] = []
    for directory in directories:
        rules += await _rules(env, directory)
    return rules


async def _rules(env: Environment, directory: str) -> list[GitignoreRule]:
    """The rules of ``directory``'s .gitignore (none when it has none or it cannot be read)."""
    try:
        text = await env.read_text(posixpath.join(directory, ".gitignore"))
    except EnvError:
        return []
    return parse_gitignore(text, directory)
