"""A tool call's *subjects*: the strings a permission rule's argument pattern is matched against.

Each tool has a ``SubjectSpec``: a ``style`` that says how patterns match (``command``: shell
commands, split into simple commands; ``path``: gitignore-like globs; ``text``: ``*`` wildcards)
and an ``extract`` function from the arguments to the subjects. The defaults:

- ``shell``: the ``command``
- ``read_file``, ``write_file``, ``edit_file``, ``list_dir``: the ``path``
- ``read_many_files``: each of ``paths``; ``apply_patch``: every path the patch adds, deletes,
  updates or moves to
- ``grep``: the ``path`` searched (default ``.``); ``glob``: the ``path`` joined with the
  literal directories that start the ``pattern`` (``src/**/*.py`` searches ``src``)
- ``take_screenshot``: the ``url``; any other tool: the canonical JSON of its arguments

Paths are normalized: relative to the workspace (when it is known and the path is absolute
inside it), without ``./``, with ``..`` resolved. A path that climbs out keeps its leading
``..`` (``src/../../etc`` is ``../etc``), so a relative pattern such as ``src/**`` never matches
it. This is lexical: symlinks are the environment's path policy's business.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

SubjectStyle = Literal["command", "path", "text"]
Extractor = Callable[[Mapping[str, Any]], list[str]]

_PATCH_HEADER = re.compile(r"^\s*\*\*\* (?:Add File|Delete File|Update File|Move to):(.*)$", re.M)
_GLOB_CHARS = re.compile(r"[*?\[{]")


@dataclass(frozen=True, kw_only=True, slots=True)
class SubjectSpec:
    style: SubjectStyle
    extract: Extractor


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, unicode kept: one spelling per value."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr
    )


def field(key: str, default: str | None = None) -> Extractor:
    """An extractor for one string argument (``default`` when it is missing)."""

    def extract(arguments: Mapping[str, Any]) -> list[str]:
        value = arguments.get(key, default)
        return [] if value is None else [value if isinstance(value, str) else str(value)]

    return extract


def _many_paths(arguments: Mapping[str, Any]) -> list[str]:
    paths = arguments.get("paths")
    return [str(p) for p in paths] if isinstance(paths, list | tuple) else []


def patch_paths(patch: str) -> list[str]:
    """Every path a v4a patch touches, in order, once each (headers scanned if it is invalid)."""
    from taor.tools.patch_model import PatchParseError  # only a run that patches needs these
    from taor.tools.patch_parse import parse_patch

    try:
        sections = parse_patch(patch)
        found = [p for s in sections for p in (s.path, getattr(s, "move_to", None)) if p]
    except PatchParseError:
        found = [m.strip() for m in _PATCH_HEADER.findall(patch) if m.strip()]
    return list(dict.fromkeys(found))


def _patch_subjects(arguments: Mapping[str, Any]) -> list[str]:
    return patch_paths(str(arguments.get("patch", "")))


def _glob_subjects(arguments: Mapping[str, Any]) -> list[str]:
    base = str(arguments.get("path") or ".")
    literal: list[str] = []
    for segment in str(arguments.get("pattern", "")).split("/"):
        if _GLOB_CHARS.search(segment):
            break
        literal.append(segment)
    prefix = "/".join(literal)
    if prefix.startswith("/"):
        return [prefix]
    return [posixpath.join(base, prefix) if prefix else base]


_PATH_FIELD = SubjectSpec(style="path", extract=field("path"))
DEFAULT_SUBJECTS: Mapping[str, SubjectSpec] = MappingProxyType(
    {
        "shell": SubjectSpec(style="command", extract=field("command")),
        "read_file": _PATH_FIELD,
        "write_file": _PATH_FIELD,
        "edit_file": _PATH_FIELD,
        "list_dir": SubjectSpec(style="path", extract=field("path", ".")),
        "read_many_files": SubjectSpec(style="path", extract=_many_paths),
        "apply_patch": SubjectSpec(style="path", extract=_patch_subjects),
        "grep": SubjectSpec(style="path", extract=field("path", ".")),
        "glob": SubjectSpec(style="path", extract=_glob_subjects),
        "take_screenshot": SubjectSpec(style="text", extract=field("url")),
    }
)
_JSON = SubjectSpec(style="text", extract=lambda arguments: [canonical_json(dict(arguments))])


def spec_of(name: str, subjects: Mapping[str, SubjectSpec] = DEFAULT_SUBJECTS) -> SubjectSpec:
    return subjects.get(name, _JSON)


def subject_of(
    name: str,
    arguments: Mapping[str, Any],
    *,
    subjects: Mapping[str, SubjectSpec] = DEFAULT_SUBJECTS,
    workspace: str | None = None,
) -> list[str]:
    """The subjects of a call (paths normalized); ``subjects`` adds or replaces tools' specs."""
    spec = spec_of(name, subjects)
    found = spec.extract(arguments)
    if spec.style == "path":
        return [normalize_path(p, workspace) for p in found]
    return found


def normalize_path(path: str, workspace: str | None = None) -> str:
    """``./src//a.py`` -> ``src/a.py``; absolute inside ``workspace`` -> relative; ``""`` -> ``.``."""
    normal = posixpath.normpath(path or ".")
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    if workspace and posixpath.isabs(normal):
        root = posixpath.normpath(workspace)
        if normal == root:
            return "."
        if normal.startswith(root.rstrip("/") + "/"):
            return normal[len(root.rstrip("/")) + 1 :]
    return normal


def is_outside(path: str) -> bool:
    """True for a normalized path that is absolute or climbs out of the workspace."""
    return posixpath.isabs(path) or path == ".." or path.startswith("../")
