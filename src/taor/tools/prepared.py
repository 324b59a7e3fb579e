"""``PreparedCall``: one tool call looked up, validated and described once, by its tool.

``ToolRegistry.prepare`` makes it: the tool, the call, the arguments the model sent (parsed and
validated) and the same arguments as the executor names them (a ``ProfiledTool`` translates
them, once), the effects the tool declares for them (``taor.tools.effects``), the one-line
summary and the output limits. Everything the session does around a call (permission,
checkpoints, the diff for the host, the preview in a permission question, the files a summary
keeps, the event's summary line) reads it, never the tool's name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from taor._records import frozen
from taor.llm.types import ToolCallPart
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.effects import (
    UNDECLARED,
    DeclaresEffects,
    DeclaresLimits,
    Effects,
    canonical_json,
)
from taor.tools.profiled import Translating
from taor.tools.truncation import FALLBACK_LIMITS, Limits

SUMMARY_LIMIT = 80
ELLIPSIS = "…"

RunTranslated = Callable[[Mapping[str, Any], Mapping[str, Any], ToolContext], Awaitable[ToolOutput]]


@frozen
class Declared:
    """What a tool declares beside the ``Tool`` protocol, looked up once per tool (the
    registry keeps it with the tool): its limits, and its translation, effects and translated
    run when it has them."""

    limits: Limits = FALLBACK_LIMITS
    translate: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    effects: Callable[[Mapping[str, Any]], Effects] | None = None
    run_translated: RunTranslated | None = None

    @classmethod
    def of(cls, tool: object) -> Declared:
        """What ``tool`` declares (nothing for None or a tool that declares nothing)."""
        declared = cls()
        if isinstance(tool, DeclaresLimits):
            declared = dataclasses.replace(declared, limits=tool.output_limits)
        if isinstance(tool, DeclaresEffects):
            declared = dataclasses.replace(declared, effects=tool.effects)
        if isinstance(tool, Translating):
            translate, run = tool.executor_arguments, tool.run_translated
            declared = dataclasses.replace(declared, translate=translate, run_translated=run)
        return declared

    def translated(self, arguments: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """``arguments`` as the executor names them; None when they cannot be translated."""
        if self.translate is None:
            return arguments
        try:
            return self.translate(arguments)
        except Exception:  # arguments the executor refuses when it runs
            return None

    def effects_for(self, arguments: Mapping[str, Any]) -> Effects:
        """The effects declared for ``arguments`` (the executor's names)."""
        if self.effects is None:  # a "command" argument still names what it runs
            command = arguments.get("command")
            return dataclasses.replace(UNDECLARED, command=str(command)) if command else UNDECLARED
        try:
            return self.effects(arguments)
        except Exception:  # a tool's bug: the safe defaults
            return UNDECLARED

    def prepare(self, tool: Tool, call: ToolCallPart, arguments: Mapping[str, Any]) -> PreparedCall:
        """The ``PreparedCall`` of a validated call of ``tool``."""
        executor_arguments = self.translated(arguments)
        used = arguments if executor_arguments is None else executor_arguments
        effects = self.effects_for(used)
        return PreparedCall(
            tool=tool,
            call=call,
            arguments=arguments,
            executor_arguments=executor_arguments,
            effects=effects,
            summary=summary_line(call.name, effects, used),
            limits=self.limits,
            run_translated=self.run_translated,
        )


@frozen
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
    run_translated: RunTranslated | None = None

    @property
    def read_only(self) -> bool:
        return self.tool.read_only

    @property
    def used_arguments(self) -> Mapping[str, Any]:
        """The arguments as the executor names them (the model's, when not translated)."""
        return self.arguments if self.executor_arguments is None else self.executor_arguments

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        """Run the tool: a translating one with the arguments translated here already."""
        if self.run_translated is not None and self.executor_arguments is not None:
            return await self.run_translated(arguments, dict(self.executor_arguments), context)
        return await self.tool.execute(arguments, context)


def summary_line(
    name: str, effects: Effects, arguments: Mapping[str, Any], *, limit: int = SUMMARY_LIMIT
) -> str:
    """``name: detail``, whitespace runs made one space, cut at ``limit`` with an ellipsis; the
    detail is the one the tool declares, else the compact JSON of ``arguments``."""
    detail = effects.summary if effects.summary is not None else canonical_json(dict(arguments))
    line = " ".join(f"{name}: {detail}".split())
    return line if len(line) <= limit else line[: max(limit - 1, 0)] + ELLIPSIS


def declared_effects(tool: object, arguments: Mapping[str, Any]) -> Effects:
    """What ``tool`` declares for a call with ``arguments`` (the executor's names)."""
    return Declared.of(tool).effects_for(arguments)
