"""The Anthropic adapter against the fake server on loopback."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from taor import errors as e
from taor.llm import (
    ImagePart,
    Message,
    RetryInfo,
    TextPart,
    ThinkingPart,
    Timeouts,
    ToolCallPart,
    ToolChoice,
    Usage,
    complete,
    connect,
    tool_result,
)
from taor.llm.adapters.anthropic import AnthropicModel
from taor.llm.events import TextDelta
from taor.testing import (
    FakeProviderServer,
    HttpError,
    Reply,
    ToolCall,
    context_length,
    disconnect,
    error_event,
    malformed,
    overloaded,
    quota_exhausted,
    rate_limited,
    server_error,
    stall,
    unauthorized,
)

from .support import ONCE, READ, SHELL, ask, body_of


@pytest.fixture
async def model(fake_server: FakeProviderServer) -> AsyncIterator[AnthropicModel]:
    adapter = AnthropicModel(
        "claude-haiku-4-5",
        api_key="test-key",
        base_url=fake_server.base_url("anthropic"),
        timeouts=Timeouts(idle=0.3),
    )
    yield adapter
    await adapter.aclose()


# -- responses ------------------------------------------------------------------------------


async def test_text_stream(model: AnthropicModel, fake_server: FakeProviderServer) -> None:
    fake_server.push(Reply(text="Hello from the fake Claude.", chunk=5))
    events = [event async for event in model.stream(ask())]
    deltas = [event.text for event in events if isinstance(event, TextDelta)]
    assert len(deltas) == 6 and "".join(deltas) == "Hello from the fake Claude."
    fake_server.push(Reply(text="Hello again."))
    response = await complete(model, ask())
    assert response.text == "Hello again."
    assert (response.finish_reason.reason, response.finish_reason.raw) == ("stop", "end_turn")
    assert response.model == "claude-haiku-4-5" and response.provider == "anthropic"
    assert response.id and response.id.startswith("msg_")


async def test_one_tool_call(model: AnthropicModel, fake_server: FakeProviderServer) -> None:
    call = ToolCall(name="read_file", arguments={"path": "src/app.py"}, id="toolu_1")
    fake_server.push(Reply(text="Reading.", tool_calls=(call,), chunk=3))
    response = await complete(model, ask(tools=(READ,)))
    (part,) = response.tool_calls
    assert (part.id, part.name, part.arguments) == ("toolu_1", "read_file", {"path": "src/app.py"})
    assert part.raw_arguments == '{"path":"src/app.py"}'
    assert response.text == "Reading."
    assert (response.finish_reason.reason, response.finish_reason.raw) == ("tool_calls", "tool_use")


async def test_parallel_tool_calls_keep_their_order(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    calls = tuple(
        ToolCall(name=name, arguments=args, id=f"toolu_{i}")
        for i, (name, args) in enumerate(
            [("read_file", {"path": "a"}), ("shell", {"cmd": "ls"}), ("read_file", {"path": "b"})]
        )
    )
    fake_server.push(Reply(tool_calls=calls, chunk=4))
    response = await complete(model, ask(tools=(READ, SHELL)))
    got = [(c.id, c.name, dict(c.arguments)) for c in response.tool_calls]
    assert got == [(c.id, c.name, c.arguments) for c in calls]


async def test_tool_results_go_back_first_with_following_user_text_merged(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    calls = (ToolCall(name="read_file", arguments={"path": "a"}), ToolCall(name="shell"))
    fake_server.push(Reply(tool_calls=calls))
    first = await complete(model, ask(tools=(READ, SHELL)))
    a, b = first.tool_calls
    image = ImagePart(data=b"\x89PNG fake", media_type="image/png")
    results = Message.tool_results(
        tool_result(a.id, "contents of a"),
        tool_result(b.id, [TextPart(text="exit 1"), image], is_error=True),
    )
    history = (Message.user("hi"), first.message, results, Message.user("also check b"))
    body = await body_of(model, fake_server, ask(*history, tools=(READ, SHELL)))
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    turn = body["messages"][2]["content"]
    assert [block["type"] for block in turn] == ["tool_result", "tool_result", "text"]
    assert turn[0] == {
        "type": "tool_result",
        "tool_use_id": a.id,
        "content": [{"type": "text", "text": "contents of a"}],
    }
    assert turn[1]["is_error"] is True
    assert turn[1]["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": "iVBORyBmYWtl",
    }
    assert turn[2]["text"] == "also check b"
    assert "cache_control" in turn[2]  # the rolling breakpoint sits on the merged turn's end
    assert fake_server.requests[-1].tool_results == ("contents of a", "exit 1")
    assert body["messages"][1]["content"][0]["input"] == {"path": "a"}


async def test_thinking_round_trips_verbatim(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(
        Reply(
            thinking="I should list files.",
            signature="EqQBCkYIBRgC==",
            tool_calls=(ToolCall(name="shell"),),
        )
    )
    first = await complete(model, ask(tools=(SHELL,)))
    thinking = first.message.parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert (thinking.text, thinking.signature, thinking.provider) == (
        "I should list files.",
        "EqQBCkYIBRgC==",
        "anthropic",
    )
    redacted = ThinkingPart(signature="UkVEQUNURUQ=", redacted=True, provider="anthropic")
    assistant = Message(
        role="assistant", parts=(*first.message.parts[:1], redacted, *first.message.parts[1:])
    )
    results = Message.tool_results(tool_result(first.tool_calls[0].id, "a.py"))
    request = ask(Message.user("hi"), assistant, results, tools=(SHELL,), reasoning_effort="low")
    body = await body_of(model, fake_server, request)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    blocks = body["messages"][1]["content"]
    assert blocks[0] == {
        "type": "thinking",
        "thinking": "I should list files.",
        "signature": "EqQBCkYIBRgC==",
    }
    assert blocks[1] == {"type": "redacted_thinking", "data": "UkVEQUNURUQ="}
    assert blocks[2]["type"] == "tool_use"


async def test_usage_is_normalized_with_cache_counts(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    usage = Usage(
        input_tokens=5000, cache_read_tokens=3000, cache_write_tokens=1500, output_tokens=120
    )
    fake_server.push(Reply(text="cached", usage=usage))
    response = await complete(model, ask())
    # on the wire: Anthropic's convention, input_tokens counts only the 500 uncached tokens
    assert response.usage == usage
    assert response.usage.uncached_input_tokens == 500


async def test_replayed_real_stream_with_redacted_thinking_and_reported_reasoning() -> None:
    """A recorded-shape stream (cumulative usage on message_delta, output_tokens_details,
    redacted thinking, refusal) served through a transport, not the fake server."""
    frames = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-opus-4-5",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": 92,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 0,
                        "output_tokens": 1,
                    },
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "redacted_thinking", "data": "EqkECkYIBxgC"},
            },
        ),
        ("ping", {"type": "ping"}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "text_delta", "text": "I can't help with that."},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "refusal", "stop_sequence": None},
                "usage": {
                    "input_tokens": 92,
                    "cache_creation_input_tokens": 10,
                    "cache_read_input_tokens": 400,
                    "output_tokens": 189,
                    "output_tokens_details": {"thinking_tokens": 150},
                },
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    body = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in frames)

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == "/v1/messages"
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=body.encode()
        )

    adapter = AnthropicModel(
        "claude-opus-4-5",
        api_key="k",
        base_url="http://127.0.0.1:9",
        transport=httpx2.MockTransport(handler),
    )
    try:
        response = await complete(adapter, ask())
    finally:
        await adapter.aclose()
    thinking, text = response.message.parts
    assert isinstance(thinking, ThinkingPart) and thinking.redacted
    assert (thinking.signature, thinking.text) == ("EqkECkYIBxgC", "")
    assert text == TextPart(text="I can't help with that.")
    assert (response.finish_reason.reason, response.finish_reason.raw) == (
        "content_filter",
        "refusal",
    )
    assert response.usage == Usage(
        input_tokens=502,
        cache_read_tokens=400,
        cache_write_tokens=10,
        output_tokens=189,
        reasoning_tokens=150,
    )


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "error", "retry_after"),
    [
        (unauthorized(), e.AuthenticationError, None),
        (HttpError(status=403, message="no access to this model"), e.PermissionDeniedError, None),
        (HttpError(status=404, message="model: claude-nope"), e.ModelNotFoundError, None),
        (context_length(), e.ContextLengthError, None),
        (rate_limited(7), e.RateLimitError, 7.0),
        (quota_exhausted(), e.QuotaExhaustedError, None),
        (overloaded(), e.OverloadedError, None),
        (HttpError(status=529, message="Overloaded"), e.OverloadedError, None),
        (server_error(), e.ServerError, None),
        (HttpError(status=413, message="request too large"), e.InvalidRequestError, None),
        (error_event(after=4), e.OverloadedError, None),
        (error_event(after=6, error_type="api_error", message="boom"), e.ServerError, None),
    ],
)
async def test_error_mapping(
    model: AnthropicModel,
    fake_server: FakeProviderServer,
    step: Any,
    error: type,
    retry_after: float | None,
) -> None:
    fake_server.push(step)
    with pytest.raises(error) as info:
        await complete(model, ask(), retry=ONCE)
    assert type(info.value) is error
    assert info.value.provider == "anthropic"
    assert info.value.retry_after == retry_after


async def test_malformed_chunk_is_a_clear_stream_error(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(malformed(after=5))
    with pytest.raises(e.StreamInterruptedError, match="malformed stream event"):
        await complete(model, ask(), retry=ONCE)


async def test_retry_honours_retry_after(
    model: AnthropicModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(rate_limited(2), Reply(text="after the wait"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "after the wait"
    assert no_sleep.delays == [2.0]
    assert len(fake_server.requests) == 2


async def test_a_stream_broken_after_content_is_asked_again_from_the_start(
    model: AnthropicModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(
        disconnect(after=6, reply=Reply(text="a long answer cut short", chunk=3)), Reply(text="x")
    )
    seen: list[RetryInfo] = []
    response = await complete(model, ask(), on_retry=seen.append, sleep=no_sleep)
    assert response.text == "x"  # nothing of the broken attempt is kept
    assert len(fake_server.requests) == 2 and [i.discarded for i in seen] == [True]


async def test_disconnect_before_the_first_byte_is_retried(
    model: AnthropicModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(disconnect(after=0), Reply(text="second try"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "second try"
    assert len(fake_server.requests) == 2 and len(no_sleep.delays) == 1


async def test_idle_timeout(model: AnthropicModel, fake_server: FakeProviderServer) -> None:
    fake_server.push(stall(1.0, after=4))
    with pytest.raises(e.IdleTimeoutError):
        await complete(model, ask(), retry=ONCE)


async def test_oversized_inline_image_is_refused_before_sending(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    image = ImagePart(data=b"\0" * (4 * 2**20), media_type="image/jpeg")
    with pytest.raises(e.InvalidRequestError, match=r"5 MB.*resize"):
        await complete(model, ask(Message.user("look", image)), retry=ONCE)
    assert fake_server.requests == []


# -- request bodies -------------------------------------------------------------------------


async def test_body_shape_system_tools_and_defaults(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    history = (Message.system("Also: be brief."), Message.user("hi"), Message.user("there"))
    body = await body_of(
        model,
        fake_server,
        ask(
            *history,
            system="You are a coding agent.",
            tools=(READ,),
            temperature=0.2,
            stop=("END",),
            metadata={"user_id": "u-1", "trace": "t"},
        ),
    )
    assert body["model"] == "claude-haiku-4-5" and body["stream"] is True
    assert body["max_tokens"] == 64_000  # the catalog's max_output, not a fixed 4096
    assert [b["text"] for b in body["system"]] == ["You are a coding agent.", "Also: be brief."]
    assert body["tools"][0]["name"] == "read_file"
    assert body["tools"][0]["input_schema"] == dict(READ.parameters)
    assert body["tool_choice"] == {"type": "auto"}
    assert (body["temperature"], body["stop_sequences"]) == (0.2, ["END"])
    assert body["metadata"] == {"user_id": "u-1"}
    assert "thinking" not in body
    assert [m["role"] for m in body["messages"]] == ["user"]  # consecutive users merged
    assert [b["text"] for b in body["messages"][0]["content"]] == ["hi", "there"]


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        (ToolChoice(mode="auto"), {"type": "auto"}),
        (ToolChoice(mode="required"), {"type": "any"}),
        (ToolChoice(mode="named", name="shell"), {"type": "tool", "name": "shell"}),
        (ToolChoice(mode="none"), {"type": "none"}),
    ],
)
async def test_tool_choice_modes(
    model: AnthropicModel, fake_server: FakeProviderServer, choice: ToolChoice, wire: dict[str, str]
) -> None:
    body = await body_of(model, fake_server, ask(tools=(READ, SHELL), tool_choice=choice))
    assert body["tool_choice"] == wire
    assert [t["name"] for t in body["tools"]] == ["read_file", "shell"]  # kept even for none


@pytest.mark.parametrize(
    ("model_id", "effort", "max_tokens", "expected"),
    [
        ("claude-haiku-4-5", "low", None, {"thinking": {"type": "enabled", "budget_tokens": 2048}}),
        (
            "claude-haiku-4-5",
            "xhigh",
            None,
            {"thinking": {"type": "enabled", "budget_tokens": 32000}},
        ),
        (
            "claude-haiku-4-5",
            "high",
            4000,
            {"thinking": {"type": "enabled", "budget_tokens": 3999}},
        ),
        ("claude-haiku-4-5", "high", 1000, {}),  # no room for the 1024-token minimum
        (
            "claude-opus-4-7",
            "medium",
            None,
            {"thinking": {"type": "adaptive"}, "output_config": {"effort": "medium"}},
        ),
        ("claude-3-unknown", "high", None, {}),  # the catalog does not know it reasons
    ],
)
async def test_reasoning_effort(
    fake_server: FakeProviderServer,
    model_id: str,
    effort: Any,
    max_tokens: int | None,
    expected: dict[str, Any],
) -> None:
    adapter = AnthropicModel(model_id, api_key="k", base_url=fake_server.base_url("anthropic"))
    try:
        request = ask(
            reasoning_effort=effort,
            max_tokens=max_tokens,
            temperature=0.5,
            tools=(SHELL,),
            tool_choice=ToolChoice(mode="required"),
        )
        body = await body_of(adapter, fake_server, request)
    finally:
        await adapter.aclose()
    assert {k: body[k] for k in ("thinking", "output_config") if k in body} == expected
    thinking_on = bool(expected)
    assert ("temperature" in body) is not thinking_on
    assert body["tool_choice"] == ({"type": "auto"} if thinking_on else {"type": "any"})
    if model_id == "claude-3-unknown":
        assert body["max_tokens"] == 8_192  # the catalog's default for unknown models


async def test_images_inline_and_by_url(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    message = Message.user(
        "what is this?",
        ImagePart(data=b"GIF89a", media_type="image/gif"),
        ImagePart(url="https://example.com/cat.png"),
    )
    body = await body_of(model, fake_server, ask(message))
    text, inline, remote = body["messages"][0]["content"]
    assert text == {"type": "text", "text": "what is this?"}
    assert inline == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/gif", "data": "R0lGODlh"},
    }
    assert remote["source"] == {"type": "url", "url": "https://example.com/cat.png"}


async def test_provider_options_merge_and_beta_headers(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    options = {
        "anthropic": {
            "top_k": 5,
            "beta_headers": ["interleaved-thinking-2025-05-14", "context-1m-2025-08-07"],
            "auto_cache": False,
        },
        "openai": {"store": True},
    }
    body = await body_of(
        model, fake_server, ask(system="sys", tools=(READ,), provider_options=options)
    )
    assert body["top_k"] == 5
    assert not {"beta_headers", "auto_cache", "store"} & set(body)
    assert b"cache_control" not in fake_server.requests[-1].body
    beta = fake_server.requests[-1].headers["anthropic-beta"]
    assert beta == "interleaved-thinking-2025-05-14,context-1m-2025-08-07"


def breakpoints(body: Any) -> list[str]:
    found = [f"tools[{i}]" for i, t in enumerate(body.get("tools", [])) if "cache_control" in t]
    found += [f"system[{i}]" for i, b in enumerate(body.get("system", [])) if "cache_control" in b]
    for i, message in enumerate(body["messages"]):
        found += [
            f"messages[{i}][{j}]" for j, b in enumerate(message["content"]) if "cache_control" in b
        ]
    return found


async def test_cache_breakpoints_roll_with_the_conversation(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    calls = (
        ToolCall(name="shell", arguments={"cmd": "ls"}),
        ToolCall(name="shell", arguments={"cmd": "pwd"}),
    )
    fake_server.push(Reply(tool_calls=calls))
    history: tuple[Message, ...] = (Message.user("start " * 2000),)
    first = await complete(model, ask(*history, system="sys", tools=(READ, SHELL)))
    assert breakpoints(fake_server.requests[-1].json) == ["tools[1]", "system[0]", "messages[0][0]"]
    results = Message.tool_results(*(tool_result(c.id, "out") for c in first.tool_calls))
    history += (first.message, results)
    fake_server.push(Reply(text="done"))
    done = await complete(model, ask(*history, system="sys", tools=(READ, SHELL)))
    second = fake_server.requests[-1]
    # only the newest block: where the last request wrote is 4 blocks back, inside the lookback
    assert breakpoints(second.json) == ["tools[1]", "system[0]", "messages[2][1]"]
    assert done.usage.cache_read_tokens >= 1024  # the fake simulates the shared prefix
    # the previous request's body, up to its breakpoint, starts this one (the marker aside)
    marker = b',"cache_control":{"type":"ephemeral"}'
    before = fake_server.requests[-2].body
    assert second.body.replace(marker, b"").startswith(
        before[: before.rindex(marker)].replace(marker, b"")
    )
    history += (done.message, Message.user("thanks"))
    await body_of(model, fake_server, ask(*history, system="sys", tools=(READ, SHELL)))
    third = breakpoints(fake_server.requests[-1].json)
    assert third == ["tools[1]", "system[0]", "messages[4][0]"]  # none left over


async def test_a_long_round_also_marks_where_the_last_request_wrote(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    """More blocks than ``LOOKBACK_BLOCKS`` since the previous user turn: Anthropic would not
    look back that far from the newest breakpoint, so the previous turn's end is marked too."""
    calls = tuple(ToolCall(name="shell", arguments={"cmd": f"ls {n}"}) for n in range(5))
    fake_server.push(Reply(text="Listing.", tool_calls=calls))
    history: tuple[Message, ...] = (Message.user("start"),)
    first = await complete(model, ask(*history, system="sys", tools=(SHELL,)))
    results = Message.tool_results(*(tool_result(c.id, "out") for c in first.tool_calls))
    history += (first.message, results)
    await body_of(model, fake_server, ask(*history, system="sys", tools=(SHELL,)))
    marks = breakpoints(fake_server.requests[-1].json)
    assert marks == ["tools[0]", "system[0]", "messages[0][0]", "messages[2][4]"]


async def test_fragment_cache_does_not_change_the_bytes(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    history = (Message.user("one"), Message.assistant("two"), Message.user("three"))
    request = ask(
        *history, system="sys", tools=(READ,), provider_options={"anthropic": {"auto_cache": False}}
    )
    await body_of(model, fake_server, request)
    await body_of(model, fake_server, request)
    fresh = AnthropicModel(
        "claude-haiku-4-5", api_key="k", base_url=fake_server.base_url("anthropic")
    )
    try:
        await body_of(fresh, fake_server, request)
    finally:
        await fresh.aclose()
    first, second, third = (r.body for r in fake_server.requests)
    assert first == second == third
    longer = ask(
        *history,
        Message.assistant("four"),
        Message.user("five"),
        system="sys",
        tools=(READ,),
        provider_options=request.provider_options,
    )
    await body_of(model, fake_server, longer)
    shared = first[: first.index(b'"text":"three"}') + len(b'"text":"three"}')]
    assert fake_server.requests[-1].body.startswith(shared)


async def test_history_from_another_provider_drops_its_opaque_data(
    model: AnthropicModel, fake_server: FakeProviderServer
) -> None:
    call = ToolCallPart(
        id="fc_1",
        name="shell",
        arguments={"cmd": "ls"},
        raw_arguments='{"cmd":"ls"}',
        provider_state={"gemini": {"thought_signature": "R0VNSU5J"}},
    )
    assistant = Message(
        role="assistant",
        parts=(
            ThinkingPart(
                text="openai reasoning",
                signature="gAAAAencrypted",
                provider="openai",
                provider_state={"openai": {"id": "rs_1"}},
            ),
            ThinkingPart(text="unsigned"),
            TextPart(text="Listing.", provider_state={"gemini": {"thought_signature": "R0VN"}}),
            call,
        ),
        provider_state={"openai": {"response_id": "resp_1"}},
    )
    results = Message.tool_results(tool_result("fc_1", "a.py"))
    request = ask(Message.user("hi"), assistant, results, tools=(SHELL,), reasoning_effort="high")
    body = await body_of(model, fake_server, request)
    assert "thinking" not in body  # mid-loop without a thinking block: Anthropic would reject it
    raw = fake_server.requests[-1].body
    for secret in (b"gAAAA", b"rs_1", b"R0VN", b"resp_1", b"openai reasoning", b"unsigned"):
        assert secret not in raw
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Listing."},
        {"type": "tool_use", "id": "fc_1", "name": "shell", "input": {"cmd": "ls"}},
    ]


async def test_connect_builds_the_adapter(fake_server: FakeProviderServer) -> None:
    model = connect(
        "anthropic:claude-haiku-4-5", api_key="k", base_url=fake_server.base_url("anthropic")
    )
    fake_server.push(Reply(text="connected"))
    try:
        assert (await complete(model, ask())).text == "connected"
    finally:
        await model.aclose()
    assert fake_server.requests[-1].path == "/v1/messages"
