"""Anthropic messages as JSON fragments, encoded once per message: content blocks, tool
results (kept apart, since a turn sends them first), images, signed thinking, and the blocks of
server tools, sent back exactly as they came."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, assert_never

from taor._records import frozen
from taor.llm.adapters._http import dumps, inline_image
from taor.llm.types import (
    ImagePart,
    Message,
    Part,
    ServerToolPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

MAX_IMAGE_MB = 5  # per image, measured base64-encoded


@frozen
class Encoded:
    """One message as JSON fragments: its blocks (the first ``results`` are tool results) and
    the whole message, as sent when it is a turn of its own without a breakpoint."""

    role: str
    blocks: tuple[str, ...]
    results: int = 0
    json: str = ""


def turn_blocks(turn: list[Encoded]) -> list[str]:
    """A turn's blocks: the tool results of all its messages first, then the rest."""
    if len(turn) == 1:
        return list(turn[0].blocks)
    results = [b for e in turn for b in e.blocks[: e.results]]
    return results + [b for e in turn for b in e.blocks[e.results :]]


def message_json(role: str, blocks: Sequence[str]) -> str:
    return f'{{"role":"{role}","content":[{",".join(blocks)}]}}'


def encode_message(message: Message) -> Encoded:
    if message.role == "system":
        texts = (
            dumps({"type": "text", "text": p.text})
            for p in message.parts
            if isinstance(p, TextPart) and p.text
        )
        return Encoded(role="system", blocks=tuple(texts))
    role = "assistant" if message.role == "assistant" else "user"
    results: list[str] = []
    blocks: list[str] = []
    for part in message.parts:
        if isinstance(part, ToolResultPart):
            if role == "user":
                results.append(_tool_result(part))
        elif (block := _block(part, role)) is not None:
            blocks.append(block)
    everything = (*results, *blocks)
    return Encoded(
        role=role, blocks=everything, results=len(results), json=message_json(role, everything)
    )


def _block(part: Part, role: str) -> str | None:
    match part:
        case TextPart():
            return dumps({"type": "text", "text": part.text}) if part.text else None
        case ImagePart():
            return dumps(_image(part)) if role == "user" else None
        case ToolCallPart():
            block = {
                "type": "tool_use",
                "id": part.id,
                "name": part.name,
                "input": dict(part.arguments),
            }
            return dumps(block) if role == "assistant" else None
        case ThinkingPart():
            return _thinking_block(part) if role == "assistant" else None
        case ServerToolPart():
            mine = role == "assistant" and part.provider == "anthropic"
            return dumps(dict(part.block)) if mine else None
        case ToolResultPart():
            return None
        case _:
            assert_never(part)


def _thinking_block(part: ThinkingPart) -> str | None:
    if part.provider != "anthropic" or not part.signature:
        return None  # another provider's reasoning, or unsigned: Anthropic cannot verify it
    if part.redacted:
        return dumps({"type": "redacted_thinking", "data": part.signature})
    return dumps({"type": "thinking", "thinking": part.text, "signature": part.signature})


def _tool_result(part: ToolResultPart) -> str:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": part.call_id}
    content = [
        {"type": "text", "text": p.text} if isinstance(p, TextPart) else _image(p)
        for p in part.content
        if not isinstance(p, TextPart) or p.text
    ]
    if content:
        block["content"] = content
    if part.is_error:
        block["is_error"] = True
    return dumps(block)


def _image(part: ImagePart) -> dict[str, Any]:
    if part.data is None:
        return {"type": "image", "source": {"type": "url", "url": part.url}}
    data = inline_image(part.data, "anthropic", MAX_IMAGE_MB)
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": part.media_type, "data": data},
    }
