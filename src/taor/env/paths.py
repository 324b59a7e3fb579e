"""Path policy: every path resolves inside the workspace root or a root the caller allowed.

Relative paths start at the workspace root. ``..`` that climbs out, an absolute path elsewhere
and a symlink that leads out are refused with ``PathPolicyError``, whose message names the
workspace so the model can retry with a good path. ``..`` that stays inside (``a/../b``) is fine.

``resolve_lexically`` is the pure part (no filesystem: what ``MemoryEnvironment`` needs);
``PathPolicy.resolve`` adds the symlink check on the real filesystem.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from taor.env.base import PathPolicyError


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _check_syntax(path: str) -> None:
    if not path:
        raise PathPolicyError("The path is empty; give a path inside the workspace.")
    if "\x00" in path:
        raise PathPolicyError(f"The path {path!r} contains a NUL byte.")


def _outside_message(path: str, resolved: str, roots: Sequence[str]) -> str:
    where = f"the workspace {roots[0]}"
    if len(roots) > 1:
        where += " or the allowed roots " + ", ".join(roots[1:])
    if posixpath.isabs(path):
        return f"The path {path!r} is outside {where}. Use a path inside it."
    return (
        f"The path {path!r} resolves to {resolved}, outside {where}. "
        f"Relative paths start at {roots[0]}; '..' may not leave it."
    )


def resolve_lexically(path: str, roots: Sequence[str]) -> str:
    """Normalize ``path`` against ``roots[0]`` without touching the filesystem, or refuse it.

    ``roots`` are absolute, normalized POSIX paths, the workspace root first.
    """
    _check_syntax(path)
    candidate = posixpath.normpath(posixpath.join(roots[0], path))
    if candidate.startswith("//"):  # normpath keeps a leading double slash
        candidate = "/" + candidate.lstrip("/")
    if not any(_inside(candidate, root) for root in roots):
        raise PathPolicyError(_outside_message(path, candidate, roots))
    return candidate


def relative_display(path: str, root: str) -> str:
    """``path`` relative to ``root`` when inside it (``.`` for the root), else unchanged."""
    if _inside(path, root):
        rel = posixpath.relpath(path, root)
        return rel
    return path


class PathPolicy:
    """Resolves paths on the real filesystem inside ``root`` plus ``allowed_roots``."""

    def __init__(self, root: str | Path, allowed_roots: Sequence[str | Path] = ()) -> None:
        given = [Path(root), *(Path(r) for r in allowed_roots)]
        if not all(p.is_absolute() for p in given):
            given = [p.absolute() for p in given]
        self._lexical_roots = [posixpath.normpath(str(p)) for p in given]
        self._real_roots = [os.path.realpath(p) for p in given]

    @property
    def root(self) -> Path:
        """The workspace root, symlinks resolved."""
        return Path(self._real_roots[0])

    @property
    def roots(self) -> list[str]:
        """The workspace root then the allowed roots, symlinks resolved."""
        return list(self._real_roots)

    def resolve(self, path: str | PurePosixPath) -> Path:
        """The real path of ``path`` (symlinks followed), or ``PathPolicyError``."""
        text = str(path)
        try:
            lexical = resolve_lexically(text, self._lexical_roots)
        except PathPolicyError:
            lexical = resolve_lexically(text, self._real_roots)  # absolute via the real root
        real = os.path.realpath(lexical)
        if not any(_inside(real, root) for root in self._real_roots):
            raise PathPolicyError(
                f"The path {text!r} leads through a symlink to {real}, outside the workspace "
                f"{self._real_roots[0]}. Use a path whose target is inside the workspace."
            )
        return Path(real)

    def display(self, path: str | Path) -> str:
        """How to show a resolved path to the model: relative to the root when inside it."""
        return relative_display(str(path), self._real_roots[0])
