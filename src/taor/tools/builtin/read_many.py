"""``read_many_files``: several text files (paths or globs), each under a ``==> path <==`` header.

Files go through ``context.environment`` like ``read_file``; a file that cannot be read (missing,
binary, outside the workspace) gets a note under its header instead of failing the call. The
result is an error only when no file could be read. The total is bounded by the tool's character
limit: files past it are named, not shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.env.base import EnvError, Environment, PathNotFoundError
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, missing_file_message, model_output
from taor.tools.builtin.file_kinds import (
    DEFAULT_LINE_LIMIT,
    SNIFF_BYTES,
    image_type,
    is_binary,
    numbered,
    split_lines,
)
from taor.tools.effects import Effects, files_summary
from taor.tools.truncation import FALLBACK_LIMITS

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

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        given = arguments.get("paths")
        paths = tuple(str(p) for p in given) if isinstance(given, list | tuple) else ()
        return Effects(
            reads=paths,
            writes_elsewhere=False,
            subject_style="path",
            subjects=paths,
            summary=files_summary(paths) if isinstance(given, list | tuple) else None,
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._read(arguments, context))

    async def _read(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env = environment_of(context)
        paths, notes = await _expand(env, [str(p) for p in arguments["paths"]])
        sections, unread, failures = await _sections(env, paths, FALLBACK_LIMITS.chars)
        if unread:
            notes.append(
                f"Not read (over the size budget; ask again for these): {', '.join(unread)}"
            )
        text = "\n\n".join([*sections, *notes])
        output = model_output(FALLBACK_LIMITS, text, {"paths": paths})
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
        if image_type(head) or is_binary(head):
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
