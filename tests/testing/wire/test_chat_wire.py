"""The fake Chat Completions wire format, checked by the official ``openai`` SDK's own parsers
and pydantic types: if the SDK turns every chunk and body into its typed objects with the right
content, the fake speaks the real format."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from taor.llm.response import Usage
from taor.testing import (
    FakeProviderServer,
    Reply,
    ToolCall,
    context_length,
    error_event,
    quota_exhausted,
    rate_limited,
    unauthorized,
)

MESSAGES: list[Any] = [{"role": "user", "content": "hi"}]
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
USAGE = Usage(input_tokens=1000, cache_read_tokens=640, output_tokens=42, reasoning_tokens=12)


@pytest.fixture
async def client(fake_server: FakeProviderServer) -> AsyncIterator[openai.AsyncOpenAI]:
    sdk = openai.AsyncOpenAI(
        api_key="test-key", base_url=fake_server.base_url("openai-compat"), max_retries=0
    )
    yield sdk
    await sdk.close()


def reply(**kwargs: Any) -> Reply:
    return Reply(
        text="Let me look.",
        tool_calls=(
            ToolCall(name="read_file", arguments={"path": "src/a.py"}, id="call_a"),
            ToolCall(name="read_file", arguments={"path": "src/b.py"}, id="call_b"),
        ),
        usage=USAGE,
        chunk=5,
        **kwargs,
    )


async def raw_frames(server: FakeProviderServer, body: dict[str, Any]) -> list[str]:
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            server.base_url("openai-compat") + "/chat/completions", json=body
        )
    assert response.headers["content-type"] == "text/event-stream"
    return [line[6:] for line in response.text.split("\n\n") if line.startswith("data: ")]


async def test_sdk_stream_helper_parses_every_chunk(
    fake_server: FakeProviderServer, client: openai.AsyncOpenAI
) -> None:
    fake_server.push(reply())
    seen: list[str] = []
    async with client.chat.completions.stream(
        model="qwen3-coder",
        messages=MESSAGES,
        tools=TOOLS,
        stream_options={"include_usage": True},
    ) as stream:
        async for event in stream:
            seen.append(event.type)
        final = await stream.get_final_completion()
    assert {"chunk", "content.delta", "content.done", "tool_calls.function.arguments.done"} <= set(
        seen
    )
    assert seen.count("tool_calls.function.arguments.delta") > 2
    (choice,) = final.choices
    assert (choice.finish_reason, choice.message.content) == ("tool_calls", "Let me look.")
    calls = [(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or []]
    assert calls == [
        ("call_a", "read_file", '{"path":"src/a.py"}'),
        ("call_b", "read_file", '{"path":"src/b.py"}'),
    ]
    assert final.model == "qwen3-coder" and final.id.startswith("chatcmpl-")
    usage = final.usage
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (1000, 42)
    assert usage.prompt_tokens_details and usage.prompt_tokens_details.cached_tokens == 640
    assert (
        usage.completion_tokens_details and usage.completion_tokens_details.reasoning_tokens == 12
    )


async def test_every_frame_validates_strictly(fake_server: FakeProviderServer) -> None:
    fake_server.push(reply(thinking="Two files.", signature="c2ln"))
    body = {
        "model": "m",
        "messages": MESSAGES,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    frames = await raw_frames(fake_server, body)
    assert frames[-1] == "[DONE]"
    chunks = [ChatCompletionChunk.model_validate(json.loads(f), strict=True) for f in frames[:-1]]
    assert len({c.id for c in chunks}) == 1 and {c.object for c in chunks} == {
        "chat.completion.chunk"
    }
    first = chunks[0].choices[0].delta
    assert (first.role, first.content) == ("assistant", "")
    thinking = [c.choices[0].delta.model_extra or {} for c in chunks[1:3]]
    assert "".join(d["reasoning_content"] for d in thinking) == "Two files."
    headers = [
        tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or [] if tc.id
    ]
    assert [(h.index, h.id, h.type) for h in headers] == [
        (0, "call_a", "function"),
        (1, "call_b", "function"),
    ]
    assert (headers[0].model_extra or {})["extra_content"] == {
        "google": {"thought_signature": "c2ln"}
    }
    *_, finish, usage = chunks
    assert (
        finish.choices[0].finish_reason == "tool_calls" and finish.choices[0].delta.content is None
    )
    assert usage.choices == [] and usage.usage is not None and usage.usage.total_tokens == 1042
    assert all(c.usage is None for c in chunks[:-1])


async def test_tool_only_reply_puts_the_role_on_the_first_call(
    fake_server: FakeProviderServer,
) -> None:
    fake_server.push(Reply(tool_calls=(ToolCall(name="ls", id="call_1"),)))
    frames = await raw_frames(fake_server, {"model": "m", "messages": MESSAGES, "stream": True})
    first = ChatCompletionChunk.model_validate(json.loads(frames[0]), strict=True)
    delta = first.choices[0].delta
    assert (delta.role, delta.content) == ("assistant", None)
    assert delta.tool_calls and delta.tool_calls[0].id == "call_1"


async def test_one_chunk_calls_and_no_usage_without_stream_options(
    fake_server: FakeProviderServer, client: openai.AsyncOpenAI
) -> None:
    """The Ollama-like emulation: each call whole in one delta, and no usage chunk."""
    fake_server.push(Reply(tool_calls=reply().tool_calls, chunk=10_000))
    stream = await client.chat.completions.create(
        model="llama3.2", messages=MESSAGES, tools=TOOLS, stream=True
    )
    chunks = [chunk async for chunk in stream]
    calls = [tc for c in chunks for tc in c.choices[0].delta.tool_calls or []]
    assert [(tc.index, tc.id, tc.function and tc.function.arguments) for tc in calls] == [
        (0, "call_a", '{"path":"src/a.py"}'),
        (1, "call_b", '{"path":"src/b.py"}'),
    ]
    assert all(c.usage is None and c.choices for c in chunks)
    assert "usage" not in chunks[0].model_fields_set


async def test_non_streamed_body(
    fake_server: FakeProviderServer, client: openai.AsyncOpenAI
) -> None:
    fake_server.push(reply(thinking="Hmm."), reply(thinking="Hmm."))
    async with httpx2.AsyncClient() as http:
        url = fake_server.base_url("openai-compat") + "/chat/completions"
        raw = (await http.post(url, json={"model": "m", "messages": MESSAGES})).json()
    assert ChatCompletion.model_validate(raw, strict=True).object == "chat.completion"
    completion = await client.chat.completions.create(model="m", messages=MESSAGES, tools=TOOLS)
    (choice,) = completion.choices
    assert (choice.finish_reason, choice.message.content) == ("tool_calls", "Let me look.")
    assert [c.id for c in choice.message.tool_calls or []] == ["call_a", "call_b"]
    assert (choice.message.model_extra or {})["reasoning_content"] == "Hmm."
    assert completion.usage is not None and completion.usage.prompt_tokens == 1000


@pytest.mark.parametrize(
    ("step", "sdk_error", "code"),
    [
        (unauthorized("Incorrect API key provided"), openai.AuthenticationError, "invalid_api_key"),
        (rate_limited(retry_after=3), openai.RateLimitError, "rate_limit_exceeded"),
        (quota_exhausted(), openai.RateLimitError, "insufficient_quota"),
        (
            context_length("maximum context length is 8192"),
            openai.BadRequestError,
            "context_length_exceeded",
        ),
    ],
)
async def test_error_bodies(
    fake_server: FakeProviderServer,
    client: openai.AsyncOpenAI,
    step: Any,
    sdk_error: type[openai.APIStatusError],
    code: str,
) -> None:
    fake_server.push(step)
    with pytest.raises(sdk_error) as info:
        await client.chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.code == code and info.value.message
    assert isinstance(info.value.body, dict) and set(info.value.body) == {
        "message",
        "type",
        "param",
        "code",
    }


async def test_in_stream_error(fake_server: FakeProviderServer, client: openai.AsyncOpenAI) -> None:
    fake_server.push(
        error_event(after=2, error_type="server_error", message="The server had an error")
    )
    stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    received: list[ChatCompletionChunk] = []
    with pytest.raises(openai.APIError, match="The server had an error") as info:
        await drain(stream, received)
    assert len(received) == 2 and info.value.type == "server_error"


async def drain(
    stream: AsyncIterator[ChatCompletionChunk], into: list[ChatCompletionChunk]
) -> None:
    async for chunk in stream:
        into.append(chunk)


async def test_tool_results_are_read_from_tool_messages(
    fake_server: FakeProviderServer, client: openai.AsyncOpenAI
) -> None:
    fake_server.push(Reply(text="ok"))
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    messages: list[Any] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call, {**call, "id": "c2"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "first"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "second"}]},
    ]
    await client.chat.completions.create(model="m", messages=messages)
    assert fake_server.requests[-1].tool_results == ("first", "second")
    assert fake_server.requests[-1].wire == "chat"
