"""The provider-neutral data model: content parts, messages, tool choice and requests (tool
definitions are in ``taor.llm.tooldef``, responses in ``taor.llm.response``).

Every record is a frozen, keyword-only dataclass; parts carry a ``kind`` discriminator.

Opaque provider state. Providers hand back data that must be sent back verbatim on the next
request and that no other provider can read: Anthropic thinking signatures and redacted thinking,
OpenAI reasoning items (with encrypted content, since taor sends ``store=False``), Gemini thought
signatures. Parts and messages keep it in ``provider_state``, a mapping keyed by provider family
(``"anthropic"``, ``"openai"``, ``"gemini"``, ...). An adapter reads only its own key, so switching
provider drops exactly what the new one cannot read. A thinking part also records the ``provider``
that produced it: its ``signature`` is meaningful to that provider only.

Server tools. A provider may run tools of its own within a response (Anthropic's web search, web
fetch, code execution and tool search): the response then holds the use and its result as
content blocks, which must go back verbatim, in their place, on the next request. A
``ServerToolPart`` keeps each such block whole, as JSON; only its provider reads it back, and
taor never runs it (it is not a ``ToolCallPart``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, Literal, TypeAlias

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.llm.tooldef import ToolDefinition

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
ProviderState: TypeAlias = Mapping[str, Any]
ReasoningEffort: TypeAlias = Literal["low", "medium", "high", "xhigh"]
FinishKind: TypeAlias = Literal["stop", "length", "tool_calls", "content_filter", "error", "other"]


@frozen
class TextPart:
    kind: Literal["text"] = "text"
    text: str
    provider_state: ProviderState | None = None


@frozen
class ImagePart:
    """An image given inline (``data``) or by ``url``; exactly one of them is set."""

    kind: Literal["image"] = "image"
    data: bytes | None = None
    url: str | None = None
    media_type: str = "image/png"
    provider_state: ProviderState | None = None

    def __post_init__(self) -> None:
        if (self.data is None) == (self.url is None):
            raise ConfigurationError("an ImagePart needs exactly one of data= or url=")


@frozen
class ToolCallPart:
    """A call the model asked for. ``arguments`` is parsed; ``raw_arguments`` is as received."""

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    raw_arguments: str = ""
    provider_state: ProviderState | None = None


@frozen
class ToolResultPart:
    """The result of one tool call: text and/or images, flagged when it is an error."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    content: tuple[TextPart | ImagePart, ...] = ()
    is_error: bool = False
    name: str = ""
    provider_state: ProviderState | None = None

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.content if isinstance(p, TextPart))


@frozen
class ThinkingPart:
    """Model reasoning. For redacted thinking, ``text`` is empty and ``signature`` holds the
    opaque payload. ``provider`` names who produced it; only that provider can read it back."""

    kind: Literal["thinking"] = "thinking"
    text: str = ""
    signature: str | None = None
    redacted: bool = False
    provider: str | None = None
    provider_state: ProviderState | None = None


@frozen
class ServerToolPart:
    """A tool the ``provider`` ran itself, or its result: ``block`` is the provider's content
    block as received (JSON data), sent back verbatim to that provider and dropped for any other.
    A use has an ``id``, a ``name`` and an ``input``; its result names it by ``tool_use_id``."""

    kind: Literal["server_tool"] = "server_tool"
    provider: str
    block: Mapping[str, Any]
    provider_state: ProviderState | None = None

    @property
    def block_type(self) -> str:
        return str(self.block.get("type", ""))

    @property
    def is_result(self) -> bool:
        return "tool_use_id" in self.block

    @property
    def call_id(self) -> str:
        """The use's id; for a result, the id of the use it answers."""
        return str(self.block.get("tool_use_id" if self.is_result else "id", ""))


Part: TypeAlias = (
    TextPart | ImagePart | ToolCallPart | ToolResultPart | ThinkingPart | ServerToolPart
)


@frozen
class Message:
    role: Role
    parts: tuple[Part, ...] = ()
    provider_state: ProviderState | None = None

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", parts=(TextPart(text=text),))

    @classmethod
    def user(cls, *content: str | Part) -> Message:
        return cls(role="user", parts=_parts(content))

    @classmethod
    def assistant(cls, *content: str | Part) -> Message:
        return cls(role="assistant", parts=_parts(content))

    @classmethod
    def tool_results(cls, *results: ToolResultPart) -> Message:
        return cls(role="tool", parts=results)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]


def _parts(content: Sequence[str | Part]) -> tuple[Part, ...]:
    return tuple(TextPart(text=c) if isinstance(c, str) else c for c in content)


def tool_result(
    call_id: str,
    content: str | Sequence[TextPart | ImagePart],
    *,
    is_error: bool = False,
    name: str = "",
) -> ToolResultPart:
    parts = (TextPart(text=content),) if isinstance(content, str) else tuple(content)
    return ToolResultPart(call_id=call_id, content=parts, is_error=is_error, name=name)


@frozen
class ToolChoice:
    """Which tools the model may call; ``parallel`` False asks for at most one call per reply
    (Anthropic's ``disable_parallel_tool_use``, OpenAI's ``parallel_tool_calls``; Gemini has
    no such switch)."""

    mode: Literal["auto", "none", "required", "named"] = "auto"
    name: str | None = None
    parallel: bool = True

    def __post_init__(self) -> None:
        if (self.mode == "named") != (self.name is not None):
            raise ConfigurationError("ToolChoice: give name= exactly when mode='named'")


@frozen
class Request:
    """One model call. ``model`` may be left empty to use the client's own model id.
    ``provider_options`` is keyed by provider family and merged into that provider's body."""

    messages: tuple[Message, ...]
    model: str = ""
    system: str = ""
    tools: tuple[ToolDefinition, ...] = ()
    tool_choice: ToolChoice = ToolChoice()
    max_tokens: int | None = None
    temperature: float | None = None
    stop: tuple[str, ...] = ()
    reasoning_effort: ReasoningEffort | None = None
    provider_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    metadata: Mapping[str, str] = field(default_factory=dict)
