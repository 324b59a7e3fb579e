"""The ``glob`` tool: files matching a glob, newest first, ``.gitignore`` respected, read-only."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from taor._records import frozen
from taor.env.base import EnvError
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin.search_output import capped, cut_output
from taor.tools.effects import Effects, text_argument
from taor.tools.truncation import Limits

DEFAULT_GLOB_LIMIT = 100
GLOB_LIMITS = Limits(chars=20_000, lines=500, mode="tail")
_GLOB_CHARS = re.compile(r"[*?\[{]")

GLOB_PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": 'Glob such as "**/*.py" or "src/*.ts".'},
        "path": {"type": "string", "description": "Directory to search in (default: .)."},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


@frozen
class GlobTool:
    """Files matching a glob, newest first (by modification time), at most ``max_results``."""

    name: str = "glob"
    description: str = (
        "Find files by glob pattern (** matches any directories), newest first. "
        "Respects .gitignore."
    )
    parameters: Mapping[str, Any] = field(default_factory=lambda: GLOB_PARAMETERS)
    read_only: bool = True
    max_results: int = DEFAULT_GLOB_LIMIT
    limits: Limits | None = None

    @property
    def output_limits(self) -> Limits:
        return GLOB_LIMITS

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        searched = _searched(arguments)
        pattern, path = text_argument(arguments, "pattern"), text_argument(arguments, "path")
        summary = None if pattern is None else f"{pattern} in {path}" if path else pattern
        return Effects(
            reads=searched,
            writes_elsewhere=False,
            subject_style="path",
            subjects=searched,
            summary=summary,
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        if context.environment is None:
            return ToolOutput.error("glob needs an execution environment; none was configured.")
        pattern, path = arguments["pattern"], arguments.get("path") or "."
        try:
            found: list[str] = await context.environment.glob(pattern, path)
        except EnvError as exc:
            return ToolOutput.error(str(exc))
        if not found:
            hint = ' Use "**/" to match in subdirectories.' if "**" not in pattern else ""
            text = f"No files match {pattern!r} in {path}.{hint}"
        else:
            hint = "Use a more specific pattern or path."
            text = capped(found, len(found), self.max_results, "files", hint)
        metadata: dict[str, Any] = {"files": len(found)}
        return cut_output(text, self.limits or GLOB_LIMITS, metadata)


def _searched(arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """The directory searched: the ``path`` joined with the literal directories that start the
    ``pattern`` (``src/**/*.py`` searches ``src``)."""
    base = str(arguments.get("path") or ".")
    literal: list[str] = []
    for segment in str(arguments.get("pattern", "")).split("/"):
        if _GLOB_CHARS.search(segment):
            break
        literal.append(segment)
    prefix = "/".join(literal)
    if prefix.startswith("/"):
        return (prefix,)
    return (posixpath.join(base, prefix) if prefix else base,)
