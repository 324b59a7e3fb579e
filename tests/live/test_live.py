"""Opt-in tests against the real providers: ``pytest -m live`` with the keys set.
Without a key each test is skipped; CI never selects the ``live`` marker."""

from __future__ import annotations

import os
from typing import Any

import pytest

from taor.llm import Message, Request, ToolDefinition, complete, connect, tool_result

pytestmark = pytest.mark.live

MODELS = {
    "anthropic": ("anthropic:claude-haiku-4-5", ("ANTHROPIC_API_KEY",)),
    "openai": ("openai:gpt-5-mini", ("OPENAI_API_KEY",)),
    "gemini": ("gemini:gemini-2.5-flash", ("GEMINI_API_KEY", "GOOGLE_API_KEY")),
}
WEATHER = ToolDefinition(
    name="get_weather",
    description="Current weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def model_string(provider: str) -> str:
    model, keys = MODELS[provider]
    if not any(os.environ.get(k) for k in keys):
        pytest.skip(f"set {' or '.join(keys)} to run live {provider} tests")
    return os.environ.get(f"TAOR_LIVE_{provider.upper()}_MODEL", model)


@pytest.mark.parametrize("provider", list(MODELS))
async def test_text_turn(provider: str) -> None:
    model = connect(model_string(provider))
    try:
        response = await complete(model, Request(messages=(Message.user("Say exactly: pong"),)))
    finally:
        await model.aclose()
    assert "pong" in response.text.lower()
    assert response.finish_reason.reason == "stop"
    assert response.usage.input_tokens > 0
    assert response.usage.output_tokens > 0


async def _tool_round_trip(provider: str, effort: Any) -> None:
    model = connect(model_string(provider))
    history: tuple[Message, ...] = (Message.user("What is the weather in Paris? Use the tool."),)
    try:
        first = await complete(
            model, Request(messages=history, tools=(WEATHER,), reasoning_effort=effort)
        )
        assert first.tool_calls
        assert first.tool_calls[0].arguments.get("city", "").lower().startswith("paris")
        results = tuple(tool_result(c.id, "18°C and sunny", name=c.name) for c in first.tool_calls)
        history = (*history, first.message, Message.tool_results(*results))
        second = await complete(
            model, Request(messages=history, tools=(WEATHER,), reasoning_effort=effort)
        )
    finally:
        await model.aclose()
    assert "18" in second.text


@pytest.mark.parametrize("provider", list(MODELS))
async def test_tool_round_trip(provider: str) -> None:
    await _tool_round_trip(provider, None)


@pytest.mark.parametrize("provider", list(MODELS))
async def test_thinking_round_trip(provider: str) -> None:
    """Reasoning state (signatures, encrypted items) must be accepted back by the provider."""
    await _tool_round_trip(provider, "low")
