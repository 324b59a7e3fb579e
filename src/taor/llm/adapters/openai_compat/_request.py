"""The Chat Completions request body: the head fields (generation options, tool choice,
provider options), tool definitions, and each message as JSON fragments."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from taor.errors import ConfigurationError
from taor.llm.adapters._http import dumps, error_label, image_url, merge_options
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import ImagePart, Message, Part, Request, TextPart, ToolCallPart, ToolResultPart

PROVIDER = "openai-compat"
_RESERVED = frozenset({"messages", "stream"})


def generation(request: Request, max_tokens: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if max_tokens is not None:
        out["max_tokens"] = max_tokens
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.stop:
        out["stop"] = list(request.stop)
    if request.reasoning_effort is not None:
        out["reasoning_effort"] = request.reasoning_effort
    return out


def tool_choice(request: Request) -> dict[str, Any]:
    choice = request.tool_choice
    out: dict[str, Any] = {} if choice.parallel else {"parallel_tool_calls": False}
    if choice.mode == "named":
        out["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
    elif choice.mode != "auto":
        out["tool_choice"] = choice.mode
    return out


def merge(head: dict[str, Any], options: Mapping[str, Any]) -> None:
    for key in options:
        if key in _RESERVED:
            raise ConfigurationError(f"provider_options[{PROVIDER!r}] may not set {key!r}")
    merge_options(head, options, deep=(), none_deletes=True)


def encode_tool(tool: ToolDefinition) -> bytes:
    function = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return dumps({"type": "function", "function": function}).encode()


def encode_system(text: str) -> bytes:
    return dumps({"role": "system", "content": text}).encode()


def encode_message(message: Message) -> bytes:
    if message.role == "assistant":
        items = [_assistant(message.parts)]
    elif message.role == "system":
        items = [{"role": "system", "content": _joined(message.parts)}]
    else:  # user or tool: tool results first (they answer the previous turn), then the rest
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        items = _tool_messages(results)
        rest = [p for p in message.parts if not isinstance(p, ToolResultPart)]
        if rest or not results:
            items.append({"role": "user", "content": _user_content(rest)})
    return ",".join(dumps(item) for item in items).encode()


def _joined(parts: Sequence[Part]) -> str:
    return "\n\n".join(p.text for p in parts if isinstance(p, TextPart))


def _user_content(parts: Sequence[Part]) -> str | list[dict[str, Any]]:
    if not any(isinstance(p, ImagePart) for p in parts):
        return _joined(parts)
    out: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            out.append(_image(part))
    return out


def _image(part: ImagePart) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": image_url(part, PROVIDER, 20)}}


def _assistant(parts: tuple[Part, ...]) -> dict[str, Any]:
    calls = [p for p in parts if isinstance(p, ToolCallPart)]
    text = _joined(parts)
    out: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
    if calls:
        out["tool_calls"] = [_tool_call(c) for c in calls]
    return out


def _tool_call(call: ToolCallPart) -> dict[str, Any]:
    function = {"name": call.name, "arguments": _arguments(call)}
    out: dict[str, Any] = {"id": call.id, "type": "function", "function": function}
    state = (call.provider_state or {}).get(PROVIDER)
    if isinstance(state, Mapping) and "extra_content" in state:
        out["extra_content"] = state["extra_content"]
    return out


def _arguments(call: ToolCallPart) -> str:
    """The arguments as received when they are a JSON object (servers that render the history
    through a chat template parse them, and fail on anything else), else as parsed."""
    if call.raw_arguments:
        try:
            if isinstance(json.loads(call.raw_arguments), dict):
                return call.raw_arguments
        except ValueError:
            pass
    return dumps(dict(call.arguments))


def _tool_messages(results: list[ToolResultPart]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    for result in results:
        pictures = [p for p in result.content if isinstance(p, ImagePart)]
        text = error_label(result) + result.text
        if pictures:
            text = text or "(the image follows in the next message)"
            images.append({"type": "text", "text": f"Image(s) from tool call {result.call_id}:"})
            images.extend(_image(p) for p in pictures)
        items.append({"role": "tool", "tool_call_id": result.call_id, "content": text})
    if images:
        items.append({"role": "user", "content": images})
    return items
