"""``write_file`` (``list_dir`` lives in ``taor.tools.builtin.list_dir``, re-exported here).

``write_file`` goes through ``Environment.write`` (atomic, parents created), so the path policy
applies: a path that leaves the workspace is an ``is_error`` result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, model_output
from taor.tools.builtin.list_dir import DEFAULT_DEPTH, MAX_DEPTH, MAX_ENTRIES, ListDirTool

__all__ = [
    "DEFAULT_DEPTH",
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "ListDirTool",
    "WriteFileTool",
    "count_lines",
]


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
