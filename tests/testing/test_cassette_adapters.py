"""Record a session of each adapter once, then replay it with no server at all: what a user
does to run a real provider's traffic in CI."""

from pathlib import Path

import httpx2
import pytest

from taor.llm import Message, Request, Response, ToolDefinition, complete, connect, tool_result
from taor.testing import FakeProviderServer, RecordingTransport, ReplayTransport, text, tool_calls

SHELL = ToolDefinition(
    name="shell",
    description="Run a command.",
    parameters={"type": "object", "properties": {"cmd": {"type": "string"}}},
)


async def two_turns(
    provider: str, base_url: str, transport: httpx2.AsyncBaseTransport
) -> list[Response]:
    model = connect(
        f"{provider}:model-x", api_key="sk-secret-key", base_url=base_url, transport=transport
    )
    history: tuple[Message, ...] = (Message.user("list files"),)
    responses = []
    try:
        for _ in range(2):
            response = await complete(model, Request(messages=history, tools=(SHELL,)))
            responses.append(response)
            results = [tool_result(c.id, "a.py b.py", name=c.name) for c in response.tool_calls]
            history = (*history, response.message, Message.tool_results(*results))
    finally:
        await model.aclose()
    return responses


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-compat", "gemini"])
async def test_record_then_replay_without_a_server(provider: str, tmp_path: Path) -> None:
    cassette = tmp_path / "session.jsonl"
    with FakeProviderServer([tool_calls(("shell", {"cmd": "ls"})), text("Two files.")]) as server:
        base_url = server.base_url(provider)
        recorded = await two_turns(provider, base_url, RecordingTransport(cassette))
    assert "sk-secret-key" not in cassette.read_text()
    replayed = await two_turns(provider, base_url, ReplayTransport(cassette))
    assert [r.text for r in replayed] == ["", "Two files."]
    assert replayed == recorded
