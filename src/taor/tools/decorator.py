"""``@tool``: a ``Tool`` built from a typed async function.

    @tool(read_only=True)
    async def grep_logs(pattern: str, context: ToolContext, limit: int = 20) -> str:
        '''Search the service logs.

        Args:
            pattern: A regular expression.
            limit: At most this many lines.
        '''

The first paragraph of the docstring is the description; the Google-style ``Args:`` section
describes the parameters; the JSON Schema comes from the annotations (see ``taor.tools.function_schema``
for the types understood); a parameter with a default is not required. A parameter annotated
``ToolContext`` gets the call's context injected and is left out of the schema. The function may
return a ``str`` (text), a ``ToolOutput`` (as is) or any other JSON-serializable value (JSON text).
Mistakes in the function (not async, ``*args``, a missing or unsupported annotation, a bad name)
raise ``TypeError`` or ``ConfigurationError`` at decoration time, not when the model calls it.
"""

from __future__ import annotations

import enum
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from typing import Any, get_type_hints, overload

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.tools.base import ToolContext, ToolOutput, definition_of
from taor.tools.function_schema import Converter, converter_for, json_schema_for, parse_docstring

ToolFunction = Callable[..., Awaitable[Any]]


@frozen
class FunctionTool:
    """A tool that calls ``function`` with the arguments as keyword arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    read_only: bool = False
    function: ToolFunction
    context_parameter: str | None = None
    converters: Mapping[str, Converter] = field(default_factory=dict)

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        kwargs = {
            key: self.converters[key](value) if key in self.converters else value
            for key, value in arguments.items()
        }
        if self.context_parameter is not None:
            kwargs[self.context_parameter] = context
        return as_output(await self.function(**kwargs))


def as_output(value: Any) -> ToolOutput:
    """A function's return value as a ``ToolOutput``: text, as is, or JSON text."""
    if isinstance(value, ToolOutput):
        return value
    if isinstance(value, str):
        return ToolOutput.of(value)
    return ToolOutput.of(json.dumps(value, ensure_ascii=False))


@overload
def tool(function: ToolFunction, /) -> FunctionTool: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, read_only: bool = False
) -> Callable[[ToolFunction], FunctionTool]: ...


def tool(
    function: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
) -> FunctionTool | Callable[[ToolFunction], FunctionTool]:
    """Make a tool of an async function; use bare (``@tool``) or with options."""

    def build(fn: ToolFunction) -> FunctionTool:
        return function_tool(fn, name=name, description=description, read_only=read_only)

    return build if function is None else build(function)


def function_tool(
    fn: ToolFunction,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
) -> FunctionTool:
    """The ``FunctionTool`` for ``fn`` (what ``@tool`` does, as a plain call)."""
    if not inspect.iscoroutinefunction(fn):
        raise ConfigurationError(
            f"@tool needs an async function; {fn.__qualname__} is not "
            "(make it `async def`, with blocking work in asyncio.to_thread)"
        )
    summary, arg_docs = parse_docstring(fn.__doc__)
    schema, context_parameter, converters = _signature_schema(fn, arg_docs)
    built = FunctionTool(
        name=name or fn.__name__,
        description=summary if description is None else description,
        parameters=schema,
        read_only=read_only,
        function=fn,
        context_parameter=context_parameter,
        converters=converters,
    )
    definition_of(built)  # a bad name or schema fails now, not when offered to a model
    return built


def _signature_schema(
    fn: ToolFunction, arg_docs: Mapping[str, str]
) -> tuple[dict[str, Any], str | None, dict[str, Converter]]:
    """The parameters' schema, the name of the context parameter and the argument converters."""
    try:
        hints = get_type_hints(fn, include_extras=True)
    except NameError as exc:
        raise ConfigurationError(
            f"@tool {fn.__qualname__}: cannot resolve an annotation: {exc}"
        ) from None
    properties: dict[str, Any] = {}
    required: list[str] = []
    context_parameter: str | None = None
    converters: dict[str, Converter] = {}
    for parameter in inspect.signature(fn).parameters.values():
        where = f"@tool {fn.__qualname__}, parameter {parameter.name!r}"
        _check_kind(parameter, where)
        if parameter.name not in hints:
            raise ConfigurationError(f"{where}: add a type annotation")
        annotation = hints[parameter.name]
        if annotation is ToolContext:
            context_parameter = parameter.name
            continue
        properties[parameter.name] = _property_schema(parameter, annotation, arg_docs, where)
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
        converter = converter_for(annotation)
        if converter is not None:
            converters[parameter.name] = converter
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema, context_parameter, converters


def _check_kind(parameter: inspect.Parameter, where: str) -> None:
    if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
        raise ConfigurationError(f"{where}: *args and **kwargs cannot be described to a model")
    if parameter.kind is parameter.POSITIONAL_ONLY:
        raise ConfigurationError(f"{where}: positional-only parameters cannot be passed by name")


def _property_schema(
    parameter: inspect.Parameter, annotation: Any, arg_docs: Mapping[str, str], where: str
) -> dict[str, Any]:
    try:
        schema = json_schema_for(annotation)
    except ConfigurationError as exc:
        raise ConfigurationError(f"{where}: {exc}") from None
    if parameter.name in arg_docs:
        schema = {**schema, "description": arg_docs[parameter.name]}
    default = parameter.default
    if default is not inspect.Parameter.empty:
        value = default.value if isinstance(default, enum.Enum) else default
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            return schema
        schema = {**schema, "default": value}
    return schema
