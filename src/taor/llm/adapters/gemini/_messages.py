"""Gemini messages as JSON part fragments, encoded once per message: text, images, function
calls with their thought signatures, and function responses named after their calls."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from taor.llm.adapters._http import dumps, inline_image
from taor.llm.types import (
    ImagePart,
    Message,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

# Google's documented placeholder for function calls Gemini did not produce itself.
FOREIGN_SIGNATURE = "skip_thought_signature_validator"


@dataclass(frozen=True, slots=True)
class Encoded:
    """One message as its Gemini role and its comma-joined JSON part fragments."""

    role: str
    parts: str


def encode_message(message: Message) -> Encoded:
    if message.role == "system":
        texts = [dumps({"text": p.text}) for p in message.parts if isinstance(p, TextPart)]
        return Encoded("system", ",".join(texts))
    if message.role == "assistant":
        return Encoded("model", ",".join(_model_parts(message.parts)))
    return Encoded("user", ",".join(_user_parts(message.parts, {})))


def result_encoder(messages: Sequence[Message], n: int) -> Callable[[Message], Encoded]:
    """An encoder for the tool results in ``messages[n]``, which names them after the calls
    in the turns before it."""

    def encode(message: Message) -> Encoded:
        names = _call_names(messages, n, message)
        return Encoded("user", ",".join(_user_parts(message.parts, names)))

    return encode


def _call_names(messages: Sequence[Message], n: int, message: Message) -> dict[str, str]:
    """The names of the calls ``message``'s results answer, from the turns before it."""
    wanted = {p.call_id for p in message.parts if isinstance(p, ToolResultPart) and not p.name}
    names: dict[str, str] = {}
    for earlier in reversed(messages[:n]):
        if len(names) == len(wanted):
            break
        for call in earlier.tool_calls if earlier.role == "assistant" else ():
            if call.id in wanted:
                names.setdefault(call.id, call.name)
    return names


def _user_parts(parts: Sequence[Part], names: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append(dumps({"text": part.text}))
        elif isinstance(part, ImagePart):
            out.append(_image(part))
        elif isinstance(part, ToolResultPart):
            out.append(
                _function_response(part, part.name or names.get(part.call_id) or part.call_id)
            )
            out.extend(_image(p) for p in part.content if isinstance(p, ImagePart))
    return out


def _function_response(part: ToolResultPart, name: str) -> str:
    response = {"error": part.text} if part.is_error else {"output": part.text}
    return dumps({"functionResponse": {"id": part.call_id, "name": name, "response": response}})


def _image(part: ImagePart) -> str:
    if part.data is not None:
        data = inline_image(part.data, "gemini", 20)
        return dumps({"inlineData": {"mimeType": part.media_type, "data": data}})
    return dumps({"fileData": {"mimeType": part.media_type, "fileUri": part.url}})


def _model_parts(parts: Sequence[Part]) -> list[str]:
    calls = [p for p in parts if isinstance(p, ToolCallPart)]
    foreign = bool(calls) and not any(_signature(p) for p in calls)
    out: list[str] = []
    for part in parts:
        signature = _signature(part)
        if isinstance(part, TextPart):
            out.append(_signed({"text": part.text}, signature))
        elif isinstance(part, ThinkingPart) and part.provider == "gemini":
            out.append(_signed({"text": part.text, "thought": True}, signature))
        elif isinstance(part, ToolCallPart):
            if foreign and part is calls[0]:
                signature = FOREIGN_SIGNATURE
            call = {"id": part.id, "name": part.name, "args": dict(part.arguments)}
            out.append(_signed({"functionCall": call}, signature))
        elif isinstance(part, ImagePart):
            out.append(_image(part))
    return out


def _signature(part: Part) -> str | None:
    state = part.provider_state.get("gemini") if part.provider_state else None
    value = state.get("thought_signature") if isinstance(state, Mapping) else None
    return value if isinstance(value, str) else None


def _signed(part: dict[str, Any], signature: str | None) -> str:
    if signature is not None:
        part["thoughtSignature"] = signature
    return dumps(part)
