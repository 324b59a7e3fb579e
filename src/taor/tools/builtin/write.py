"""``write_file`` and ``list_dir``.

``write_file`` goes through ``Environment.write`` (atomic, parents created). ``list_dir`` shows a
tree to a depth, leaving out ``.git`` and what ``.gitignore`` files ignore; the ``.gitignore``
files are read through the environment, with the minimal rules of ``taor.env.search`` (a line is
a pattern scoped to its directory, ``*`` may cross ``/``, a trailing ``/`` means directories
only, a ``/`` elsewhere anchors the pattern; ``!`` negations are not supported).
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.env.base import DirEntry, EnvError, Environment
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, model_output

DEFAULT_DEPTH = 2
MAX_DEPTH = 10
MAX_ENTRIES = 1000
_SKIPPED = frozenset({".git"})


def count_lines(text: str) -> int:
    """Lines of ``text``; a last line without a newline counts."""
    return text.count("\n") + int(bool(text) and not text.endswith("\n"))


@dataclass(frozen=True, kw_only=True)
class WriteFileTool:
    """Creates or overwrites a whole file."""

    name: str = "write_file"
    description: str = (
        "Write a file in the workspace, replacing its whole content (parent directories are "
        "created). Prefer edit_file or apply_patch to change part of an existing file."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace."},
                "content": {"type": "string", "description": "The complete new content."},
            },
            "required": ["path", "content"],
            "additionalProperties": False,
        }
    )
    read_only: bool = False

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._write(arguments, context))

    async def _write(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env = environment_of(context)
        path, content = str(arguments["path"]), str(arguments["content"])
        existed = await env.exists(path)
        await env.write(path, content)
        lines = count_lines(content)
        verb = "Overwrote" if existed else "Created"
        plural = "" if lines == 1 else "s"
        meta = {"path": path, "created": not existed, "lines": lines}
        return model_output(self.name, f"{verb} {path} ({lines} line{plural}).", meta)


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

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._list(arguments, context))

    async def _list(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env = environment_of(context)
        path = str(arguments.get("path", "."))
        depth = int(arguments.get("depth", DEFAULT_DEPTH))
        entries = await env.list_dir(path, depth=depth)
        rules = await _ignore_rules(env, path, entries)
        kept = _visible(_workspace_prefix(env, path)[0], entries, rules)
        lines = [f"{'  ' * (e.depth - 1)}{_label(e)}" for e in kept[:MAX_ENTRIES]]
        if len(kept) > MAX_ENTRIES:
            lines.append(
                f"[{len(kept) - MAX_ENTRIES} more entries not shown; "
                "list a subdirectory or use a smaller depth.]"
            )
        body = "\n".join(lines) or "(empty directory)"
        meta = {"path": path, "entries": len(kept)}
        return model_output(self.name, f"{path.rstrip('/') or '/'}/\n{body}", meta)


def _label(entry: DirEntry) -> str:
    if entry.is_dir:
        return entry.name + "/"
    if entry.size is None:
        return entry.name
    return f"{entry.name} ({entry.size} byte{'' if entry.size == 1 else 's'})"


@dataclass(frozen=True, kw_only=True, slots=True)
class _Rule:
    base: str  # the directory of the .gitignore, relative to the workspace ("" for the root)
    pattern: str
    dir_only: bool
    anchored: bool


async def _ignore_rules(env: Environment, path: str, entries: list[DirEntry]) -> list[_Rule]:
    """Rules of the .gitignore files of the listed directory, its parents and the listing."""
    prefix, parents = _workspace_prefix(env, path)
    listed = [posixpath.dirname(e.path) for e in entries if e.name == ".gitignore"]
    rules: list[_Rule] = []
    for base in parents:
        rules += await _read_rules(env, base)
    for base in listed:
        rules += await _read_rules(env, posixpath.join(prefix, base) if base else prefix)
    return rules


def _workspace_prefix(env: Environment, path: str) -> tuple[str, list[str]]:
    """The listed directory relative to the workspace ("" for the root) and its parents.

    A directory outside the workspace (an allowed root) gets its own path and no parents.
    """
    root = env.working_directory().rstrip("/")
    full = posixpath.normpath(posixpath.join(root, path))
    if full == root:
        return "", []
    if not full.startswith(root + "/"):
        return full, []
    prefix = full[len(root) + 1 :]
    parts = prefix.split("/")
    return prefix, ["/".join(parts[:n]) for n in range(len(parts))]


async def _read_rules(env: Environment, base: str) -> list[_Rule]:
    try:
        text = await env.read_text(posixpath.join(base or ".", ".gitignore"))
    except EnvError:
        return []
    rules = []
    for line in (raw.strip() for raw in text.splitlines()):
        if not line or line.startswith(("#", "!")):
            continue
        pattern = line.rstrip("/")
        rules.append(
            _Rule(
                base=base,
                pattern=pattern.lstrip("/"),
                dir_only=line.endswith("/"),
                anchored="/" in pattern,
            )
        )
    return rules


def _ignored(full: str, entry: DirEntry, rules: list[_Rule]) -> bool:
    for rule in rules:
        if rule.dir_only and not entry.is_dir:
            continue
        if rule.base and not full.startswith(rule.base + "/"):
            continue
        target = (
            (full[len(rule.base) + 1 :] if rule.base else full) if rule.anchored else entry.name
        )
        if fnmatch.fnmatchcase(target, rule.pattern):
            return True
    return False


def _visible(prefix: str, entries: list[DirEntry], rules: list[_Rule]) -> list[DirEntry]:
    """Entries in tree order, without .git, ignored paths and anything under them."""
    hidden: set[str] = set()
    kept = []
    for entry in sorted(entries, key=lambda e: e.path.split("/")):
        full = posixpath.join(prefix, entry.path) if prefix else entry.path
        parent = posixpath.dirname(entry.path)
        if parent in hidden or entry.name in _SKIPPED or _ignored(full, entry, rules):
            hidden.add(entry.path)
            continue
        kept.append(entry)
    return kept
