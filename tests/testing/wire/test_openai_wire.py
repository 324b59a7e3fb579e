"""The fake OpenAI Responses wire format, checked by the official SDK's own parsers: if the SDK
turns every event and body into its typed objects (and its stream helper, which checks item
identities, accepts the sequence), the fake speaks the real format."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import openai
import pytest
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseReasoningItem,
)

from taor.llm.response import Usage
from taor.testing import (
    FakeProviderServer,
    HttpError,
    Reply,
    ToolCall,
    context_length,
    error_event,
    quota_exhausted,
    rate_limited,
    server_error,
    unauthorized,
)

REASONING = {"effort": "low", "summary": "auto"}
INCLUDE = ["reasoning.encrypted_content"]
TOOL = {
    "type": "function",
    "name": "read_file",
    "description": "Read a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    "strict": False,
}


@pytest.fixture
async def client(fake_server: FakeProviderServer) -> AsyncIterator[openai.AsyncOpenAI]:
    sdk = openai.AsyncOpenAI(
        api_key="sk-test", base_url=fake_server.base_url("openai"), max_retries=0
    )
    yield sdk
    await sdk.close()


def reply() -> Reply:
    return Reply(
        thinking="Two tools are needed.",
        signature="gAAAAA-encrypted",
        text="Let me look.",
        tool_calls=(
            ToolCall(name="read_file", arguments={"path": "a.py"}, id="call_a"),
            ToolCall(name="read_file", arguments={"path": "b.py"}),
        ),
        usage=Usage(input_tokens=1000, cache_read_tokens=640, output_tokens=42, reasoning_tokens=9),
        chunk=4,
    )


async def test_sdk_stream_helper_parses_every_event(fake_server, client) -> None:
    fake_server.push(reply())
    seen: list[str] = []
    numbers: list[int] = []
    async with client.responses.stream(
        model="gpt-5.1", input="hi", tools=[TOOL], reasoning=REASONING, include=INCLUDE
    ) as stream:
        async for event in stream:
            assert isinstance(event, openai.BaseModel), event  # typed, not a dict
            seen.append(event.type)
            numbers.append(event.sequence_number)
        final = await stream.get_final_response()
    assert numbers == list(range(len(numbers)))
    assert seen[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert seen[-1] == "response.completed"
    assert {
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
    } <= set(seen)
    reasoning, message, first, second = final.output
    assert isinstance(reasoning, ResponseReasoningItem)
    assert reasoning.summary[0].text == "Two tools are needed."
    assert reasoning.encrypted_content == "gAAAAA-encrypted"
    assert isinstance(message, ResponseOutputMessage) and final.output_text == "Let me look."
    assert isinstance(first, ResponseFunctionToolCall) and isinstance(
        second, ResponseFunctionToolCall
    )
    assert (first.call_id, first.name, json.loads(first.arguments)) == (
        "call_a",
        "read_file",
        {"path": "a.py"},
    )
    assert second.call_id.startswith("call_") and second.id.startswith("fc_")
    assert final.usage is not None
    assert final.usage.input_tokens == 1000
    assert final.usage.input_tokens_details.cached_tokens == 640
    assert final.usage.output_tokens_details.reasoning_tokens == 9
    assert final.status == "completed" and final.model == "gpt-5.1"


async def test_sdk_raw_stream_events_are_typed(fake_server, client) -> None:
    fake_server.push(Reply(text="plain", chunk=2))
    stream = await client.responses.create(model="gpt-4o", input="hi", stream=True)
    events = [event async for event in stream]
    assert isinstance(events[-1], ResponseCompletedEvent)
    deltas = [ev for ev in events if ev.type == "response.output_text.delta"]
    assert "".join(d.delta for d in deltas) == "plain"
    assert all(d.obfuscation for d in deltas)
    assert events[-1].response.output_text == "plain"


async def test_encrypted_content_only_when_included(fake_server, client) -> None:
    fake_server.push(Reply(thinking="hm", signature="secret", text="ok"))
    async with client.responses.stream(model="gpt-5.1", input="hi") as stream:
        final = await stream.get_final_response()
    assert final.output[0].type == "reasoning"
    assert final.output[0].encrypted_content is None


async def test_sdk_parses_non_streamed_body(fake_server, client) -> None:
    fake_server.push(reply())
    response = await client.responses.create(model="gpt-5.1", input="hi", include=INCLUDE)
    assert response.output_text == "Let me look."
    assert [item.type for item in response.output] == [
        "reasoning",
        "message",
        "function_call",
        "function_call",
    ]
    assert response.usage is not None and response.usage.total_tokens == 1042


@pytest.mark.parametrize(
    ("finish", "status", "reason"),
    [("length", "incomplete", "max_output_tokens"), ("content_filter", "incomplete", None)],
)
async def test_incomplete_replies(fake_server, client, finish, status, reason) -> None:
    fake_server.push(Reply(text="cut", finish=finish))
    response = await client.responses.create(model="gpt-5.1", input="hi")
    assert response.status == status
    assert response.incomplete_details is not None
    assert response.incomplete_details.reason == (reason or finish)


@pytest.mark.parametrize(
    ("step", "sdk_error", "code"),
    [
        (unauthorized("Incorrect API key provided"), openai.AuthenticationError, "invalid_api_key"),
        (HttpError(status=403, message="forbidden"), openai.PermissionDeniedError, None),
        (HttpError(status=404, message="no such model"), openai.NotFoundError, "model_not_found"),
        (context_length(), openai.BadRequestError, "context_length_exceeded"),
        (rate_limited(3), openai.RateLimitError, "rate_limit_exceeded"),
        (quota_exhausted(), openai.RateLimitError, "insufficient_quota"),
        (HttpError(status=429, message="x", error_type="custom"), openai.RateLimitError, "custom"),
        (server_error(), openai.InternalServerError, None),
    ],
)
async def test_sdk_parses_error_bodies(fake_server, client, step, sdk_error, code) -> None:
    fake_server.push(step)
    with pytest.raises(sdk_error) as info:
        await client.responses.create(model="gpt-5.1", input="hi")
    assert info.value.code == code
    assert info.value.message.endswith(step.message)
    assert info.value.body["message"] == step.message
    if step.retry_after:
        assert info.value.response.headers["retry-after"] == step.retry_after


async def test_sdk_raises_in_stream_error_event(fake_server, client) -> None:
    fake_server.push(error_event(after=3, error_type="server_error", message="boom"))

    async def drain() -> None:
        async with client.responses.stream(model="gpt-5.1", input="hi") as stream:
            async for _ in stream:
                pass

    with pytest.raises(openai.APIError, match="boom") as info:
        await drain()
    assert info.value.body == {
        "type": "server_error",
        "code": "server_error",
        "message": "boom",
        "param": None,
    }


async def test_response_failed_ends_a_failed_reply(fake_server, client) -> None:
    fake_server.push(Reply(text="partial", finish="error"))
    stream = await client.responses.create(model="gpt-5.1", input="hi", stream=True)
    events = [event async for event in stream]
    assert events[-1].type == "response.failed"
    assert events[-1].response.error is not None
    assert events[-1].response.error.code == "server_error"


async def test_tool_results_are_read_from_function_call_outputs(fake_server, client) -> None:
    fake_server.push(Reply(text="done"))
    await client.responses.create(
        model="gpt-5.1",
        input=[
            {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "plain text"},
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": [{"type": "input_text", "text": "with an image"}],
            },
        ],
    )
    assert fake_server.requests[-1].tool_results == ("plain text", "with an image")
    assert fake_server.requests[-1].wire == "openai"
