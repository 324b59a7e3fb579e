"""taor.tools: what a tool is and how to write one.

A tool is anything with the ``Tool`` protocol's name, description, JSON Schema parameters,
``read_only`` flag and ``async execute(arguments, context) -> ToolOutput``; ``@tool`` makes one
from a typed function (its signature is the schema, its docstring the description). A tool gets
a ``ToolContext`` (the environment, output streaming, cancellation) and raises ``ToolError`` for
a failure the model can act on. A ``ToolRegistry`` holds a session's tools and runs calls
through lookup, argument parsing and schema validation; its ``prepare`` makes one
``PreparedCall`` per call (``taor.tools.prepared``) with what the tool declares about it.

A tool may declare its effects per call and its output limits (``taor.tools.effects``); a tool
under a profile's name and argument names is a ``ProfiledTool`` (``taor.tools.profiled``), which
forwards its executor's declarations. Tools may come from sources with a lifecycle
(``taor.tools.sources``). The built-in tools are in ``taor.tools.builtin``.
"""

from taor.tools.base import Tool, ToolContext, ToolError, ToolOutput, definition_of
from taor.tools.decorator import FunctionTool, tool
from taor.tools.registry import ToolRegistry

__all__ = [
    "FunctionTool",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "ToolRegistry",
    "definition_of",
    "tool",
]
