"""Anthropic server tools (web search, code execution, ...) against the fake
server, streamed as Anthropic streams them: their blocks are kept whole and in place on the
assistant message, sent back verbatim, reported as their own events, and never become tool
calls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from taor.llm import (
    Message,
    Request,
    ServerToolPart,
    ServerToolResult,
    ServerToolUse,
    TextPart,
    ThinkingPart,
    Timeouts,
    ToolCallPart,
    ToolDefinition,
    complete,
    tool_result,
)
from taor.llm.adapters.anthropic import AnthropicModel
from taor.llm.events import ToolCallDelta, ToolCallStart
from taor.testing import (
    FakeProviderServer,
    Reply,
    ServerToolRun,
    ToolCall,
    web_search,
)
from taor.testing.server_tools import server_tool_blocks

from .support import ONCE

READ = ToolDefinition(
    name="read_file",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
SEARCH = web_search(
    "taor agent loop",
    ("taor on GitHub", "https://example.com/taor"),
    ("Agent loops explained", "https://example.com/loops"),
    call_id="srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k",
)
CODE = ServerToolRun(
    name="bash_code_execution",
    input={"command": "python -c 'print(6*7)'"},
    result_type="bash_code_execution_tool_result",
    content={
        "type": "bash_code_execution_result",
        "stdout": "42\n",
        "stderr": "",
        "return_code": 0,
    },
    id="srvtoolu_0112cP8RpnKv67t2cscmN4ia",
)
REPLY = Reply(
    thinking="I should search first.",
    signature="sig-1",
    server_tools=(SEARCH, CODE),
    text="Found it; now reading the file.",
    tool_calls=(ToolCall(name="read_file", arguments={"path": "README.md"}, id="toolu_1"),),
    chunk=5,
)


@pytest.fixture
async def model(fake_server: FakeProviderServer) -> AsyncIterator[AnthropicModel]:
    adapter = AnthropicModel(
        "claude-sonnet-4-5",
        api_key="test-key",
        base_url=fake_server.base_url("anthropic"),
        timeouts=Timeouts(idle=2),
    )
    yield adapter
    await adapter.aclose()


def ask(*messages: Message) -> Request:
    options = {"anthropic": {"tools": [WEB_SEARCH]}}
    return Request(messages=messages, tools=(READ,), provider_options=options)


async def test_server_tool_blocks_are_kept_in_place_and_never_a_tool_call(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(REPLY)
    events = [event async for event in model.stream(ask(Message.user("what is taor?")))]
    calls = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(c.id, c.name) for c in calls] == [("toolu_1", "read_file")]
    assert {e.index for e in events if isinstance(e, ToolCallDelta)} == {calls[0].index}
    uses = [e.block for e in events if isinstance(e, ServerToolUse)]
    results = [e.block for e in events if isinstance(e, ServerToolResult)]
    assert [(u["id"], u["name"], u["input"]) for u in uses] == [
        (SEARCH.id, "web_search", {"query": "taor agent loop"}),
        (CODE.id, "bash_code_execution", dict(CODE.input)),
    ]
    assert [(r["type"], r["tool_use_id"]) for r in results] == [
        ("web_search_tool_result", SEARCH.id),
        ("bash_code_execution_tool_result", CODE.id),
    ]
    assert results[0]["content"][1]["url"] == "https://example.com/loops"

    fake_server.push(REPLY)
    response = await complete(model, ask(Message.user("what is taor?")), retry=ONCE)
    parts = response.message.parts
    assert [type(p) for p in parts] == [
        ThinkingPart,
        ServerToolPart,
        ServerToolPart,
        ServerToolPart,
        ServerToolPart,
        TextPart,
        ToolCallPart,
    ]
    assert [p.call_id for p in parts if isinstance(p, ServerToolPart)] == [
        SEARCH.id,
        SEARCH.id,
        CODE.id,
        CODE.id,
    ]
    assert all(p.provider == "anthropic" for p in parts if isinstance(p, ServerToolPart))
    (call,) = response.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_1", "read_file", {"path": "README.md"})


async def test_the_next_request_sends_the_blocks_back_verbatim_in_order(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(REPLY, Reply(text="It is a coding-agent library."))
    question = Message.user("what is taor?")
    first = await complete(model, ask(question), retry=ONCE)
    results = Message.tool_results(tool_result("toolu_1", "# taor"))
    await complete(model, ask(question, first.message, results), retry=ONCE)

    body = fake_server.requests[-1].json
    assert [t.get("name") for t in body["tools"]] == ["read_file", "web_search"]
    assert body["tools"][1] == {**WEB_SEARCH, "cache_control": {"type": "ephemeral"}}
    sent = body["messages"][1]["content"]
    assert [b["type"] for b in sent] == [
        "thinking",
        "server_tool_use",
        "web_search_tool_result",
        "server_tool_use",
        "bash_code_execution_tool_result",
        "text",
        "tool_use",
    ]
    streamed = _streamed_server_blocks(fake_server)
    assert sent[1:5] == streamed
    for block, original in zip(sent[1:5], streamed, strict=True):
        assert list(block) == list(original)  # the keys in the order Anthropic sent them
    raw = fake_server.requests[-1].body.decode()
    assert json.dumps(streamed[1], separators=(",", ":")) in raw  # byte for byte


async def test_another_provider_gets_none_of_it(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    foreign = ServerToolPart(provider="openai", block={"type": "web_search_call", "id": "ws_1"})
    fake_server.push(Reply(text="ok"))
    history = (Message.user("q"), Message.assistant(foreign, "answer"), Message.user("more"))
    await complete(model, ask(*history), retry=ONCE)
    sent = fake_server.requests[-1].json["messages"][1]["content"]
    assert [b["type"] for b in sent] == ["text"]


def _streamed_server_blocks(server: FakeProviderServer) -> list[dict[str, Any]]:
    """The server-tool blocks of REPLY as the fake server streamed them: each use with its
    input joined from its deltas, each result as its ``content_block_start`` gave it."""
    out: list[dict[str, Any]] = []
    for run in REPLY.server_tools:
        assert run.id is not None
        out.extend(server_tool_blocks(run, run.id))
    return out
