"""``ToolChoice(parallel=False)`` reaches each provider as its own switch, against
the fake server; Gemini has none and gets nothing."""

from __future__ import annotations

import json

import pytest

from taor.llm import Message, Request, ToolChoice, ToolDefinition, complete, connect
from taor.testing import FakeProviderServer, Reply

MODELS = {
    "anthropic": "anthropic:claude-haiku-4-5",
    "openai": "openai:gpt-5.1",
    "openai-compat": "openai-compat:qwen2.5-coder",
    "gemini": "gemini:gemini-2.5-pro",
}
TOOL = ToolDefinition(
    name="read_file",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)


def switch(provider: str, body: dict) -> object:
    """The provider's one-call-per-reply switch in a request body (None when absent)."""
    if provider == "anthropic":
        return body["tool_choice"].get("disable_parallel_tool_use")
    if provider == "gemini":  # has no such switch: nothing about it may be sent
        assert "parallel" not in json.dumps(body).lower()
        return None
    return body.get("parallel_tool_calls")


@pytest.mark.parametrize("provider", list(MODELS))
@pytest.mark.parametrize("parallel", [True, False])
async def test_one_call_per_reply_is_asked_for_where_the_provider_can(
    provider: str, parallel: bool, fake_server: FakeProviderServer
) -> None:
    fake_server.push(Reply(text="ok"))
    model = connect(MODELS[provider], api_key="k", base_url=fake_server.base_url(provider))
    request = Request(
        messages=(Message.user("hi"),),
        tools=(TOOL,),
        tool_choice=ToolChoice(parallel=parallel),
    )
    try:
        assert (await complete(model, request)).text == "ok"
    finally:
        await model.aclose()
    sent = switch(provider, fake_server.requests[-1].json)
    if parallel or provider == "gemini":
        assert sent is None
    elif provider == "anthropic":
        assert sent is True
    else:
        assert sent is False
