"""A new built-in tool is this one file (and its registration): ``append_line`` declares the
file it writes, and with no change to ``taor.agent`` the session checkpoints that file, shows
the diff in a permission question and on ``tool_call_end``, allows it by path rules and under
``accept_edits``, and summarizes the call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, model_output
from taor.tools.effects import Effects, Texts, path_argument, string_field
from taor.tools.truncation import Limits

LIMITS = Limits(chars=500, mode="tail")


@dataclass(frozen=True, kw_only=True)
class AppendLineTool:
    """Appends one line to a text file (created when missing)."""

    name: str = "append_line"
    description: str = "Append one line to a text file of the workspace."
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {"path": {"type": "string"}, "line": {"type": "string"}},
            "required": ["path", "line"],
            "additionalProperties": False,
        }
    )
    read_only: bool = False

    @property
    def output_limits(self) -> Limits:
        return LIMITS

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        path = str(arguments["path"])
        return Effects(
            writes=path_argument(arguments),
            writes_elsewhere=False,
            subject_style="path",
            subjects=string_field(arguments, "path"),
            file_edit=True,
            summary=f"{arguments['line']!r} to {path}",
            preview=lambda before: {path: _appended(before[path], str(arguments["line"]))},
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._append(arguments, context))

    async def _append(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env, path = environment_of(context), str(arguments["path"])
        old = await env.read_text(path) if await env.exists(path) else None
        await env.write(path, _appended(old, str(arguments["line"])))
        return model_output(LIMITS, f"Appended a line to {path}.")


def _appended(text: str | None, line: str) -> str:
    if not text:
        return line + "\n"
    return text + ("" if text.endswith("\n") else "\n") + line + "\n"


__all__ = ["AppendLineTool", "Texts"]
