"""The parsed form of an apply_patch (v4a) text, and the errors apply_patch raises.

PatchError(ValueError)      a failure the model can act on (the tool returns it as data)
├── PatchParseError         the text breaks the grammar (names the patch line)
└── PatchApplyError         (patch.apply) a file or a hunk's lines do not fit
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from taor.errors import ToolError

Op = Literal[" ", "-", "+"]


class PatchError(ToolError, ValueError):
    """An apply_patch failure the model can act on; the tool layer returns it as an error."""


class PatchParseError(PatchError):
    """The patch text does not follow the grammar."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        where = f" at line {line}" if line is not None else ""
        super().__init__(f"Invalid patch{where}: {message}")
        self.line = line


@dataclass(frozen=True, kw_only=True)
class Hunk:
    """One `@@` block: hints to seek first, then body lines (op, text)."""

    hints: tuple[str, ...]
    body: tuple[tuple[Op, str], ...]
    end_of_file: bool
    line: int

    @property
    def old_lines(self) -> tuple[str, ...]:
        return tuple(text for op, text in self.body if op != "+")

    @property
    def new_lines(self) -> tuple[str, ...]:
        return tuple(text for op, text in self.body if op != "-")


@dataclass(frozen=True, kw_only=True)
class AddFile:
    kind: Literal["add"] = "add"
    path: str
    content: str
    line: int


@dataclass(frozen=True, kw_only=True)
class DeleteFile:
    kind: Literal["delete"] = "delete"
    path: str
    line: int


@dataclass(frozen=True, kw_only=True)
class UpdateFile:
    kind: Literal["update"] = "update"
    path: str
    move_to: str | None
    hunks: tuple[Hunk, ...]
    line: int


Section = AddFile | DeleteFile | UpdateFile
