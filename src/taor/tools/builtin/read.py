"""``read_file`` and ``read_many_files``.

All file access goes through ``context.environment`` (a ``taor.env.Environment``), so the path
policy applies: a path that leaves the workspace is an ``is_error`` result, like any other
``EnvError``. The model gets text cut by ``taor.tools.truncation``; when anything was cut, the
untruncated text goes to the host in ``metadata["full_output"]`` (DESIGN invariant 5).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.env.base import EnvError, Environment, PathNotFoundError
from taor.llm.types import ImagePart, TextPart
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, missing_file_message, model_output
from taor.tools.truncation import limits_for

DEFAULT_LINE_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_IMAGE_BYTES = 10 * 1024 * 1024
SNIFF_BYTES = 8192
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(head: bytes) -> str | None:
    """The media type of a png, jpeg, gif or webp by its magic bytes, else None."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((media for magic, media in _IMAGE_MAGIC if head.startswith(magic)), None)


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where the environment splits (``\\n``, ``\\r\\n``, ``\\r``)."""
    return _LINE.findall(text)


def numbered(text: str, first: int) -> str:
    """Lines of ``text`` as ``     1\\tline``, numbered from ``first``, overlong lines cut."""
    out = []
    for number, raw in enumerate(split_lines(text), first):
        line = raw.rstrip("\r\n")
        if len(line) > MAX_LINE_CHARS:
            extra = len(line) - MAX_LINE_CHARS
            line = f"{line[:MAX_LINE_CHARS]}... [line cut: {extra} more characters]"
        out.append(f"{number:>6}\t{line}")
    return "\n".join(out)


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
        if b"\x00" in head:
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
            return model_output("read_file", f"({path} is empty.)")
        total = len(split_lines(await env.read_text(path)))
        return ToolOutput.error(
            f"offset {offset} is past the end of {path!r}, which has {total} lines."
        )
    body = numbered(shown, offset)
    last = offset + len(lines[:limit]) - 1
    if more:
        body += f"\n[Showing lines {offset}-{last}. More follow: read on with offset={last + 1}.]"
    return model_output("read_file", body, {"path": path, "first_line": offset, "last_line": last})


_MAX_MANY_FILES = 50
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, kw_only=True)
class ReadManyFilesTool:
    """Reads several text files (paths or globs), each under a ``==> path <==`` header."""

    name: str = "read_many_files"
    description: str = (
        "Read several text files at once. Give paths or glob patterns (e.g. `src/**/*.py`); each "
        "file comes back under a `==> path <==` header with line numbers. The total is bounded: "
        f"at most {_MAX_MANY_FILES} files, and files past the size budget are named, not shown. "
        "Use read_file for images, long files or specific line ranges."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "paths": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "description": "File paths or glob patterns, relative to the workspace root.",
                },
            },
            "required": ["paths"],
            "additionalProperties": False,
        }
    )
    read_only: bool = True

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._read(arguments, context))

    async def _read(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env = environment_of(context)
        paths, notes = await _expand(env, [str(p) for p in arguments["paths"]])
        sections, unread, failures = await _sections(env, paths, limits_for(self.name).chars)
        if unread:
            notes.append(
                f"Not read (over the size budget; ask again for these): {', '.join(unread)}"
            )
        text = "\n\n".join([*sections, *notes])
        output = model_output(self.name, text, {"paths": paths})
        if paths and failures < len(paths):
            return output
        return ToolOutput.error(text or "No files matched.", metadata=output.metadata)


async def _sections(
    env: Environment, paths: list[str], budget: int
) -> tuple[list[str], list[str], int]:
    """The files' sections until ``budget`` characters, the paths left unread, the failures."""
    sections: list[str] = []
    unread: list[str] = []
    size = failures = 0
    for path in paths:
        if size >= budget:
            unread.append(path)
            continue
        section, ok = await _file_section(env, path)
        sections.append(section)
        size += len(section)
        failures += not ok
    return sections, unread, failures


async def _expand(env: Environment, patterns: list[str]) -> tuple[list[str], list[str]]:
    """The files named or matched, in order without repeats, and notes on what matched nothing."""
    paths: list[str] = []
    notes: list[str] = []
    for pattern in patterns:
        if not _GLOB_CHARS & set(pattern):
            paths.append(pattern)
            continue
        try:
            matched = await env.glob(pattern)
        except EnvError as exc:
            matched, notes = [], [*notes, f"{pattern}: {exc}"]
        if not matched:
            notes.append(f"No files match {pattern!r}.")
        paths += matched
    unique = list(dict.fromkeys(paths))
    if len(unique) > _MAX_MANY_FILES:
        notes.append(f"Only the first {_MAX_MANY_FILES} of {len(unique)} files were read.")
    return unique[:_MAX_MANY_FILES], notes


async def _file_section(env: Environment, path: str) -> tuple[str, bool]:
    """One file's header and numbered lines (or why it was skipped), and whether it was read."""
    header = f"==> {path} <=="
    try:
        if (await env.stat(path)).is_dir:
            return f"{header}\n[a directory; use list_dir]", False
        head = await env.read_bytes(path, limit=SNIFF_BYTES)
        if image_type(head) or b"\x00" in head:
            return f"{header}\n[binary or image file skipped; use read_file for images]", False
        text = await env.read_text(path, limit=DEFAULT_LINE_LIMIT + 1)
    except PathNotFoundError:
        return f"{header}\n[{await missing_file_message(env, path)}]", False
    except (EnvError, OSError) as exc:
        return f"{header}\n[{exc}]", False
    lines = split_lines(text)
    body = numbered("".join(lines[:DEFAULT_LINE_LIMIT]), 1) or "(empty file)"
    if len(lines) > DEFAULT_LINE_LIMIT:
        body += f"\n[Only the first {DEFAULT_LINE_LIMIT} lines; use read_file with offset.]"
    return f"{header}\n{body}", True
