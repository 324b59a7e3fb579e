"""``read_file`` (``read_many_files`` lives in ``read_many``, re-exported here).

All file access goes through ``context.environment`` (a ``taor.env.Environment``), so the path
policy applies: a path that leaves the workspace is an ``is_error`` result, like any other
``EnvError``. The model gets text cut by ``taor.tools.truncation``; when anything was cut, the
untruncated text goes to the host in ``metadata["full_output"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.env.base import Environment, PathNotFoundError
from taor.llm.types import ImagePart, TextPart
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, missing_file_message, model_output
from taor.tools.builtin.file_kinds import (
    DEFAULT_LINE_LIMIT,
    MAX_LINE_CHARS,
    SNIFF_BYTES,
    image_type,
    is_binary,
    numbered,
    split_lines,
)
from taor.tools.builtin.read_many import ReadManyFilesTool
from taor.tools.effects import Effects, path_argument, path_summary, string_field
from taor.tools.truncation import Limits

__all__ = [
    "DEFAULT_LINE_LIMIT",
    "MAX_IMAGE_BYTES",
    "MAX_LINE_CHARS",
    "SNIFF_BYTES",
    "ReadFileTool",
    "ReadManyFilesTool",
    "image_type",
    "numbered",
    "split_lines",
]

MAX_IMAGE_BYTES = 10 * 1024 * 1024
READ_LIMITS = Limits(chars=50_000)
_PATH = {"type": "string", "description": "File path, relative to the workspace root."}


@dataclass(frozen=True, kw_only=True)
class ReadFileTool:
    """Reads a text file with line numbers, or an image as an image part."""

    name: str = "read_file"
    description: str = (
        "Read a file from the workspace. Text comes back with line numbers (`     1\\tline`); "
        f"use offset (1-based first line) and limit (default {DEFAULT_LINE_LIMIT} lines) to page "
        f"through long files. Lines over {MAX_LINE_CHARS} characters are cut. Images (png, jpeg, "
        "gif, webp) come back as images; other binary files are refused."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "path": _PATH,
                "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based."},
                "limit": {"type": "integer", "minimum": 1, "description": "Lines to read."},
            },
            "required": ["path"],
            "additionalProperties": False,
        }
    )
    read_only: bool = True

    @property
    def output_limits(self) -> Limits:
        return READ_LIMITS

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        paths = path_argument(arguments)
        return Effects(
            reads=paths,
            writes_elsewhere=False,
            subject_style="path",
            subjects=string_field(arguments, "path"),
            summary=path_summary(arguments),
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._read(arguments, context))

    async def _read(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env, path = environment_of(context), str(arguments["path"])
        try:
            info = await env.stat(path)
        except PathNotFoundError:
            return ToolOutput.error(await missing_file_message(env, path))
        if info.is_dir:
            return ToolOutput.error(f"{path!r} is a directory; use list_dir to see its contents.")
        head = await env.read_bytes(path, limit=SNIFF_BYTES)
        media_type = image_type(head)
        if media_type is not None:
            return await _read_image(env, path, media_type, info.size)
        if is_binary(head):
            return ToolOutput.error(
                f"{path!r} is a binary file ({info.size} bytes), not text; it cannot be shown. "
                "Inspect it with a shell command (e.g. `file` or `xxd | head`) if you need to."
            )
        offset = int(arguments.get("offset", 1))
        limit = int(arguments.get("limit", DEFAULT_LINE_LIMIT))
        return await _read_lines(env, path, offset, limit)


async def _read_image(env: Environment, path: str, media_type: str, size: int) -> ToolOutput:
    if size > MAX_IMAGE_BYTES:
        return ToolOutput.error(
            f"{path!r} is an image of {size} bytes, over the {MAX_IMAGE_BYTES} byte limit; "
            "make a smaller copy (e.g. with ImageMagick's `convert -resize`) and read that."
        )
    data = await env.read_bytes(path)
    note = TextPart(text=f"Image {path} ({media_type}, {len(data)} bytes).")
    meta = {"path": path, "media_type": media_type, "size": len(data)}
    return ToolOutput.of([note, ImagePart(data=data, media_type=media_type)], metadata=meta)


async def _read_lines(env: Environment, path: str, offset: int, limit: int) -> ToolOutput:
    text = await env.read_text(path, offset=offset - 1, limit=limit + 1)
    lines = split_lines(text)
    more = len(lines) > limit
    shown = "".join(lines[:limit])
    if not shown:
        if offset == 1:
            return model_output(READ_LIMITS, f"({path} is empty.)")
        total = len(split_lines(await env.read_text(path)))
        return ToolOutput.error(
            f"offset {offset} is past the end of {path!r}, which has {total} lines."
        )
    body = numbered(shown, offset)
    last = offset + len(lines[:limit]) - 1
    if more:
        body += f"\n[Showing lines {offset}-{last}. More follow: read on with offset={last + 1}.]"
    return model_output(READ_LIMITS, body, {"path": path, "first_line": offset, "last_line": last})
