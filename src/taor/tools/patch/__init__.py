"""apply_patch: check a whole v4a patch in memory, then hand back every change, or raise.

`apply_patch(text, read)` reads files through `read(path)` (the current text, or None when
the file does not exist) and applies the sections in order on an in-memory overlay, so a
later section sees what an earlier one did. It writes nothing: the caller writes
`PatchResult.changes` once `apply_patch` has returned, so a hunk that fails anywhere leaves
every file untouched (codex's apply_patch keeps what it wrote before the failing section;
taor applies all or nothing). Failures raise `PatchError` (a `PatchParseError` for bad
grammar, a `PatchApplyError` when the patch does not fit the files) with a message for the
model.

As in codex, `*** Add File` onto an existing file replaces it, and `*** Move to` onto an
existing file replaces that file. The summary is codex's: `Success. Updated the following
files:` then `A path` for each added file, `M path` for each updated one (a moved file is
`M` at its new path) and `D path` for each deleted one, in that order.

    PatchError(ValueError)
    ├── PatchParseError   the text breaks the grammar (names the patch line)
    └── PatchApplyError   a file to update or delete is missing, or a hunk's lines are not found
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, assert_never

from taor.tools.patch.apply import PatchApplyError, update_text
from taor.tools.patch.model import (
    AddFile,
    DeleteFile,
    Hunk,
    PatchError,
    PatchParseError,
    Section,
    UpdateFile,
)
from taor.tools.patch.parse import parse_patch

__all__ = [
    "AddFile",
    "DeleteFile",
    "FileChange",
    "Hunk",
    "PatchApplyError",
    "PatchError",
    "PatchParseError",
    "PatchResult",
    "ReadFile",
    "Section",
    "UpdateFile",
    "apply_patch",
    "parse_patch",
]

ReadFile = Callable[[str], "str | None"]
ChangeAction = Literal["add", "update", "delete"]
_LETTER: dict[ChangeAction, str] = {"add": "A", "update": "M", "delete": "D"}


@dataclass(frozen=True, kw_only=True)
class FileChange:
    """The final state of one path: its new text, or None when it is to be deleted."""

    path: str
    action: ChangeAction
    content: str | None
    moved_from: str | None = None


@dataclass(frozen=True, kw_only=True)
class PatchResult:
    """Every change of a patch that applies cleanly, in the order the patch first touched them."""

    changes: tuple[FileChange, ...]
    notes: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """What changed, in codex's format: `A` lines, then `M` lines (moves too), then `D`."""
        lines = list(_summary_lines(self.changes))
        head = "Success. Updated the following files:" if lines else "The patch changed nothing."
        notes = [f"Note: {note}" for note in self.notes]
        return "\n".join([head, *lines, *notes])


def apply_patch(patch: str | Sequence[Section], read: ReadFile) -> PatchResult:
    """Apply `patch` (its text, or its sections as `parse_patch` gives them) in memory; raise
    PatchError if any part does not apply."""
    workspace = _Workspace(read)
    sections = parse_patch(patch) if isinstance(patch, str) else patch
    for section in sections:
        match section.kind:
            case "add":
                _add(workspace, section)
            case "delete":
                _delete(workspace, section)
            case "update":
                _update(workspace, section)
            case _:
                assert_never(section.kind)
    return workspace.result()


class _Workspace:
    """The files as the patch leaves them so far, over what `read` returns."""

    def __init__(self, read: ReadFile) -> None:
        self._read = read
        self._original: dict[str, str | None] = {}
        self._current: dict[str, str | None] = {}
        self._moved_from: dict[str, str] = {}
        self._added: set[str] = set()  # paths an Add File section wrote last
        self.notes: list[str] = []

    def get(self, path: str) -> str | None:
        if path in self._current:
            return self._current[path]
        if path not in self._original:
            self._original[path] = self._read(path)
        return self._original[path]

    def set(self, path: str, content: str | None, *, added: bool = False) -> None:
        self.get(path)
        self._current[path] = content
        if added:
            self._added.add(path)
        elif content is None:
            self._added.discard(path)

    def move(self, source: str, destination: str, content: str) -> None:
        self.set(source, None)
        self.set(destination, content)
        self._added.discard(destination)
        self._moved_from[destination] = self._moved_from.pop(source, source)

    def result(self) -> PatchResult:
        changes = [
            change
            for path, content in self._current.items()
            if (change := self._change(path, content)) is not None
        ]
        return PatchResult(changes=tuple(changes), notes=tuple(self.notes))

    def _change(self, path: str, content: str | None) -> FileChange | None:
        original = self._original[path]
        if content == original:
            return None
        action: ChangeAction = (
            "delete"
            if content is None
            else "add"
            if original is None or path in self._added
            else "update"
        )
        moved_from = self._moved_from.get(path) if content is not None else None
        return FileChange(path=path, action=action, content=content, moved_from=moved_from)


def _add(workspace: _Workspace, section: AddFile) -> None:
    workspace.set(section.path, section.content, added=True)  # an existing file is replaced


def _delete(workspace: _Workspace, section: DeleteFile) -> None:
    if workspace.get(section.path) is None:
        raise PatchApplyError(
            f"Delete File {section.path} (patch line {section.line}): the file does not exist."
        )
    workspace.set(section.path, None)


def _update(workspace: _Workspace, section: UpdateFile) -> None:
    text = workspace.get(section.path)
    if text is None:
        raise PatchApplyError(
            f"Update File {section.path} (patch line {section.line}): the file does not exist. "
            f"Use '*** Add File: {section.path}' to create it."
        )
    updated = update_text(text, section.hunks, path=section.path)
    workspace.notes.extend(updated.notes)
    destination = section.move_to
    if destination is None or destination == section.path:
        workspace.set(section.path, updated.text)
    else:  # an existing destination is replaced
        workspace.move(section.path, destination, updated.text)


def _summary_lines(changes: tuple[FileChange, ...]) -> Iterator[str]:
    """`A`, then `M`, then `D` lines; a move is `M` at its destination and its source is not
    listed (as codex reports it)."""
    moved_away = {change.moved_from for change in changes if change.moved_from}
    letters = [
        "M" if change.moved_from is not None else _LETTER[change.action] for change in changes
    ]
    for letter in "AMD":
        for change, its_letter in zip(changes, letters, strict=True):
            if its_letter == letter and not (letter == "D" and change.path in moved_away):
                yield f"{letter} {change.path}"
