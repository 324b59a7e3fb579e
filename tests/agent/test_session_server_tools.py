"""A session with Anthropic's web search on, through the real SDK against the fake server: the
provider's own tool runs reach the host as ``server_tool_use`` / ``server_tool_result`` events,
nothing runs them in taor (no phantom tool call), the next request carries their blocks verbatim
and in order, and so does a request after resuming the transcript from its JSONL file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import Event, ServerToolResult, ServerToolUse, ToolCallStart
from taor.agent.record.codec import event_from_json, to_json
from taor.agent.record.transcript import problems
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm import Model, ServerToolPart, connect
from taor.testing import FakeProviderServer, Reply, ToolCall, text, web_search
from taor.testing.server_tools import server_tool_blocks

WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
CONFIG = SessionConfig(
    permissions=PermissionConfig(mode="bypass"),
    provider_options={"anthropic": {"tools": [WEB_SEARCH]}},
)
SEARCH = web_search(
    "taor release notes",
    ("taor 0.4 released", "https://example.com/taor-0.4"),
    call_id="srvtoolu_01M6NgYqEpDtqG7XN",
)
FIRST = Reply(
    server_tools=(SEARCH,),
    text="The notes mention a CHANGES file; reading it.",
    tool_calls=(ToolCall(name="read_file", arguments={"path": "CHANGES.md"}),),
)
SENT_TYPES = ["server_tool_use", "web_search_tool_result", "text", "tool_use"]


def model_for(server: FakeProviderServer) -> Model:
    return connect(
        "anthropic:claude-sonnet-4-5", api_key="k", base_url=server.base_url("anthropic")
    )


def env() -> MemoryEnvironment:
    return MemoryEnvironment(files={"CHANGES.md": "0.4: server tools\n"})


def assistant_blocks(body: Any) -> list[dict[str, Any]]:
    """The content of the first assistant message of a request body."""
    return next(m["content"] for m in body["messages"] if m["role"] == "assistant")


async def test_server_tools_across_turns_and_a_resume(
    fake_server: FakeProviderServer, tmp_path: Path
) -> None:
    path = tmp_path / "session.jsonl"
    fake_server.push(FIRST, text("0.4 adds server tools."), text("Still 0.4."))
    model = model_for(fake_server)
    try:
        async with Session.recorded(
            path, model, environment=env(), config=CONFIG, profile=None
        ) as session:
            events = [e async for e in session.submit("What is new in taor?")]
            assert not problems(session.history)
    finally:
        await model.aclose()

    # The host sees the search, and only read_file runs.
    (use,) = [e for e in events if isinstance(e, ServerToolUse)]
    (result,) = [e for e in events if isinstance(e, ServerToolResult)]
    assert (use.call_id, use.name, use.input) == (SEARCH.id, "web_search", SEARCH.input)
    assert (result.call_id, result.result_type, result.is_error) == (
        SEARCH.id,
        "web_search_tool_result",
        False,
    )
    assert result.content[0]["url"] == "https://example.com/taor-0.4"
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.name, dict(s.arguments)) for s in starts] == [("read_file", {"path": "CHANGES.md"})]
    order = [e.kind for e in events if e.kind in ("server_tool_use", "server_tool_result")]
    assert order == ["server_tool_use", "server_tool_result"]
    assert events.index(result) < events.index(starts[0])
    for event in (use, result):  # hosts that relay events as JSON get them back whole
        assert event_from_json(json.loads(json.dumps(to_json(event)))) == event

    # The next request sends the blocks back as they came, in their place.
    expected = list(server_tool_blocks(SEARCH, str(SEARCH.id)))
    second = fake_server.requests[1].json
    sent = assistant_blocks(second)
    assert [b["type"] for b in sent] == SENT_TYPES
    assert sent[:2] == expected and [list(b) for b in sent[:2]] == [list(b) for b in expected]
    assert sent[3]["name"] == "read_file" and sent[3]["id"]
    assert second["messages"][2]["content"][0]["type"] == "tool_result"

    # The transcript on disk keeps them: a resumed session sends the same bytes.
    lines = path.read_text().splitlines()
    assert sum('"server_tool"' in line for line in lines) == 1  # the one assistant turn
    model = model_for(fake_server)
    try:
        async with Session.resume(
            path, model, environment=env(), config=CONFIG, profile=None
        ) as resumed:
            kept = [
                p
                for t in resumed.history
                if t.kind == "assistant"
                for p in t.message.parts  # type: ignore[union-attr]
                if isinstance(p, ServerToolPart)
            ]
            assert [dict(p.block) for p in kept] == expected
            more: list[Event] = [e async for e in resumed.submit("And now?")]
    finally:
        await model.aclose()
    assert more[-1].stop_reason == "completed"  # type: ignore[union-attr]
    third = fake_server.requests[-1].json
    assert assistant_blocks(third) == sent
    before = json.dumps(sent[:2], separators=(",", ":"))[1:-1]
    assert before in fake_server.requests[1].body.decode()
    assert before in fake_server.requests[-1].body.decode()
    fake_server.assert_done()
