"""``PreparedCall``: one tool call looked up, validated and described once, by its tool.

``ToolRegistry.prepare`` makes it: the tool, the call, the arguments the model sent (parsed and
validated) and the same arguments as the executor names them (a ``ProfiledTool`` translates
them, once), the effects the tool declares for them (``taor.tools.effects``), the one-line
summary and the output limits. Everything the session does around a call (permission,
checkpoints, the diff for the host, the preview in a permission question, the files a summary
keeps, the event's summary line) reads it, never the tool's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from taor.llm.types import ToolCallPart
from taor.tools.base import Tool
from taor.tools.effects import UNDECLARED, DeclaresEffects, Effects, canonical_json
from taor.tools.profiled import Translating
from taor.tools.truncation import FALLBACK_LIMITS, Limits

SUMMARY_LIMIT = 80
ELLIPSIS = "…"


@dataclass(frozen=True, kw_only=True, slots=True)
class PreparedCall:
    """A call that passed lookup and validation, with what its tool declares about it.

    ``executor_arguments`` is None when a translating tool could not translate the arguments
    (running the call then reports why)."""

    tool: Tool
    call: ToolCallPart
    arguments: Mapping[str, Any]
    executor_arguments: Mapping[str, Any] | None = None
    effects: Effects = UNDECLARED
    summary: str = ""
    limits: Limits = FALLBACK_LIMITS

    @property
    def read_only(self) -> bool:
        return self.tool.read_only

    @property
    def used_arguments(self) -> Mapping[str, Any]:
        """The arguments as the executor names them (the model's, when not translated)."""
        return self.arguments if self.executor_arguments is None else self.executor_arguments


def translated(tool: object, arguments: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``arguments`` as ``tool``'s executor names them; None when it cannot translate them."""
    if not isinstance(tool, Translating):
        return arguments
    try:
        return tool.executor_arguments(arguments)
    except Exception:  # arguments the executor refuses when it runs
        return None


def declared_effects(tool: object, arguments: Mapping[str, Any]) -> Effects:
    """What ``tool`` declares for a call with ``arguments`` (the executor's names)."""
    if not isinstance(tool, DeclaresEffects):
        return UNDECLARED
    try:
        return tool.effects(arguments)
    except Exception:  # a tool's bug: the safe defaults
        return UNDECLARED


def summary_line(
    name: str, effects: Effects, arguments: Mapping[str, Any], *, limit: int = SUMMARY_LIMIT
) -> str:
    """``name: detail``, whitespace runs made one space, cut at ``limit`` with an ellipsis; the
    detail is the one the tool declares, else the compact JSON of ``arguments``."""
    detail = effects.summary if effects.summary is not None else canonical_json(dict(arguments))
    line = " ".join(f"{name}: {detail}".split())
    return line if len(line) <= limit else line[: max(limit - 1, 0)] + ELLIPSIS


def prepare_call(
    tool: Tool, call: ToolCallPart, arguments: Mapping[str, Any], limits: Limits
) -> PreparedCall:
    """The ``PreparedCall`` of a validated call."""
    executor_arguments = translated(tool, arguments)
    used = arguments if executor_arguments is None else executor_arguments
    effects = declared_effects(tool, used)
    return PreparedCall(
        tool=tool,
        call=call,
        arguments=arguments,
        executor_arguments=executor_arguments,
        effects=effects,
        summary=summary_line(call.name, effects, used),
        limits=limits,
    )
