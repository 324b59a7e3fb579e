"""The ``Tool`` seam: what a tool is, what it receives and what it returns.

A tool has a name, a description, a JSON Schema for its parameters, a ``read_only`` flag (read-only
calls of one round may run concurrently) and an async ``execute`` that gets the
validated arguments and a ``ToolContext``. It returns a ``ToolOutput``: text and/or image parts,
an ``is_error`` flag and optional ``metadata`` for the host (never sent to the model).

Errors are data. A tool that fails in a way the model can act on returns
``ToolOutput.error(...)`` or raises ``ToolError``; the registry turns any exception into an
``is_error`` output. Only cancellation propagates.

Tools know nothing of sessions: they use taor.llm's parts, and ``ToolOutput.to_result`` makes the
``ToolResultPart`` that goes into the transcript (the session's tool round truncates the output
to the tool's declared limits first, then calls it).

Beside this protocol a tool may declare its effects and output limits (``taor.tools.effects``).
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from taor._records import frozen
from taor.errors import ToolError as ToolError  # defined in taor.errors, exported here too
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import ImagePart, TextPart, ToolResultPart, tool_result

ContentPart = TextPart | ImagePart
if TYPE_CHECKING:
    from taor.env.base import Environment

OutputCallback = Callable[[str], None]

_NO_METADATA: Mapping[str, Any] = MappingProxyType({})


def _discard_output(chunk: str) -> None:
    """The default ``on_output``: streamed output goes nowhere."""


@frozen
class ToolContext:
    """What a tool gets besides its arguments.

    ``environment`` is a ``taor.env.Environment`` (None for a tool run outside a session that
    needs none). ``cancelled`` is set when the call should stop early;
    ``on_output`` receives output as it arrives (for ``tool_call_output_delta`` events);
    ``call_id`` is the id of the tool call being run. ``output_dir`` is a directory on the
    host, owned by the session, for output too big to keep in memory (the ``shell`` tool has its
    command's whole output written there when it does not fit): the tool names a file in it,
    which need not exist yet; None when the host gives none.
    """

    environment: Environment | None = None
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    on_output: OutputCallback = _discard_output
    call_id: str = ""
    output_dir: Path | None = None

    def output_file(self, suffix: str = ".txt") -> str | None:
        """A file in ``output_dir`` named after the call (None without a directory)."""
        if self.output_dir is None:
            return None
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", self.call_id).lstrip(".") or uuid.uuid4().hex
        return str(self.output_dir / f"{name}{suffix}")


@frozen
class ToolOutput:
    """The result of running a tool: content for the model, ``metadata`` for the host."""

    content: tuple[ContentPart, ...] = ()
    is_error: bool = False
    metadata: Mapping[str, Any] = field(default_factory=lambda: _NO_METADATA)

    @classmethod
    def of(
        cls,
        content: str | Sequence[ContentPart],
        *,
        is_error: bool = False,
        metadata: Mapping[str, Any] | None = None,
    ) -> ToolOutput:
        parts = (TextPart(text=content),) if isinstance(content, str) else tuple(content)
        return cls(content=parts, is_error=is_error, metadata=metadata or _NO_METADATA)

    @classmethod
    def error(cls, message: str, *, metadata: Mapping[str, Any] | None = None) -> ToolOutput:
        return cls.of(message, is_error=True, metadata=metadata)

    @property
    def text(self) -> str:
        """The text parts joined; images are left out."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))

    def to_result(self, call_id: str, *, name: str = "") -> ToolResultPart:
        """The transcript part for this output (as is: truncate before, if needed)."""
        return tool_result(call_id, self.content, is_error=self.is_error, name=name)


@runtime_checkable
class Tool(Protocol):
    """A tool the model can call. Frozen dataclasses with these fields satisfy it."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> Mapping[str, Any]: ...

    @property
    def read_only(self) -> bool: ...

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        """Run with arguments already validated against ``parameters``."""
        ...


def definition_of(tool: Tool) -> ToolDefinition:
    """The provider-neutral definition offered to the model (checks the name and schema)."""
    return ToolDefinition(name=tool.name, description=tool.description, parameters=tool.parameters)
