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

Tools come registered one by one, or from sources (``taor.tools.sources``): ``add_source`` offers
a source's tools at once and again whenever the source says they changed (its tools replace the
ones it offered before; a tool registered directly wins over a source's of the same name);
``start_sources`` and ``close_sources`` run their lifecycle.

``prepare`` gives a ``PreparedCall`` (``taor.tools.prepared``): the call with what its tool
declares about it, worked out once; ``invoke`` runs it (a translating tool's arguments are not
translated again).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from taor._records import frozen
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import ToolCallPart
from taor.tools.base import Tool, ToolContext, ToolError, ToolOutput, definition_of
from taor.tools.effects import Effects
from taor.tools.prepared import Declared, PreparedCall, summary_line
from taor.tools.sources import SourceSet, ToolSource
from taor.tools.truncation import FALLBACK_LIMITS, Limits

RAW_ARGUMENTS_QUOTE_LIMIT = 2000


@frozen
class _Entry:
    tool: Tool
    definition: ToolDefinition
    declared: Declared  # what the tool declares beside the protocol, looked up once


class ToolRegistry:
    """Tools by name. ``register`` replaces a tool of the same name (the latest wins)."""

    def __init__(self, tools: Iterable[Tool] = (), *, sources: Iterable[ToolSource] = ()) -> None:
        self._entries: dict[str, _Entry] = {}
        self._validators: dict[str, Any] = {}  # name -> Draft202012Validator, at first call
        self._sources = SourceSet()
        self._offered_by: dict[str, ToolSource] = {}  # a tool's name -> the source offering it
        for tool in tools:
            self.register(tool)
        for source in sources:
            self.add_source(source)

    # --- sources ---

    @property
    def sources(self) -> tuple[ToolSource, ...]:
        return tuple(self._sources.sources)

    def add_source(self, source: ToolSource) -> None:
        """Offer ``source``'s tools now and after each change it reports."""
        self._sources.add(source)
        source.subscribe(lambda: self._refresh(source))
        self._refresh(source)

    async def start_sources(self) -> None:
        """Start the sources not started yet, in order (see ``SourceSet.start``)."""
        await self._sources.start(self._refresh)

    async def close_sources(self) -> list[BaseException]:
        """Close the started sources in reverse order; the errors of those that failed."""
        return await self._sources.close()

    def _refresh(self, source: ToolSource) -> None:
        """Offer what ``source`` offers now, in place of what it offered before."""
        for name in [n for n, s in self._offered_by.items() if s is source]:
            del self._offered_by[name]
            self._entries.pop(name, None)
            self._validators.pop(name, None)
        for tool in source.tools():
            if tool.name in self._entries and tool.name not in self._offered_by:
                continue  # registered directly: that one stays
            self.register(tool)
            self._offered_by[tool.name] = source

    def register(self, tool: Tool) -> None:
        definition = definition_of(tool)
        self._entries[tool.name] = _Entry(
            tool=tool, definition=definition, declared=Declared.of(tool)
        )
        self._validators.pop(tool.name, None)
        self._offered_by.pop(tool.name, None)  # registered directly: no source's any more

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

    def limits(self, name: str) -> Limits:
        """The output limits the tool called ``name`` declares (the fallback for no such tool)."""
        entry = self._entries.get(name)
        return entry.declared.limits if entry else FALLBACK_LIMITS

    def summary(self, call: ToolCallPart, *, limit: int = 80) -> str:
        """The summary line of a call that was not prepared (refused, or not valid): what its
        tool declares for the arguments as they are, else their JSON."""
        declared, used = self._declared(call.name), self.translated(call)
        return summary_line(call.name, declared.effects_for(used), used, limit=limit)

    def written(self, call: ToolCallPart) -> Sequence[str]:
        """The files a (recorded) call writes, as its tool declares them."""
        return self.effects(call).writes

    def effects(self, call: ToolCallPart) -> Effects:
        """What a (recorded) call does, as its tool declares it; for a tool this registry does
        not hold, the built-in tool of that name is asked."""
        if call.name not in self._entries:
            from taor.tools.builtin import builtin_effects  # a call of a tool not offered now

            return builtin_effects(call.name, call.arguments)
        return self._declared(call.name).effects_for(self.translated(call))

    def translated(self, call: ToolCallPart) -> Mapping[str, Any]:
        """The call's arguments as its tool's executor names them (as they are, when it cannot
        translate them)."""
        used = self._declared(call.name).translated(call.arguments)
        return call.arguments if used is None else used

    def _declared(self, name: str) -> Declared:
        entry = self._entries.get(name)
        return entry.declared if entry else Declared()

    def prepare(self, call: ToolCallPart) -> PreparedCall | ToolOutput:
        """Look up and validate ``call``: the tool and its arguments, or the error output."""
        entry = self._entries.get(call.name)
        if entry is None:
            return ToolOutput.error(self._unknown_tool_message(call.name))
        arguments = _parse_arguments(call)
        if isinstance(arguments, ToolOutput):
            return arguments
        return self._validated(entry, call, arguments)

    def revalidate(
        self, prepared: PreparedCall, arguments: dict[str, Any]
    ) -> PreparedCall | ToolOutput:
        """``prepared`` with new arguments (a hook changed them), validated again."""
        entry = self._entries[prepared.call.name]
        call = dataclasses.replace(prepared.call, arguments=arguments, raw_arguments="")
        return self._validated(entry, call, arguments)

    async def invoke(self, prepared: PreparedCall, context: ToolContext) -> ToolOutput:
        """Run a prepared call (exceptions become error outputs; cancellation propagates)."""
        if context.call_id != prepared.call.id:
            context = dataclasses.replace(context, call_id=prepared.call.id)
        return await _run(prepared, dict(prepared.arguments), context)

    def _validated(
        self, entry: _Entry, call: ToolCallPart, arguments: dict[str, Any]
    ) -> PreparedCall | ToolOutput:
        problem = _schema_problem(self._validator(entry), arguments)
        if problem is not None:
            return ToolOutput.error(
                f"Invalid arguments for tool {call.name}: {problem}\n"
                f"Raw arguments: {_quoted_raw(call)}"
            )
        return entry.declared.prepare(entry.tool, call, arguments)

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


async def _run(
    prepared: PreparedCall, arguments: dict[str, Any], context: ToolContext
) -> ToolOutput:
    """Run the tool; exceptions become error outputs, cancellation propagates."""
    tool = prepared.tool
    try:
        output, injected = await _call(prepared, arguments, context)
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


async def _call(
    prepared: PreparedCall, arguments: dict[str, Any], context: ToolContext
) -> tuple[object, bool]:
    """What the tool returned, or what the environment's ``intercept_tool`` gave instead; and
    whether it was given instead (the tool did not run)."""
    intercept = getattr(context.environment, "intercept_tool", None)
    if not callable(intercept):
        return await prepared.run(arguments, context), False
    ran = False

    async def execute() -> object:
        nonlocal ran
        ran = True
        return await prepared.run(arguments, context)

    output = await intercept(prepared.tool.name, arguments, execute)
    return output, not ran
