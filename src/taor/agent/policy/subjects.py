"""A tool call's *subjects*: the strings a permission rule's argument pattern is matched against.

A tool declares them (``taor.tools.effects.Effects``: ``subjects`` and ``subject_style``); the
style says how patterns match (``command``: shell commands, split into simple commands;
``path``: gitignore-like globs; ``text``: ``*`` wildcards). A tool that declares none has the
canonical JSON of its arguments as its subject. A ``SubjectSpec`` given to the policy by name
(an ``extract`` function from the arguments) adds or replaces a tool's declaration.

Paths are normalized: relative to the workspace (when it is known and the path is absolute
inside it), without ``./``, with ``..`` resolved. A path that climbs out keeps its leading
``..`` (``src/../../etc`` is ``../etc``), so a relative pattern such as ``src/**`` never matches
it. This is lexical: symlinks are the environment's path policy's business.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from taor._records import frozen
from taor.tools.effects import Effects, SubjectStyle, canonical_json

__all__ = [
    "Extractor",
    "SubjectSpec",
    "SubjectStyle",
    "canonical_json",
    "field",
    "is_outside",
    "normalize_path",
    "spec_of",
    "subject_of",
    "subjects_of",
]

Extractor = Callable[[Mapping[str, Any]], list[str]]
NO_SPECS: Mapping[str, SubjectSpec] = MappingProxyType({})


@frozen
class SubjectSpec:
    style: SubjectStyle
    extract: Extractor


def field(key: str, default: str | None = None) -> Extractor:
    """An extractor for one string argument (``default`` when it is missing)."""

    def extract(arguments: Mapping[str, Any]) -> list[str]:
        value = arguments.get(key, default)
        return [] if value is None else [value if isinstance(value, str) else str(value)]

    return extract


def _declared(effects: Effects) -> SubjectSpec:
    def extract(arguments: Mapping[str, Any]) -> list[str]:
        if effects.subjects is None:
            return [canonical_json(dict(arguments))]
        return list(effects.subjects)

    return SubjectSpec(style=effects.subject_style, extract=extract)


def spec_of(
    name: str,
    arguments: Mapping[str, Any],
    effects: Effects | None = None,
    subjects: Mapping[str, SubjectSpec] = NO_SPECS,
) -> SubjectSpec:
    """The spec given for ``name``, else the one ``effects`` declare, else the one the built-in
    tool of that name declares (for a call with no declaration at hand)."""
    if name in subjects:
        return subjects[name]
    if effects is None:
        from taor.tools.builtin import builtin_effects  # only a call without its declaration

        effects = builtin_effects(name, arguments)
    return _declared(effects)


def subject_of(
    name: str,
    arguments: Mapping[str, Any],
    *,
    effects: Effects | None = None,
    subjects: Mapping[str, SubjectSpec] = NO_SPECS,
    workspace: str | None = None,
) -> list[str]:
    """The subjects of a call (paths normalized); ``subjects`` adds or replaces tools' specs."""
    return subjects_of(spec_of(name, arguments, effects, subjects), arguments, workspace)


def subjects_of(
    spec: SubjectSpec, arguments: Mapping[str, Any], workspace: str | None = None
) -> list[str]:
    """What ``spec`` extracts from ``arguments``, paths normalized."""
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
