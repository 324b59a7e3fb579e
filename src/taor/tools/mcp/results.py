"""An MCP ``CallToolResult`` as a ``ToolOutput``: text, structured content and images as parts.

Text blocks stay text; images become ``ImagePart``s; an embedded text resource is its text with
its URI, a binary one and audio are named (the model cannot read them); a resource link is its
URI. Structured content is added as its JSON when no text block says the same already (servers
usually send both); the host gets it whole in the metadata (``structured_content``). The server's ``isError`` becomes ``is_error``.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mcp import types

from taor.llm.types import ImagePart, TextPart
from taor.tools.base import ContentPart, ToolOutput


def to_output(result: types.CallToolResult) -> ToolOutput:
    parts: list[ContentPart] = [part for block in result.content for part in _part(block)]
    structured = result.structured_content
    if structured is not None:
        text = json.dumps(structured, ensure_ascii=False, indent=None, default=str)
        if not any(isinstance(p, TextPart) and _says(p.text, structured) for p in parts):
            parts.append(TextPart(text=text))
    if not parts:
        parts.append(TextPart(text="(no output)"))
    metadata: dict[str, Any] = {}
    if structured is not None:
        metadata["structured_content"] = structured
    return ToolOutput.of(parts, is_error=bool(result.is_error), metadata=metadata)


def _part(block: types.ContentBlock) -> list[ContentPart]:
    match block:
        case types.TextContent():
            return [TextPart(text=block.text)]
        case types.ImageContent():
            try:
                data = base64.b64decode(block.data, validate=True)
            except (binascii.Error, ValueError):
                return [TextPart(text=f"[an image of type {block.mime_type} that did not decode]")]
            return [ImagePart(data=data, media_type=block.mime_type)]
        case types.EmbeddedResource():
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                return [TextPart(text=f"[resource {resource.uri}]\n{resource.text}")]
            return [TextPart(text=f"[binary resource {resource.uri} ({resource.mime_type})]")]
        case types.ResourceLink():
            return [TextPart(text=f"[resource link {block.uri}]")]
        case types.AudioContent():
            return [TextPart(text=f"[audio of type {block.mime_type}]")]


def _says(text: str, value: object) -> bool:
    """Whether a text block says ``value`` already: as its JSON, or as the one ``result`` a
    server wraps a plain value in."""
    if isinstance(value, dict) and list(value) == ["result"] and value["result"] == text:
        return True
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False
