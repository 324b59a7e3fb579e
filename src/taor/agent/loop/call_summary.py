"""One short, human line per tool call, for ``tool_call_start`` and ``permission_request``.

``shell: pytest -q``, ``read_file: src/app.py``, ``grep: "needle" in src``,
``apply_patch: 3 files (a.py, b.py, +1)``; a tool without its own form (or a call missing the
argument its form needs): ``name: {compact json}``. Whitespace runs (newlines too) become one
space, and a line longer than ``limit`` (80) characters is cut with an ellipsis.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from taor.agent.policy.subjects import canonical_json, patch_paths

_PATH_TOOLS = frozenset({"read_file", "write_file", "edit_file", "list_dir"})
ELLIPSIS = "…"


def summarize_call(name: str, arguments: Mapping[str, Any], *, limit: int = 80) -> str:
    detail = _detail(name, arguments)
    if detail is None:
        detail = canonical_json(dict(arguments))
    return _fit(f"{name}: {detail}", limit)


def _fit(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: max(limit - 1, 0)] + ELLIPSIS


def _text(arguments: Mapping[str, Any], key: str) -> str | None:
    value = arguments.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _detail(name: str, arguments: Mapping[str, Any]) -> str | None:
    if name in _PATH_TOOLS:  # by taor's name or a profile's native one (Claude's file_path)
        return _text(arguments, "path") or _text(arguments, "file_path")
    form = _FORMS.get(name)
    return form(arguments) if form else None


def _shell(arguments: Mapping[str, Any]) -> str | None:
    return _text(arguments, "command")


def _grep(arguments: Mapping[str, Any]) -> str | None:
    pattern, path = _text(arguments, "pattern"), _text(arguments, "path")
    if pattern is None:
        return None
    return f'"{pattern}" in {path}' if path else f'"{pattern}"'


def _glob(arguments: Mapping[str, Any]) -> str | None:
    pattern, path = _text(arguments, "pattern"), _text(arguments, "path")
    if pattern is None:
        return None
    return f"{pattern} in {path}" if path else pattern


def _files(paths: Sequence[str], *, shown: int = 2) -> str | None:
    if not paths:
        return None
    if len(paths) == 1:
        return paths[0]
    listed = ", ".join(paths[:shown]) + (f", +{len(paths) - shown}" if len(paths) > shown else "")
    return f"{len(paths)} files ({listed})"


def _patch(arguments: Mapping[str, Any]) -> str | None:
    patch = _text(arguments, "patch")
    return _files(patch_paths(patch)) if patch else None


def _many(arguments: Mapping[str, Any]) -> str | None:
    paths = arguments.get("paths")
    if not isinstance(paths, list | tuple):
        return None
    return _files([str(p) for p in paths])


def _screenshot(arguments: Mapping[str, Any]) -> str | None:
    return _text(arguments, "url")


_FORMS: Mapping[str, Callable[[Mapping[str, Any]], str | None]] = MappingProxyType(
    {
        "shell": _shell,
        "grep": _grep,
        "glob": _glob,
        "apply_patch": _patch,
        "read_many_files": _many,
        "take_screenshot": _screenshot,
    }
)
