"""``ToolRegistry``: the tools a session offers, and the one place a tool call is run.

``execute`` follows one pipeline: look up, parse, validate, run. It never
raises for a problem on the tool's side: an unknown tool, arguments
that are not JSON or break the schema, and an exception in the tool each become an ``is_error``
``ToolOutput`` that tells the model what went wrong. Cancellation (``asyncio.CancelledError``)
propagates: it is the caller stopping the call, not the tool failing.

An environment may intercept tool calls (fault injection by tool name): when
``context.environment`` has a callable ``intercept_tool(name, arguments, action)``, the validated
call runs through it (``MemoryEnvironment`` records it as operation ``tool:<name>`` and may raise
or return an injected result instead). An injected error becomes an ``is_error`` output like an
exception in the tool; an injected ``ToolOutput`` is returned as is, a ``str`` as its text.

Schemas are checked at ``register`` (a bad name or schema raises ``ConfigurationError`` there);
their validators (jsonschema, Draft 2020-12) are compiled once, at a tool's first call, so that
a session starts without importing jsonschema.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from taor.llm.tooldef import ToolDefinition
from taor.llm.types import ToolCallPart
from taor.tools.base import Tool, ToolContext, ToolError, ToolOutput, definition_of

RAW_ARGUMENTS_QUOTE_LIMIT = 2000


@dataclass(frozen=True, kw_only=True, slots=True)
class _Entry:
    tool: Tool
    definition: ToolDefinition


@dataclass(frozen=True, kw_only=True, slots=True)
class Prepared:
    """A call that passed lookup and validation: the tool, the call, its parsed arguments."""

    tool: Tool
    call: ToolCallPart
    arguments: Mapping[str, Any]


class ToolRegistry:
    """Tools by name. ``register`` replaces a tool of the same name (the latest wins)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._entries: dict[str, _Entry] = {}
        self._validators: dict[str, Any] = {}  # name -> Draft202012Validator, at first call
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        definition = definition_of(tool)
        self._entries[tool.name] = _Entry(tool=tool, definition=definition)
        self._validators.pop(tool.name, None)

    def unregister(self, name: str) -> Tool | None:
        """Remove and return the tool called ``name`` (``None`` when there is none)."""
        entry = self._entries.pop(name, None)
        self._validators.pop(name, None)
        return entry.tool if entry else None

    def get(self, name: str) -> Tool | None:
        entry = self._entries.get(name)
        return entry.tool if entry else None

    def names(self) -> list[str]:
        return list(self._entries)

    def definitions(self) -> list[ToolDefinition]:
        """The definitions to offer the model, in registration order."""
        return [entry.definition for entry in self._entries.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Tool]:
        return iter([entry.tool for entry in self._entries.values()])

    async def execute(self, call: ToolCallPart, context: ToolContext) -> ToolOutput:
        """Run ``call``; every tool-side failure comes back as an ``is_error`` output."""
        prepared = self.prepare(call)
        if isinstance(prepared, ToolOutput):
            return prepared
        return await self.invoke(prepared, context)

    def prepare(self, call: ToolCallPart) -> Prepared | ToolOutput:
        """Look up and validate ``call``: the tool and its arguments, or the error output."""
        entry = self._entries.get(call.name)
        if entry is None:
            return ToolOutput.error(self._unknown_tool_message(call.name))
        arguments = _parse_arguments(call)
        if isinstance(arguments, ToolOutput):
            return arguments
        return self._validated(entry, call, arguments)

    def revalidate(self, prepared: Prepared, arguments: dict[str, Any]) -> Prepared | ToolOutput:
        """``prepared`` with new arguments (a hook changed them), validated again."""
        entry = self._entries[prepared.call.name]
        call = dataclasses.replace(prepared.call, arguments=arguments, raw_arguments="")
        return self._validated(entry, call, arguments)

    async def invoke(self, prepared: Prepared, context: ToolContext) -> ToolOutput:
        """Run a prepared call (exceptions become error outputs; cancellation propagates)."""
        if context.call_id != prepared.call.id:
            context = dataclasses.replace(context, call_id=prepared.call.id)
        return await _run(prepared.tool, dict(prepared.arguments), context)

    def _validated(
        self, entry: _Entry, call: ToolCallPart, arguments: dict[str, Any]
    ) -> Prepared | ToolOutput:
        problem = _schema_problem(self._validator(entry), arguments)
        if problem is not None:
            return ToolOutput.error(
                f"Invalid arguments for tool {call.name}: {problem}\n"
                f"Raw arguments: {_quoted_raw(call)}"
            )
        return Prepared(tool=entry.tool, call=call, arguments=arguments)

    def _validator(self, entry: _Entry) -> Any:
        name = entry.definition.name
        validator = self._validators.get(name)
        if validator is None:
            from jsonschema import Draft202012Validator  # here: importing taor does not load it

            validator = self._validators[name] = Draft202012Validator(
                dict(entry.definition.parameters)
            )
        return validator

    def _unknown_tool_message(self, name: str) -> str:
        available = ", ".join(sorted(self._entries)) or "(none)"
        return f"Unknown tool: {name}. Available tools: {available}."


def _parse_arguments(call: ToolCallPart) -> dict[str, Any] | ToolOutput:
    """The call's arguments: from ``raw_arguments`` when the model sent any, else ``arguments``."""
    if not call.raw_arguments.strip():
        return dict(call.arguments)
    try:
        value = json.loads(call.raw_arguments)
    except ValueError as exc:
        return ToolOutput.error(
            f"Invalid arguments for tool {call.name}: not valid JSON ({exc}). "
            f"Send the arguments as one JSON object.\nRaw arguments: {_quoted_raw(call)}"
        )
    if not isinstance(value, dict):
        return ToolOutput.error(
            f"Invalid arguments for tool {call.name}: expected a JSON object, got "
            f"{type(value).__name__}.\nRaw arguments: {_quoted_raw(call)}"
        )
    return value


def _schema_problem(validator: Any, arguments: dict[str, Any]) -> str | None:
    """The most relevant schema violation, with where it is, or ``None`` when valid."""
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(arguments))
    if error is None:
        return None
    where = "" if error.json_path == "$" else f" (at {error.json_path})"
    return f"{error.message}{where}"


def _quoted_raw(call: ToolCallPart) -> str:
    """The arguments as the model sent them, cut if they are very long."""
    raw = call.raw_arguments or json.dumps(dict(call.arguments), ensure_ascii=False, default=str)
    if len(raw) <= RAW_ARGUMENTS_QUOTE_LIMIT:
        return raw
    cut = len(raw) - RAW_ARGUMENTS_QUOTE_LIMIT
    return f"{raw[:RAW_ARGUMENTS_QUOTE_LIMIT]}... [{cut} more characters]"


async def _run(tool: Tool, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
    """Run the tool; exceptions become error outputs, cancellation propagates."""
    try:
        output, injected = await _call(tool, arguments, context)
    except ToolError as exc:
        return ToolOutput.error(str(exc) or f"Tool {tool.name} failed.")
    except Exception as exc:
        return ToolOutput.error(f"Tool error ({tool.name}): {type(exc).__name__}: {exc}")
    if injected and isinstance(output, str):
        return ToolOutput.of(output)
    if not isinstance(output, ToolOutput):
        return ToolOutput.error(
            f"Tool error ({tool.name}): returned {type(output).__name__}, not ToolOutput."
        )
    return output


async def _call(tool: Tool, arguments: dict[str, Any], context: ToolContext) -> tuple[object, bool]:
    """What the tool returned, or what the environment's ``intercept_tool`` gave instead; and
    whether it was given instead (the tool did not run)."""
    intercept = getattr(context.environment, "intercept_tool", None)
    if not callable(intercept):
        return await tool.execute(arguments, context), False
    ran = False

    async def execute() -> object:
        nonlocal ran
        ran = True
        return await tool.execute(arguments, context)

    output = await intercept(tool.name, arguments, execute)
    return output, not ran
