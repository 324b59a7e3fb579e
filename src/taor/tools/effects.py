"""What one tool call does, as its tool declares it: ``Effects``.

A tool may declare, beside its name, schema and ``read_only`` flag:

- ``effects(arguments) -> Effects``: for one call (given the arguments by the executor's own
  names), the paths it reads and writes, whether it may change files it does not name (a
  command does), the command it runs, its permission subjects and their style, whether it is a
  plain file edit (what the ``accept_edits`` mode allows), its one-line summary and a preview
  of the files it would leave;
- ``output_limits``: how much of its output the model sees (``taor.tools.truncation.Limits``).

Everything is optional, with safe defaults: a tool that declares nothing may change anything
(``writes_elsewhere``), is no file edit, has its JSON arguments as its permission subject and
its summary, and gets ``FALLBACK_LIMITS``. With ``read_only`` False (what ``@tool`` gives by
default), it is asked about.

The session reads these through ``ToolRegistry.prepare`` (``PreparedCall``), never by a tool's
name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from taor._records import frozen
from taor.tools.truncation import Limits

SubjectStyle = Literal["command", "path", "text"]
Texts = dict[str, "str | None"]
"""Files' texts by path (None: the file does not exist)."""
Preview = Callable[[Texts], "Texts | None"]
"""Given the texts of ``Effects.writes`` before the call: the texts it would leave (None when
the call would fail)."""

MAX_TEXT_BYTES = 256 * 1024
"""Files over this size are left out of diffs and previews."""

_PATCH_HEADER = re.compile(r"^\s*\*\*\* (?:Add File|Delete File|Update File|Move to):(.*)$", re.M)


@frozen
class Effects:
    """One call's declared effects (see the module docstring); the defaults are the safe ones."""

    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()  # files the call may change, each named
    writes_elsewhere: bool = True  # it may change files it does not name (commands, unknown)
    runs_commands: bool = False
    command: str = ""  # the command line it runs, when it runs one
    subject_style: SubjectStyle = "text"
    subjects: tuple[str, ...] | None = None  # None: the canonical JSON of the arguments
    file_edit: bool = False  # it only edits the files it names (accept_edits allows it)
    summary: str | None = None  # what follows "name: " (None: the compact JSON)
    preview: Preview | None = None


UNDECLARED = Effects()


@runtime_checkable
class DeclaresEffects(Protocol):
    """A tool that declares its effects per call."""

    def effects(self, arguments: Mapping[str, Any]) -> Effects: ...


@runtime_checkable
class DeclaresLimits(Protocol):
    """A tool that declares how much of its output the model sees."""

    @property
    def output_limits(self) -> Limits: ...


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, unicode kept: one spelling per value."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr
    )


def text_argument(arguments: Mapping[str, Any], key: str) -> str | None:
    """A string argument that is not blank, else None."""
    value = arguments.get(key)
    return value if isinstance(value, str) and value.strip() else None


def path_summary(arguments: Mapping[str, Any]) -> str | None:
    """The ``path`` of a call (or ``file_path``: a recorded call by a profile's own names)."""
    return text_argument(arguments, "path") or text_argument(arguments, "file_path")


def string_field(
    arguments: Mapping[str, Any], key: str, default: str | None = None
) -> tuple[str, ...]:
    """One argument as a subject: itself (as a string), ``default`` when missing, none for None."""
    value = arguments.get(key, default)
    return () if value is None else (value if isinstance(value, str) else str(value),)


def path_argument(arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """The one path a call names, as a tuple (empty when missing or not a string); a recorded
    call by a profile's own names (``file_path``) counts too."""
    value = arguments.get("path") or arguments.get("file_path")
    return (value,) if isinstance(value, str) and value else ()


def files_summary(paths: Sequence[str], *, shown: int = 2) -> str | None:
    """``a.py``, or ``3 files (a.py, b.py, +1)``; None for no path."""
    if not paths:
        return None
    if len(paths) == 1:
        return paths[0]
    listed = ", ".join(paths[:shown]) + (f", +{len(paths) - shown}" if len(paths) > shown else "")
    return f"{len(paths)} files ({listed})"


def patch_paths(patch: str) -> list[str]:
    """Every path a v4a patch touches, in order, once each (headers scanned if it is invalid)."""
    from taor.tools.patch.model import PatchParseError  # only a run that patches needs these
    from taor.tools.patch.parse import parse_patch

    try:
        sections = parse_patch(patch)
        found = [p for s in sections for p in (s.path, getattr(s, "move_to", None)) if p]
    except PatchParseError:
        return patch_headers(patch)
    return list(dict.fromkeys(found))


def patch_headers(patch: str) -> list[str]:
    """The paths named by a patch's file headers, in order, once each (for a patch that does
    not parse)."""
    found = [m.strip() for m in _PATCH_HEADER.findall(patch) if m.strip()]
    return list(dict.fromkeys(found))
