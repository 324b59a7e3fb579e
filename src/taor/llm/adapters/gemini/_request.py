"""The Gemini body fields besides the contents: tool config, generation config with thinking
(level or budget, per the catalog or guessed from the model's version), tool declarations."""

from __future__ import annotations

import re
from typing import Any

from taor.llm.adapters._http import dumps
from taor.llm.catalog import ModelInfo
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import Request

BUDGETS: dict[str, int] = {"low": 1024, "medium": 8192, "high": 24576, "xhigh": 32768}
LEVELS: dict[str, str] = {"low": "LOW", "medium": "MEDIUM", "high": "HIGH", "xhigh": "HIGH"}
# thinkingBudget ranges by model family (most specific first), per Google's docs.
_BUDGET_RANGES = (
    ("gemini-2.5-pro", 128, 32768),
    ("gemini-2.5-flash-lite", 512, 24576),
    ("gemini-2.5-flash", 1, 24576),
)
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY", "named": "ANY"}
_MAJOR = re.compile(r"gemini-(\d+)(?:\.(\d+))?")


def head_fields(request: Request, model: str, info: ModelInfo) -> dict[str, Any]:
    head: dict[str, Any] = {}
    if request.tools:
        choice = request.tool_choice
        config: dict[str, Any] = {"mode": _MODES[choice.mode]}
        if choice.name is not None:
            config["allowedFunctionNames"] = [choice.name]
        head["toolConfig"] = {"functionCallingConfig": config}
    generation: dict[str, Any] = {"maxOutputTokens": request.max_tokens or info.max_output}
    if request.temperature is not None:
        generation["temperature"] = request.temperature
    if request.stop:
        generation["stopSequences"] = list(request.stop)
    thinking = _thinking(model, info, request.reasoning_effort)
    if thinking is not None:
        generation["thinkingConfig"] = thinking
    head["generationConfig"] = generation
    return head


def _thinking(model: str, info: ModelInfo, effort: str | None) -> dict[str, Any] | None:
    kind = info.thinking or _guess_thinking(model)
    if kind == "level":
        config: dict[str, Any] = {"includeThoughts": True}
        if effort is not None:
            config["thinkingLevel"] = LEVELS[effort]
        return config
    if kind == "budget":
        config = {"includeThoughts": True}
        if effort is not None:
            low, high = next(((lo, hi) for p, lo, hi in _BUDGET_RANGES if p in model), (1, 32768))
            config["thinkingBudget"] = min(max(BUDGETS[effort], low), high)
        return config
    return None


def _guess_thinking(model: str) -> str | None:
    match = _MAJOR.search(model)
    if match is None:
        return None
    version = (int(match.group(1)), int(match.group(2) or 0))
    return "level" if version >= (3, 0) else "budget" if version >= (2, 5) else None


def encode_tool(tool: ToolDefinition) -> str:
    schema = {k: v for k, v in tool.parameters.items() if k != "$schema"}
    return dumps(
        {"name": tool.name, "description": tool.description, "parametersJsonSchema": schema}
    )
