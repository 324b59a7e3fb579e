"""``write_file`` (``list_dir`` lives in ``taor.tools.builtin.list_dir``, re-exported here).

``write_file`` goes through ``Environment.write`` (atomic, parents created), so the path policy
applies: a path that leaves the workspace is an ``is_error`` result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.env.base import EnvError, Environment
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, model_output
from taor.tools.builtin.list_dir import DEFAULT_DEPTH, MAX_DEPTH, MAX_ENTRIES, ListDirTool
from taor.tools.edit.hints import carries_line_numbers
from taor.tools.effects import (
    MAX_TEXT_BYTES,
    Effects,
    Texts,
    path_argument,
    path_summary,
    string_field,
)
from taor.tools.truncation import Limits

__all__ = [
    "DEFAULT_DEPTH",
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "ListDirTool",
    "WriteFileTool",
    "count_lines",
    "dropped_most",
]


_SHOWN_CHARS = 4000  # of the current file, in a refusal


def dropped_most(path: str, old: str, new: str) -> str | None:
    """Why writing ``new`` over ``old`` looks like a mistake: it keeps under half of the old
    file's non-blank lines (of two or more). None when it does not. The refusal shows a small
    file's current content, so a model that meant to add to it can write both together."""
    before = [line.strip() for line in old.splitlines() if line.strip()]
    if len(before) < 2:
        return None
    after = {line.strip() for line in new.splitlines()}
    kept = sum(line in after for line in before)
    if kept * 2 >= len(before):
        return None
    lost = [line for line in before if line not in after][:3]
    message = (
        f"Not written: {path} has {len(before)} lines and this content keeps only {kept} of "
        f"them, so it would delete {'; '.join(lost)} ... To add to the file, call write_file "
        "again with its current content and your new lines together. To change part of it, "
        "use edit_file. To replace the whole file anyway, call write_file again with the same "
        "content."
    )
    if len(old) <= _SHOWN_CHARS:
        message += f"\nThe current content of {path}:\n{old}"
    return message


def mistaken(path: str, old: str | None, new: str) -> str | None:
    """Why writing ``new`` over ``old`` (None: no such file yet) looks like a mistake, if it
    does: line numbers copied from a tool's output, or most of the file dropped."""
    if carries_line_numbers(new):
        return (
            f"Not written: every line of this content starts with a line number, copied from a "
            f"tool's output. Leave the numbers out and call write_file again. (If {path} really "
            "should look like this, call write_file again with the same content.)"
        )
    return dropped_most(path, old, new) if old is not None else None


def count_lines(text: str) -> int:
    """Lines of ``text``; a last line without a newline counts."""
    return text.count("\n") + int(bool(text) and not text.endswith("\n"))


WRITE_LIMITS = Limits(chars=1_000, mode="tail")


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
    # Refuse, once, a rewrite that would drop most of an existing file's lines (small models
    # rewrite a whole file to change one function and lose the others); the same call again
    # goes through.
    guard_rewrites: bool = False
    _refused: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def output_limits(self) -> Limits:
        return WRITE_LIMITS

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        paths = path_argument(arguments)
        content = arguments.get("content")

        def preview(before: Texts) -> Texts | None:
            if not isinstance(content, str) or len(content.encode()) > MAX_TEXT_BYTES:
                return None
            return {str(arguments["path"]): content}

        return Effects(
            writes=paths,
            writes_elsewhere=False,
            subject_style="path",
            subjects=string_field(arguments, "path"),
            file_edit=True,
            summary=path_summary(arguments),
            preview=preview,
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._write(arguments, context))

    async def _write(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env = environment_of(context)
        path, content = str(arguments["path"]), str(arguments["content"])
        existed = await env.exists(path)
        if self.guard_rewrites and self._refused.pop(path, None) != content:
            old = await env.read_text(path) if existed else None
            refusal = mistaken(path, old, content)
            if refusal:
                self._refused[path] = content
                return ToolOutput.error(refusal)
        lines = count_lines(content)
        plural = "" if lines == 1 else "s"
        meta = {"path": path, "created": not existed, "lines": lines}
        if existed and await _holds(env, path, content):
            # Said plainly: a model that rewrites a file with what it read believes it changed it.
            unchanged = f"{path} already holds exactly this content ({lines} line{plural}): nothing changed."
            return model_output(WRITE_LIMITS, unchanged, {**meta, "unchanged": True})
        await env.write(path, content)
        verb = "Overwrote" if existed else "Created"
        return model_output(WRITE_LIMITS, f"{verb} {path} ({lines} line{plural}).", meta)


async def _holds(env: Environment, path: str, content: str) -> bool:
    """Whether the file at ``path`` is already ``content``, byte for byte (a size check first,
    so a large file that differs is not read)."""
    try:
        data = content.encode()
        stat = await env.stat(path)
        return stat.is_file and stat.size == len(data) and await env.read_bytes(path) == data
    except (OSError, EnvError):
        return False
