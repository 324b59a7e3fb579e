"""The fake Anthropic wire format, checked by the official SDK's own parsers: if the SDK turns
every event and body into its typed objects with the right content, the fake speaks the real
format."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anthropic
import pytest

from taor.llm.response import Usage
from taor.testing import FakeProviderServer, Reply, ToolCall, error_event, rate_limited
from taor.testing.script import HttpError

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
async def client(fake_server: FakeProviderServer) -> AsyncIterator[anthropic.AsyncAnthropic]:
    sdk = anthropic.AsyncAnthropic(
        api_key="test-key", base_url=fake_server.base_url("anthropic"), max_retries=0
    )
    yield sdk
    await sdk.close()


def reply() -> Reply:
    return Reply(
        thinking="Two tools are needed.",
        signature="c2lnbmF0dXJl",
        text="Let me look.",
        tool_calls=(
            ToolCall(name="read_file", arguments={"path": "a.py"}, id="toolu_a"),
            ToolCall(name="shell", arguments={"cmd": "ls -la"}, id="toolu_b"),
        ),
        usage=Usage(
            input_tokens=1000, cache_read_tokens=600, cache_write_tokens=100, output_tokens=42
        ),
        chunk=5,
    )


async def test_sdk_stream_helper_parses_every_event(
    fake_server: FakeProviderServer, client: anthropic.AsyncAnthropic
) -> None:
    fake_server.push(reply())
    seen: list[str] = []
    async with client.messages.stream(
        model="claude-sonnet-5-5", max_tokens=1024, messages=MESSAGES
    ) as stream:
        async for event in stream:
            seen.append(event.type)
        final = await stream.get_final_message()
    assert seen[0] == "message_start" and seen[-1] == "message_stop"
    assert {"thinking", "signature", "text", "input_json"} <= set(seen)
    thinking, text, first, second = final.content
    assert (thinking.type, thinking.thinking, thinking.signature) == (
        "thinking",
        "Two tools are needed.",
        "c2lnbmF0dXJl",
    )
    assert (text.type, text.text) == ("text", "Let me look.")
    assert (first.id, first.name, first.input) == ("toolu_a", "read_file", {"path": "a.py"})
    assert (second.id, second.name, second.input) == ("toolu_b", "shell", {"cmd": "ls -la"})
    assert final.stop_reason == "tool_use"
    assert final.model == "claude-sonnet-5-5"
    usage = final.usage
    assert (usage.input_tokens, usage.cache_read_input_tokens) == (300, 600)
    assert (usage.cache_creation_input_tokens, usage.output_tokens) == (100, 42)


async def test_sdk_raw_stream_events_are_typed(
    fake_server: FakeProviderServer, client: anthropic.AsyncAnthropic
) -> None:
    fake_server.push(Reply(text="Hello, world.", chunk=4))
    stream = await client.messages.create(
        model="claude-haiku-4-5", max_tokens=64, messages=MESSAGES, stream=True
    )
    events = [event async for event in stream]
    kinds = [type(event).__name__ for event in events]
    assert kinds[0] == "RawMessageStartEvent"
    assert kinds[1] == "RawContentBlockStartEvent"
    assert kinds[-2:] == ["RawMessageDeltaEvent", "RawMessageStopEvent"]
    text = "".join(e.delta.text for e in events if e.type == "content_block_delta")
    assert text == "Hello, world."
    assert events[-2].delta.stop_reason == "end_turn"


async def test_sdk_parses_the_non_streamed_body(
    fake_server: FakeProviderServer, client: anthropic.AsyncAnthropic
) -> None:
    fake_server.push(reply())
    message = await client.messages.create(
        model="claude-sonnet-5-5", max_tokens=1024, messages=MESSAGES
    )
    assert [block.type for block in message.content] == ["thinking", "text", "tool_use", "tool_use"]
    assert message.content[2].input == {"path": "a.py"}
    assert message.stop_reason == "tool_use"
    assert message.usage.input_tokens == 300
    assert message.usage.cache_read_input_tokens == 600


@pytest.mark.parametrize(
    ("step", "exception", "error_type"),
    [
        (HttpError(status=400, message="bad"), anthropic.BadRequestError, "invalid_request_error"),
        (HttpError(status=401), anthropic.AuthenticationError, "authentication_error"),
        (HttpError(status=403), anthropic.PermissionDeniedError, "permission_error"),
        (HttpError(status=404), anthropic.NotFoundError, "not_found_error"),
        (HttpError(status=413), anthropic.APIStatusError, "request_too_large"),
        (rate_limited(3), anthropic.RateLimitError, "rate_limit_error"),
        (HttpError(status=500), anthropic.InternalServerError, "api_error"),
        (HttpError(status=529), anthropic.OverloadedError, "overloaded_error"),
        (
            HttpError(status=400, message="prompt is too long", error_type="context_length"),
            anthropic.BadRequestError,
            "invalid_request_error",
        ),
    ],
)
async def test_error_bodies_have_anthropic_shape(
    fake_server: FakeProviderServer,
    client: anthropic.AsyncAnthropic,
    step: HttpError,
    exception: type[Exception],
    error_type: str,
) -> None:
    fake_server.push(step)
    with pytest.raises(exception) as info:
        await client.messages.create(model="claude-haiku-4-5", max_tokens=64, messages=MESSAGES)
    body = info.value.body  # type: ignore[attr-defined]
    assert body["type"] == "error"
    assert body["error"] == {"type": error_type, "message": step.message}
    assert info.value.status_code == step.status  # type: ignore[attr-defined]


async def test_in_stream_error_event_is_raised_by_the_sdk(
    fake_server: FakeProviderServer, client: anthropic.AsyncAnthropic
) -> None:
    fake_server.push(error_event(after=3))

    async def consume() -> None:
        async with client.messages.stream(
            model="claude-haiku-4-5", max_tokens=64, messages=MESSAGES
        ) as stream:
            async for _ in stream:
                pass

    with pytest.raises(anthropic.APIStatusError) as info:
        await consume()
    assert info.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]


def test_tool_results_are_read_from_user_messages() -> None:
    from taor.testing.wire.anthropic import AnthropicWire

    body = {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "a", "name": "x", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "plain"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "b",
                        "content": [{"type": "text", "text": "blocks"}],
                    },
                    {"type": "text", "text": "not a result"},
                ],
            },
        ]
    }
    assert AnthropicWire().tool_results(body) == ["plain", "blocks"]


async def test_cache_reads_need_a_cache_control_breakpoint(
    fake_server: FakeProviderServer, client: anthropic.AsyncAnthropic
) -> None:
    long_prompt = "x" * 20_000  # well over Anthropic's 1024-token minimum
    plain = [{"role": "user", "content": long_prompt}]
    marked = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": long_prompt, "cache_control": {"type": "ephemeral"}}
            ],
        }
    ]
    fake_server.push(Reply(text="a"), Reply(text="b"), Reply(text="c"), Reply(text="d"))
    reads = []
    for messages in (plain, plain, marked, marked):
        message = await client.messages.create(
            model="claude-haiku-4-5", max_tokens=64, messages=messages
        )
        reads.append(message.usage.cache_read_input_tokens)
    assert reads[:3] == [0, 0, 0]  # the second repeats the first, but has no breakpoint
    assert reads[3] >= 1024
