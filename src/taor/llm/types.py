"""The provider-neutral data model: content parts, messages, tool definitions, requests, responses.

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

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from taor.errors import ConfigurationError

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
ProviderState: TypeAlias = Mapping[str, Any]
ReasoningEffort: TypeAlias = Literal["low", "medium", "high", "xhigh"]
FinishKind: TypeAlias = Literal["stop", "length", "tool_calls", "content_filter", "error", "other"]


@dataclass(frozen=True, kw_only=True, slots=True)
class TextPart:
    kind: Literal["text"] = "text"
    text: str
    provider_state: ProviderState | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
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


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallPart:
    """A call the model asked for. ``arguments`` is parsed; ``raw_arguments`` is as received."""

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    raw_arguments: str = ""
    provider_state: ProviderState | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
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


@dataclass(frozen=True, kw_only=True, slots=True)
class ThinkingPart:
    """Model reasoning. For redacted thinking, ``text`` is empty and ``signature`` holds the
    opaque payload. ``provider`` names who produced it; only that provider can read it back."""

    kind: Literal["thinking"] = "thinking"
    text: str = ""
    signature: str | None = None
    redacted: bool = False
    provider: str | None = None
    provider_state: ProviderState | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
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


@dataclass(frozen=True, kw_only=True, slots=True)
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


_TOOL_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]{0,63}$")


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolDefinition:
    """A tool offered to the model. Checked when defined: a bad name or schema fails here,
    not as a 400 from the provider in the middle of a session."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def __post_init__(self) -> None:
        if not _TOOL_NAME.match(self.name):
            raise ConfigurationError(
                f"invalid tool name {self.name!r}: use a letter followed by up to 63 letters, "
                "digits, '_' or '-'"
            )
        check_tool_schema(self.name, self.parameters)


def check_tool_schema(name: str, schema: Mapping[str, Any]) -> None:
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        raise ConfigurationError(
            f"tool {name!r}: parameters must be a JSON Schema whose root has type 'object'"
        )
    try:
        key = json.dumps(schema, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        key = None  # not JSON data: check it every time (and let the check say what is wrong)
    problem = _schema_problem(key) if key is not None else _check_schema(schema)
    if problem is not None:
        raise ConfigurationError(f"tool {name!r}: invalid JSON Schema: {problem}")


@functools.lru_cache(maxsize=512)
def _schema_problem(schema_json: str) -> str | None:
    """The meta-schema check of a schema (by its canonical JSON): about 10 ms, so done once."""
    return _check_schema(json.loads(schema_json))


def _check_schema(schema: Mapping[str, Any]) -> str | None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None


@dataclass(frozen=True, kw_only=True, slots=True)
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


@dataclass(frozen=True, kw_only=True, slots=True)
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


@dataclass(frozen=True, kw_only=True, slots=True)
class Usage:
    """Token counts, normalized so that every provider means the same thing by each field.

    - ``input_tokens``: every prompt token, including those read from or written to the cache
      (Anthropic reports the uncached ones only; taor adds the cache counts back).
    - ``cache_read_tokens``: the part of ``input_tokens`` served from the prompt cache.
    - ``cache_write_tokens``: the part of ``input_tokens`` written to the cache (Anthropic, and
      OpenAI models that bill cache writes).
    - ``output_tokens``: every generated token, reasoning included (Gemini reports thoughts
      apart; taor adds them in).
    - ``reasoning_tokens``: the part of ``output_tokens`` spent on reasoning.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def uncached_input_tokens(self) -> int:
        return self.input_tokens - self.cache_read_tokens - self.cache_write_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class FinishReason:
    reason: FinishKind
    raw: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Response:
    message: Message
    finish_reason: FinishReason
    usage: Usage = Usage()
    id: str | None = None
    model: str | None = None
    provider: str = ""

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return self.message.tool_calls

    @property
    def reasoning(self) -> str | None:
        chunks = [p.text for p in self.message.parts if isinstance(p, ThinkingPart) and p.text]
        return "".join(chunks) if chunks else None
