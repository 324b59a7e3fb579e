"""The Responses API's response object and usage, as the fake server echoes them."""

from __future__ import annotations

import time
from typing import Any

from taor.testing.wire import ReplyContext


def usage_object(ctx: ReplyContext) -> dict[str, Any]:
    u = ctx.usage
    return {
        "input_tokens": u.input_tokens,
        "input_tokens_details": {
            "cache_write_tokens": u.cache_write_tokens,
            "cached_tokens": u.cache_read_tokens,
        },
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": u.input_tokens + u.output_tokens,
    }


def response_object(
    ctx: ReplyContext,
    rid: str,
    *,
    output: list[dict[str, Any]],
    status: str,
    usage: dict[str, Any] | None,
) -> dict[str, Any]:
    """The response object as the API returns it, echoing what the request set."""
    body = ctx.request.json if isinstance(ctx.request.json, dict) else {}
    reasoning = {"effort": None, "summary": None, **(body.get("reasoning") or {})}
    return {
        "id": rid,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "max_tool_calls": None,
        "model": ctx.model,
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "prompt_cache_key": body.get("prompt_cache_key"),
        "reasoning": reasoning,
        "safety_identifier": None,
        "service_tier": "default",
        "store": body.get("store", True),
        "temperature": body.get("temperature", 1.0),
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": None,
        "metadata": body.get("metadata") or {},
    }
