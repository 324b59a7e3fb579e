"""The Responses API request body: the parameters after ``input`` (rebuilt per request,
provider options merged in), tool definitions, and each message as input items."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from taor.llm.adapters._http import dumps, error_label, image_url, merge_options
from taor.llm.catalog import ModelInfo
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import (
    ImagePart,
    Message,
    Part,
    Request,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

PROVIDER = "openai"
_REASONING_ID = re.compile(r"^(o\d|gpt-[5-9])(?!.*-chat)")


def is_reasoning(model: str, info: ModelInfo, request: Request) -> bool:
    if info.known:
        return info.reasoning
    return request.reasoning_effort is not None or bool(_REASONING_ID.match(model))


def parameters(request: Request, info: ModelInfo, reasoning: bool) -> dict[str, Any]:
    """Everything after ``input``: small, rebuilt per request, then provider options merged."""
    params: dict[str, Any] = {}
    if request.tools:
        params["tool_choice"] = _tool_choice(request)
        if not request.tool_choice.parallel:
            params["parallel_tool_calls"] = False
    if reasoning:
        effort = {"effort": request.reasoning_effort} if request.reasoning_effort else {}
        params["reasoning"] = {**effort, "summary": "auto"}
        params["include"] = ["reasoning.encrypted_content"]
    elif request.temperature is not None:
        params["temperature"] = request.temperature
    params["max_output_tokens"] = request.max_tokens or info.max_output
    if request.metadata:
        params["metadata"] = dict(request.metadata)
    options = dict(request.provider_options.get(PROVIDER) or {})
    cache_key = options.pop("prompt_cache_key", None) or _cache_key(request.metadata)
    if cache_key:
        params["prompt_cache_key"] = cache_key
    params["store"] = False
    params["stream"] = True
    return merge_options(params, options, none_deletes=True)


def _cache_key(metadata: Mapping[str, str]) -> str | None:
    session = metadata.get("session_id")
    if not session:
        return None
    return session if len(session) <= 64 else hashlib.sha256(session.encode()).hexdigest()


def _tool_choice(request: Request) -> Any:
    choice = request.tool_choice
    if choice.mode == "named":
        return {"type": "function", "name": choice.name}
    return choice.mode


def encode_tool(tool: ToolDefinition) -> str:
    return dumps(
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }
    )


def message_items(message: Message) -> str:
    """The message's input items, comma-joined (empty when nothing of it can be sent)."""
    if message.role == "assistant":
        return ",".join(i for i in map(_assistant_item, message.parts) if i)
    items = [_result_item(p) for p in message.parts if isinstance(p, ToolResultPart)]
    content = [_content(p) for p in message.parts if isinstance(p, (TextPart, ImagePart))]
    if content:
        role = "developer" if message.role == "system" else "user"
        items.append(dumps({"type": "message", "role": role, "content": content}))
    return ",".join(items)


def _assistant_item(part: Part) -> str | None:
    if isinstance(part, TextPart):
        if not part.text:
            return None
        item: dict[str, Any] = {"type": "message", "role": "assistant"}
        item["content"] = [{"type": "output_text", "text": part.text}]
        phase = (part.provider_state or {}).get(PROVIDER, {}).get("phase")
        return dumps({**item, "phase": phase} if phase else item)
    if isinstance(part, ToolCallPart):
        arguments = part.raw_arguments or dumps(dict(part.arguments))
        call = {"type": "function_call", "call_id": part.id, "name": part.name}
        return dumps({**call, "arguments": arguments})
    if isinstance(part, ThinkingPart) and part.provider == PROVIDER:
        stored = (part.provider_state or {}).get(PROVIDER) or {}
        if not stored.get("encrypted_content"):
            return None
        summary = stored.get("summary") or []
        encrypted = stored["encrypted_content"]
        return dumps({"type": "reasoning", "summary": summary, "encrypted_content": encrypted})
    return None


def _content(part: TextPart | ImagePart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    return {"type": "input_image", "image_url": image_url(part, PROVIDER, 20), "detail": "auto"}


def _result_item(part: ToolResultPart) -> str:
    item = {"type": "function_call_output", "call_id": part.call_id}
    prefix = error_label(part)
    if all(isinstance(p, TextPart) for p in part.content):
        return dumps({**item, "output": prefix + part.text})
    output = [_content(p) for p in part.content]
    if prefix:
        output.insert(0, {"type": "input_text", "text": prefix})
    return dumps({**item, "output": output})
