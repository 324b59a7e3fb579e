"""The Anthropic request body: the head fields (generation options, thinking, tool choice,
provider options), tool definitions, and the turns with their cache breakpoints, joined from
pre-encoded fragments."""

from __future__ import annotations

from typing import Any

from taor.llm.adapters._http import dumps, merge_options
from taor.llm.adapters.anthropic._messages import Encoded, message_json, turn_blocks
from taor.llm.catalog import ModelInfo
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import ReasoningEffort, Request, ToolChoice

BUDGETS: dict[str, int] = {"low": 2048, "medium": 8192, "high": 24576, "xhigh": 32000}
LOOKBACK_BLOCKS = 8  # well inside the ~20 blocks Anthropic looks back from a breakpoint
_CACHE_CONTROL = ',"cache_control":{"type":"ephemeral"}}'
_THINKING_BLOCKS = ('{"type":"thinking"', '{"type":"redacted_thinking"')
_OWN_OPTIONS = ("auto_cache", "beta_headers", "tools")
_MERGED_OPTIONS = ("output_config", "metadata")


def head_fields(
    request: Request, model: str, info: ModelInfo, options: dict[str, Any], may_think: bool
) -> dict[str, Any]:
    """Every body field but system, tools and messages, provider options merged in."""
    max_tokens = request.max_tokens or info.max_output
    head: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "stream": True}
    if may_think:
        head.update(_thinking(request.reasoning_effort, info, max_tokens))
    if request.temperature is not None:
        head["temperature"] = request.temperature
    if request.stop:
        head["stop_sequences"] = list(request.stop)
    if request.metadata.get("user_id"):
        head["metadata"] = {"user_id": request.metadata["user_id"]}
    if request.tools:
        head["tool_choice"] = _tool_choice(request.tool_choice)
    body_options = {k: v for k, v in options.items() if k not in _OWN_OPTIONS}
    merge_options(head, body_options, deep=_MERGED_OPTIONS)
    thinking = head.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") not in (None, "disabled"):
        head.pop("temperature", None)
        if head.get("tool_choice", {}).get("type") in ("any", "tool"):
            head["tool_choice"] = _tool_choice(ToolChoice(parallel=request.tool_choice.parallel))
    return head


def _thinking(effort: ReasoningEffort | None, info: ModelInfo, max_tokens: int) -> dict[str, Any]:
    if effort is None or not info.reasoning:
        return {}
    if info.thinking == "effort":
        return {"thinking": {"type": "adaptive"}, "output_config": {"effort": effort}}
    budget = min(BUDGETS[effort], max_tokens - 1)
    if info.thinking != "budget" or budget < 1024:
        return {}
    return {"thinking": {"type": "enabled", "budget_tokens": budget}}


def may_think(turns: list[list[Encoded]]) -> bool:
    """False in the middle of a tool-use loop whose assistant turn has no thinking block (it
    came from another provider, or thinking was off): Anthropic rejects switching it on there."""
    if len(turns) < 2 or turns[-2][0].role != "assistant":
        return True
    in_loop = turn_blocks(turns[-1])[0].startswith('{"type":"tool_result"')
    return not in_loop or turn_blocks(turns[-2])[0].startswith(_THINKING_BLOCKS)


def _tool_choice(choice: ToolChoice) -> dict[str, Any]:
    if choice.mode == "named":
        out: dict[str, Any] = {"type": "tool", "name": choice.name}
    else:
        out = {"type": {"auto": "auto", "none": "none", "required": "any"}[choice.mode]}
    if not choice.parallel and choice.mode != "none":
        out["disable_parallel_tool_use"] = True
    return out


def encode_tool(tool: ToolDefinition) -> str:
    schema = dict(tool.parameters)
    return dumps({"name": tool.name, "description": tool.description, "input_schema": schema})


def extra_tools(options: dict[str, Any]) -> list[str]:
    """The tool definitions of ``provider_options["anthropic"]["tools"]`` (server tools such as
    ``{"type": "web_search_20250305", "name": "web_search"}``), sent after taor's own."""
    return [dumps(tool) for tool in options.get("tools") or ()]


def mark_last(blocks: list[str]) -> None:
    """Put a cache breakpoint on the last of ``blocks`` (none when there are none)."""
    if blocks:
        blocks[-1] = blocks[-1][:-1] + _CACHE_CONTROL


def turns_json(turns: list[list[Encoded]], *, cache: bool) -> list[str]:
    """Each turn as JSON; with ``cache``, the rolling breakpoints (see the package docstring):
    on the newest turn, and on the user turn before it when the turns since then hold more
    blocks than ``LOOKBACK_BLOCKS``."""
    out = [t[0].json if len(t) == 1 else message_json(t[0].role, turn_blocks(t)) for t in turns]
    last = len(turns) - 1
    previous = next((i for i in range(last - 1, -1, -1) if turns[i][0].role == "user"), -1)
    added = sum(len(turn_blocks(t)) for t in turns[previous + 1 :]) if previous >= 0 else 0
    marked = (last, previous) if added > LOOKBACK_BLOCKS else (last,)
    for i in marked if cache else ():
        blocks = turn_blocks(turns[i]) if i >= 0 else None
        if blocks and not blocks[-1].startswith(_THINKING_BLOCKS):
            mark_last(blocks)
            out[i] = message_json(turns[i][0].role, blocks)
    return out


def join(head: dict[str, Any], system: list[str], tools: list[str], messages: list[str]) -> str:
    """The body: the head fields, then system, tools and the messages (options win)."""
    parts = [
        dumps({k: v for k, v in head.items() if k not in ("system", "tools", "messages")})[:-1]
    ]
    encoded = {
        "system": "[" + ",".join(system) + "]" if system else None,
        "tools": "[" + ",".join(tools) + "]" if tools else None,
        "messages": "[" + ",".join(messages) + "]",
    }
    for key, value in encoded.items():
        value = dumps(head[key]) if key in head else value
        if value is not None:
            parts.append(f',"{key}":{value}')
    parts.append("}")
    return "".join(parts)
