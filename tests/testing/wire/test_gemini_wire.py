"""The fake Gemini wire format, checked against the official google-genai SDK: its native
streaming and non-streaming calls parse every frame the fake server sends into typed objects."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from google import genai
from google.genai import errors, types

from taor.llm.response import Usage
from taor.testing import (
    FakeProviderServer,
    Reply,
    ToolCall,
    context_length,
    error_event,
    quota_exhausted,
    rate_limited,
)

MODEL = "gemini-3.1-pro-preview"
SIGNATURE = base64.b64encode(b"a thought signature").decode()
USAGE = Usage(input_tokens=1000, cache_read_tokens=600, output_tokens=300, reasoning_tokens=100)
REPLY = Reply(
    thinking="Thinking about the weather in two cities.",
    signature=SIGNATURE,
    text="Let me look both up for you.",
    tool_calls=(
        ToolCall(name="weather", arguments={"city": "Paris"}),
        ToolCall(name="weather", arguments={"city": "Oslo"}),
    ),
    usage=USAGE,
    chunk=8,
    id="resp-1",
)


@pytest.fixture
async def client(fake_server: FakeProviderServer) -> AsyncIterator[genai.Client]:
    options = types.HttpOptions(
        base_url=fake_server.base_url("gemini"),
        api_version="v1beta",
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    sdk = genai.Client(api_key="test-key", vertexai=False, http_options=options)
    yield sdk
    sdk.close()
    await sdk.aio.aclose()


async def test_stream_parses_into_typed_chunks(
    client: genai.Client, fake_server: FakeProviderServer
) -> None:
    fake_server.push(REPLY)
    stream = await client.aio.models.generate_content_stream(model=MODEL, contents="weather?")
    chunks = [chunk async for chunk in stream]

    assert len(chunks) > 5 and all(isinstance(c, types.GenerateContentResponse) for c in chunks)
    parts = [p for c in chunks for p in (c.candidates[0].content.parts or [])]  # type: ignore[index,union-attr]
    thoughts = [p for p in parts if p.thought]
    assert "".join(p.text or "" for p in thoughts) == REPLY.thinking
    assert thoughts[-1].thought_signature == b"a thought signature"
    text = "".join(p.text or "" for p in parts if p.text and not p.thought)
    assert text == REPLY.text
    calls = [p for p in parts if p.function_call]
    assert [(p.function_call.name, p.function_call.args) for p in calls] == [  # type: ignore[union-attr]
        ("weather", {"city": "Paris"}),
        ("weather", {"city": "Oslo"}),
    ]
    assert calls[0].thought_signature and calls[1].thought_signature is None
    assert calls[0].function_call.id is None  # type: ignore[union-attr]  # Gemini sends no ids
    last = chunks[-1]
    assert last.candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore[index]
    assert all(c.candidates[0].finish_reason is None for c in chunks[:-1])  # type: ignore[index]
    assert last.response_id == "resp-1" and last.model_version == MODEL
    _check_usage(last.usage_metadata)


async def test_frames_are_crlf_delimited_sse(fake_server: FakeProviderServer) -> None:
    import httpx2

    fake_server.push(Reply(text="hi"))
    url = f"{fake_server.url}/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
    async with httpx2.AsyncClient() as http:
        response = await http.post(url, json={"contents": []})
    assert response.headers["content-type"] == "text/event-stream"
    frames = response.content.split(b"\r\n\r\n")
    assert frames[-1] == b"" and all(f.startswith(b"data: {") for f in frames[:-1])


async def test_non_streamed_response_parses(
    client: genai.Client, fake_server: FakeProviderServer
) -> None:
    fake_server.push(REPLY)
    response = await client.aio.models.generate_content(model=MODEL, contents="weather?")

    assert fake_server.requests[-1].path.endswith(":generateContent")
    parts = response.candidates[0].content.parts  # type: ignore[index,union-attr]
    assert parts[0].thought and parts[0].text == REPLY.thinking  # type: ignore[index]
    assert parts[1].text == REPLY.text  # type: ignore[index]
    assert [c.args for c in response.function_calls or []] == [{"city": "Paris"}, {"city": "Oslo"}]
    assert response.candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore[index]
    _check_usage(response.usage_metadata)


def _check_usage(usage: types.GenerateContentResponseUsageMetadata | None) -> None:
    """Gemini's convention: the prompt includes the cache; candidates exclude the thoughts."""
    assert usage is not None
    assert usage.prompt_token_count == 1000
    assert usage.cached_content_token_count == 600
    assert usage.candidates_token_count == 200
    assert usage.thoughts_token_count == 100
    assert usage.total_token_count == 1300


@pytest.mark.parametrize(
    ("step", "code", "status"),
    [
        (rate_limited(3), 429, "RESOURCE_EXHAUSTED"),
        (quota_exhausted(), 429, "RESOURCE_EXHAUSTED"),
        (context_length(), 400, "INVALID_ARGUMENT"),
    ],
)
async def test_error_bodies_parse_as_sdk_errors(
    client: genai.Client, fake_server: FakeProviderServer, step: Any, code: int, status: str
) -> None:
    fake_server.push(step)
    with pytest.raises(errors.ClientError) as info:
        await client.aio.models.generate_content(model=MODEL, contents="hi")
    assert info.value.code == code and info.value.status == status
    details = info.value.details["error"].get("details", [])
    if code == 400:
        assert "input token count" in (info.value.message or "")
    kinds = {d["@type"].rsplit(".", 1)[-1] for d in details}
    if step.error_type == "insufficient_quota":
        quota = next(d for d in details if d["@type"].endswith("QuotaFailure"))
        assert "PerDay" in quota["violations"][0]["quotaId"] and "RetryInfo" not in kinds
    elif code == 429:
        retry = next(d for d in details if d["@type"].endswith("RetryInfo"))
        assert retry["retryDelay"] == "3s"


async def test_in_stream_error_raises_sdk_error(
    client: genai.Client, fake_server: FakeProviderServer
) -> None:
    fake_server.push(error_event(after=1, error_type="overloaded_error", message="Overloaded"))
    stream = await client.aio.models.generate_content_stream(model=MODEL, contents="hi")
    first = await anext(stream)
    assert first.text
    with pytest.raises(errors.ServerError) as info:
        await anext(stream)
    assert info.value.code == 503 and info.value.status == "UNAVAILABLE"


async def test_tool_results_read_from_sdk_requests(
    client: genai.Client, fake_server: FakeProviderServer
) -> None:
    fake_server.push(Reply(text="done"))
    call = types.Part.from_function_call(name="weather", args={"city": "Paris"})
    contents = [
        types.Content(role="user", parts=[types.Part.from_text(text="weather?")]),
        types.Content(role="model", parts=[call]),
        types.Content(
            role="user",
            parts=[
                types.Part.from_function_response(name="weather", response={"output": "sunny"}),
                types.Part.from_function_response(name="weather", response={"error": "no data"}),
            ],
        ),
    ]
    response = await client.aio.models.generate_content(model=MODEL, contents=contents)

    assert response.text == "done"
    recorded = fake_server.requests[-1]
    assert recorded.tool_results == ("sunny", "no data")
    assert recorded.headers["x-goog-api-key"] == "test-key"
    assert json.loads(recorded.body)["contents"][2]["role"] == "user"
