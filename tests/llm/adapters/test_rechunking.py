"""Property: however a provider's byte stream is cut into chunks, every adapter assembles the
same Response (SSE framing, multi-byte characters and JSON split anywhere)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taor.llm import Message, Request, Response
from taor.llm.assembler import assemble
from taor.llm.connect import connect
from taor.llm.response import Usage
from taor.llm.sse import SSEDecoder, SSEvent
from taor.testing import RecordedRequest
from taor.testing.script import Reply, ToolCall
from taor.testing.wire import ReplyContext, all_wires

REPLY = Reply(
    text="Héllo wörld — ünïcode ✓ and a longer sentence to split across many chunks.",
    thinking="First I think; then I act. ∑ñ",
    signature="c2lnbmF0dXJl",
    tool_calls=(
        ToolCall(name="read_file", arguments={"path": "src/ä.py", "limit": 20}, id="call_a"),
        ToolCall(name="shell", arguments={"cmd": "grep -rn 'x' .", "timeout": 5}, id="call_b"),
    ),
    usage=Usage(input_tokens=1200, output_tokens=80, cache_read_tokens=1024, reasoning_tokens=10),
    chunk=7,
)
ADAPTERS = {
    "anthropic": (
        "anthropic:claude-sonnet-4-5",
        "/v1/messages",
        {"model": "claude-sonnet-4-5", "stream": True},
    ),
    "openai": ("openai:gpt-5.1", "/v1/responses", {"model": "gpt-5.1", "stream": True}),
    "chat": (
        "openai-compat:qwen",
        "/v1/chat/completions",
        {"model": "qwen", "stream": True, "stream_options": {"include_usage": True}},
    ),
    "gemini": ("gemini:gemini-2.5-pro", "/v1beta/models/gemini-2.5-pro:streamGenerateContent", {}),
}


def stream_bytes(wire_name: str) -> bytes:
    _, path, body = ADAPTERS[wire_name]
    wire = next(w for w in all_wires() if w.matches(path))
    request = RecordedRequest(
        method="POST",
        path=path,
        query={"alt": "sse"},
        headers={},
        body=b"{}",
        json=body,
        wire=wire.name,
    )
    ids = (f"id_{n}" for n in itertools.count())
    ctx = ReplyContext(request=request, usage=REPLY.usage or Usage(), call_id=lambda: next(ids))
    return b"".join(wire.frames(REPLY, ctx))


async def _events(chunks: list[bytes]) -> AsyncIterator[SSEvent]:
    decoder = SSEDecoder()
    for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.flush():
        yield event


def assemble_chunks(wire_name: str, chunks: list[bytes]) -> Response:
    model: Any = connect(ADAPTERS[wire_name][0], api_key="k", base_url="http://127.0.0.1:9/v1")
    request = Request(messages=(Message.user("hi"),))
    return asyncio.run(assemble(model._translate(_events(chunks), request), model.provider))


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@pytest.mark.parametrize("wire_name", list(ADAPTERS))
def test_whole_stream_assembles_the_reply(wire_name: str) -> None:
    response = assemble_chunks(wire_name, [stream_bytes(wire_name)])
    assert response.text == REPLY.text
    assert [(c.name, dict(c.arguments)) for c in response.tool_calls] == [
        (c.name, dict(c.arguments))
        for c in REPLY.tool_calls  # type: ignore[arg-type]
    ]
    assert response.finish_reason.reason == "tool_calls"


@pytest.mark.parametrize("wire_name", list(ADAPTERS))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cuts=st.lists(st.integers(min_value=0, max_value=100_000), max_size=40))
def test_any_rechunking_assembles_the_same(wire_name: str, cuts: list[int]) -> None:
    data = stream_bytes(wire_name)
    assert assemble_chunks(wire_name, split(data, cuts)) == assemble_chunks(wire_name, [data])


@pytest.mark.parametrize("wire_name", list(ADAPTERS))
def test_byte_by_byte(wire_name: str) -> None:
    data = stream_bytes(wire_name)
    chunks = [data[i : i + 1] for i in range(len(data))]
    assert assemble_chunks(wire_name, chunks) == assemble_chunks(wire_name, [data])
