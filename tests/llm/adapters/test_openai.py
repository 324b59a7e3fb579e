"""The OpenAI Responses adapter against the fake server on loopback."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from taor import errors as e
from taor.llm import (
    ImagePart,
    Message,
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
from taor.llm.adapters.openai import OpenAIModel
from taor.llm.assembler import assemble
from taor.llm.events import TextDelta, ToolCallStart
from taor.llm.sse import SSEvent
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

from .support import ONCE, PNG, READ, SHELL, ask, body_of


def make(server: FakeProviderServer, model_id: str = "gpt-5.1", idle: float = 2.0) -> OpenAIModel:
    return OpenAIModel(
        model_id,
        api_key="sk-test",
        base_url=server.base_url("openai"),
        timeouts=Timeouts(idle=idle),
    )


@pytest.fixture
async def model(fake_server: FakeProviderServer) -> AsyncIterator[OpenAIModel]:
    adapter = make(fake_server)
    yield adapter
    await adapter.aclose()


# -- responses ------------------------------------------------------------------------------


async def test_text_streams_as_deltas_and_assembles(model, fake_server) -> None:
    fake_server.push(Reply(text="Hello, streaming world!", chunk=5))
    events = [ev async for ev in model.stream(ask())]
    deltas = [ev.text for ev in events if isinstance(ev, TextDelta)]
    assert deltas == ["Hello", ", str", "eamin", "g wor", "ld!"]
    assert events[0].kind == "start" and events[0].id.startswith("resp_")
    assert events[-1].kind == "finish"

    fake_server.push(Reply(text="Hello again."))
    response = await complete(model, ask(), retry=ONCE)
    assert response.text == "Hello again."
    assert response.finish_reason.reason == "stop"
    assert response.finish_reason.raw == "completed"
    assert response.model == "gpt-5.1" and response.provider == "openai"


async def test_one_tool_call(model, fake_server) -> None:
    call = ToolCall(name="read_file", arguments={"path": "src/a.py"}, id="call_abc")
    fake_server.push(Reply(text="Let me look.", tool_calls=(call,), chunk=3))
    response = await complete(model, ask(tools=(READ,)), retry=ONCE)
    assert response.text == "Let me look."
    [part] = response.tool_calls
    assert (part.id, part.name) == ("call_abc", "read_file")
    assert part.arguments == {"path": "src/a.py"}
    assert part.raw_arguments == '{"path":"src/a.py"}'
    assert response.finish_reason.reason == "tool_calls"


async def test_parallel_tool_calls_keep_order_and_pairing(model, fake_server) -> None:
    calls = tuple(ToolCall(name="read_file", arguments={"path": f"f{n}.py"}) for n in range(3))
    fake_server.push(Reply(tool_calls=(*calls, ToolCall(name="shell", arguments={"cmd": "ls"}))))
    events = [ev async for ev in model.stream(ask(tools=(READ, SHELL)))]
    starts = [ev for ev in events if isinstance(ev, ToolCallStart)]
    assert len({ev.index for ev in starts}) == 4

    fake_server.push(Reply(tool_calls=calls, chunk=2))
    response = await complete(model, ask(tools=(READ,)), retry=ONCE)
    assert [c.arguments for c in response.tool_calls] == [{"path": f"f{n}.py"} for n in range(3)]
    assert len({c.id for c in response.tool_calls}) == 3
    assert all(c.id.startswith("call_") for c in response.tool_calls)


async def test_reasoning_item_round_trips_verbatim_without_ids(model, fake_server) -> None:
    call = ToolCall(name="read_file", arguments={"path": "a"}, id="call_1")
    fake_server.push(Reply(thinking="Need the file.", signature="gAAAA-opaque", tool_calls=(call,)))
    first = await complete(model, ask(tools=(READ,)), retry=ONCE)
    thinking = first.message.parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert thinking.text == "Need the file." and thinking.provider == "openai"
    item = thinking.provider_state["openai"]
    assert item["encrypted_content"] == "gAAAA-opaque" and item["id"].startswith("rs_")
    assert first.reasoning == "Need the file."

    history = (Message.user("hi"), first.message, Message.tool_results(tool_result("call_1", "x")))
    body = await body_of(model, fake_server, ask(*history, tools=(READ,)))
    assert body["input"][1:] == [
        {"type": "reasoning", "summary": item["summary"], "encrypted_content": "gAAAA-opaque"},
        {"type": "function_call", "call_id": "call_1", "name": "read_file"}
        | {"arguments": '{"path":"a"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "x"},
    ]
    assert body["include"] == ["reasoning.encrypted_content"] and body["store"] is False
    assert fake_server.requests[-1].tool_results == ("x",)


async def test_usage_maps_cache_and_reasoning_tokens(model, fake_server) -> None:
    usage = Usage(
        input_tokens=5000, cache_read_tokens=4096, output_tokens=300, reasoning_tokens=120
    )
    fake_server.push(Reply(text="cached", thinking="hm", usage=usage))
    response = await complete(model, ask(), retry=ONCE)
    assert response.usage == usage
    assert response.usage.uncached_input_tokens == 904


async def test_unscripted_usage_reports_prefix_cache_reads(model, fake_server) -> None:
    history = (Message.user("x" * 20_000),)
    fake_server.push(Reply(text="one"), Reply(text="two"))
    await complete(model, ask(*history), retry=ONCE)
    second = await complete(model, ask(*history, Message.assistant("one"), Message.user("more")))
    assert second.usage.cache_read_tokens >= 4096
    assert second.usage.input_tokens > second.usage.cache_read_tokens


@pytest.mark.parametrize(
    ("finish", "reason", "raw"),
    [("length", "length", "max_output_tokens"), ("content_filter", "content_filter", None)],
)
async def test_incomplete_responses_map_their_reason(model, fake_server, finish, reason, raw):
    fake_server.push(Reply(text="cut", finish=finish))
    response = await complete(model, ask(), retry=ONCE)
    assert response.finish_reason.reason == reason
    assert response.finish_reason.raw == (raw or reason)
    assert response.text == "cut"


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "expected", "code"),
    [
        (unauthorized("Incorrect API key provided"), e.AuthenticationError, "invalid_api_key"),
        (HttpError(status=403, message="Country not supported"), e.PermissionDeniedError, None),
        (
            HttpError(status=404, message="The model `gpt-9` does not exist"),
            e.ModelNotFoundError,
            "model_not_found",
        ),
        (context_length("Your input exceeds the context window"), e.ContextLengthError, None),
        (quota_exhausted(), e.QuotaExhaustedError, "insufficient_quota"),
        (overloaded(), e.OverloadedError, "overloaded_error"),
        (server_error("The server had an error"), e.ServerError, "server_error"),
    ],
)
async def test_http_errors_map_to_taor_errors(model, fake_server, step, expected, code) -> None:
    fake_server.push(step)
    with pytest.raises(expected) as info:
        await complete(model, ask(), retry=ONCE)
    assert info.value.provider == "openai"
    assert info.value.status == step.status
    if code:
        assert info.value.code == code
    assert len(fake_server.requests) == 1


async def test_rate_limit_carries_retry_after(model, fake_server) -> None:
    fake_server.push(rate_limited(7))
    with pytest.raises(e.RateLimitError) as info:
        await complete(model, ask(), retry=ONCE)
    assert info.value.retry_after == 7.0 and info.value.code == "rate_limit_exceeded"
    assert info.value.retryable


async def test_in_stream_error_event_raises(model, fake_server) -> None:
    fake_server.push(error_event(after=4, error_type="rate_limit_exceeded", message="slow down"))
    with pytest.raises(e.RateLimitError, match="slow down"):
        await complete(model, ask(), retry=ONCE)


async def test_response_failed_raises(model, fake_server) -> None:
    fake_server.push(Reply(text="partial", finish="error"))
    with pytest.raises(e.ServerError, match="failed to respond") as info:
        await complete(model, ask(), retry=ONCE)
    assert info.value.code == "server_error"


async def test_malformed_chunk_is_a_clear_stream_error(model, fake_server) -> None:
    fake_server.push(malformed(after=3))
    with pytest.raises(e.StreamInterruptedError, match="malformed stream event"):
        await complete(model, ask(), retry=ONCE)


async def test_retry_honours_retry_after(model, fake_server, no_sleep) -> None:
    fake_server.push(rate_limited(2), Reply(text="after the wait"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "after the wait"
    assert no_sleep.delays == [2.0]
    assert len(fake_server.requests) == 2


async def test_a_stream_broken_after_content_is_asked_again(model, fake_server, no_sleep) -> None:
    fake_server.push(disconnect(after=6, reply=Reply(text="a long answer", chunk=2)))
    fake_server.push(Reply(text="again"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "again"
    assert len(fake_server.requests) == 2


async def test_disconnect_before_first_byte_is_retried(model, fake_server, no_sleep) -> None:
    fake_server.push(disconnect(after=0), Reply(text="second time lucky"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "second time lucky"
    assert len(fake_server.requests) == 2 and len(no_sleep.delays) == 1


async def test_idle_timeout(fake_server) -> None:
    slow = make(fake_server, idle=0.3)
    fake_server.push(stall(1.0, after=2))
    try:
        with pytest.raises(e.IdleTimeoutError):
            await complete(slow, ask(), retry=ONCE)
    finally:
        await slow.aclose()


# -- request bodies -------------------------------------------------------------------------


async def test_tools_are_flat_and_tool_choice_modes(model, fake_server) -> None:
    body = await body_of(model, fake_server, ask(tools=(READ,), system="Be terse."))
    assert body["instructions"] == "Be terse."
    assert body["tools"] == [
        {"type": "function", "name": "read_file", "description": "Read a file."}
        | {"parameters": dict(READ.parameters), "strict": False}
    ]
    assert body["tool_choice"] == "auto"
    for mode, wire in [("none", "none"), ("required", "required")]:
        body = await body_of(
            model, fake_server, ask(tools=(READ,), tool_choice=ToolChoice(mode=mode))
        )
        assert body["tool_choice"] == wire
    named = ToolChoice(mode="named", name="read_file")
    body = await body_of(model, fake_server, ask(tools=(READ,), tool_choice=named))
    assert body["tool_choice"] == {"type": "function", "name": "read_file"}
    body = await body_of(model, fake_server, ask())
    assert "tools" not in body and "tool_choice" not in body


async def test_reasoning_effort_and_max_tokens(model, fake_server) -> None:
    body = await body_of(model, fake_server, ask(reasoning_effort="xhigh", temperature=0.2))
    assert body["reasoning"] == {"effort": "xhigh", "summary": "auto"}
    assert body["max_output_tokens"] == model.info().max_output == 128_000
    assert "temperature" not in body  # reasoning models reject it
    body = await body_of(model, fake_server, ask(max_tokens=500, stop=("END",)))
    assert body["max_output_tokens"] == 500 and body["reasoning"] == {"summary": "auto"}
    assert "stop" not in json.dumps(body)


async def test_non_reasoning_model_gets_no_reasoning_params(fake_server) -> None:
    plain = make(fake_server, "gpt-4o")
    try:
        body = await body_of(plain, fake_server, ask(temperature=0.2, reasoning_effort="high"))
    finally:
        await plain.aclose()
    assert "reasoning" not in body and "include" not in body
    assert body["temperature"] == 0.2 and body["max_output_tokens"] == 16_384


async def test_images_and_system_messages(model, fake_server) -> None:
    user = Message.user("What is this?", ImagePart(data=PNG), ImagePart(url="https://x.test/a.jpg"))
    body = await body_of(model, fake_server, ask(Message.system("Mid-session rule."), user))
    assert body["input"][0] == {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": "Mid-session rule."}],
    }
    content = body["input"][1]["content"]
    assert content[0] == {"type": "input_text", "text": "What is this?"}
    assert content[1]["image_url"].startswith("data:image/png;base64,iVBORw0KGgp")
    assert content[2] == {"type": "input_image", "image_url": "https://x.test/a.jpg"} | {
        "detail": "auto"
    }


async def test_provider_options_metadata_and_cache_key(model, fake_server) -> None:
    options = {"openai": {"service_tier": "flex", "reasoning": {"summary": None}}}
    request = ask(metadata={"session_id": "sess-42"}, provider_options=options)
    body = await body_of(model, fake_server, request)
    assert body["prompt_cache_key"] == "sess-42"
    assert body["metadata"] == {"session_id": "sess-42"}
    assert body["service_tier"] == "flex"
    assert body["reasoning"] == {}
    explicit = {"openai": {"prompt_cache_key": "mine"}}
    body = await body_of(model, fake_server, ask(provider_options=explicit))
    assert body["prompt_cache_key"] == "mine"
    body = await body_of(model, fake_server, ask())
    assert "prompt_cache_key" not in body and "metadata" not in body


async def test_tool_result_messages(model, fake_server) -> None:
    results = Message.tool_results(
        tool_result("call_1", "file contents"),
        tool_result("call_2", "no such file", is_error=True),
        tool_result("call_3", [TextPart(text="screenshot:"), ImagePart(data=PNG)]),
    )
    assistant = Message.assistant(
        *(ToolCallPart(id=f"call_{n}", name="read_file", raw_arguments="{}") for n in (1, 2, 3))
    )
    body = await body_of(model, fake_server, ask(Message.user("go"), assistant, results))
    outputs = [i for i in body["input"] if i["type"] == "function_call_output"]
    assert outputs[0] == {"type": "function_call_output", "call_id": "call_1"} | {
        "output": "file contents"
    }
    assert outputs[1]["output"] == "Error: no such file"
    assert outputs[2]["output"][0] == {"type": "input_text", "text": "screenshot:"}
    assert outputs[2]["output"][1]["type"] == "input_image"
    assert fake_server.requests[-1].tool_results == (
        "file contents",
        "Error: no such file",
        "screenshot:",
    )


# -- encoding: cache, history from other providers ------------------------------------------


async def test_fragment_cache_keeps_bytes_stable(model, fake_server) -> None:
    history = [Message.user("first"), Message.assistant("answer"), Message.user("second")]
    await body_of(model, fake_server, ask(*history))
    first = fake_server.requests[-1].body
    again = model._encode(ask(*(Message.user("first"), *history[1:])))[1]
    assert again == first  # a cached fragment encodes exactly as a fresh one
    history += [Message.assistant("more"), Message.user("third")]
    await body_of(model, fake_server, ask(*history))
    second = fake_server.requests[-1].body
    shared = first[: first.rindex(b'],"reasoning"')]
    assert second.startswith(shared + b",")


async def test_history_from_other_providers_drops_their_opaque_state(model, fake_server) -> None:
    foreign = Message.assistant(
        ThinkingPart(text="anthropic thoughts", signature="sig-ant", provider="anthropic"),
        TextPart(text="I'll read it.", provider_state={"gemini": {"thought_signature": "g-sig"}}),
        ToolCallPart(
            id="toolu_1",
            name="read_file",
            arguments={"path": "a"},
            provider_state={"gemini": {"thought_signature": "g-sig2"}},
        ),
        ThinkingPart(text="openai, but no encrypted content", provider="openai"),
    )
    history = (Message.user("hi"), foreign, Message.tool_results(tool_result("toolu_1", "ok")))
    body = await body_of(model, fake_server, ask(*history))
    raw = json.dumps(body)
    for secret in ("sig-ant", "g-sig", "anthropic thoughts", "thought_signature", "no encrypted"):
        assert secret not in raw
    assert [i["type"] for i in body["input"]] == [
        "message",
        "message",
        "function_call",
        "function_call_output",
    ]
    assert body["input"][2]["arguments"] == '{"path":"a"}'


async def test_connect_builds_this_adapter(fake_server) -> None:
    adapter = connect("openai:gpt-5.1", api_key="k", base_url=fake_server.base_url("openai"))
    try:
        assert isinstance(adapter, OpenAIModel) and adapter.provider == "openai"
        fake_server.push(Reply(text="hi"))
        assert (await complete(adapter, ask(), retry=ONCE)).text == "hi"
        assert fake_server.requests[-1].headers["authorization"] == "Bearer k"
        assert fake_server.requests[-1].path == "/v1/responses"
    finally:
        await adapter.aclose()


# -- stream shapes the fake server does not produce (recorded from real traffic) -------------


async def frames(*payloads: dict[str, Any]) -> AsyncIterator[SSEvent]:
    for payload in payloads:
        yield SSEvent(payload["type"], json.dumps(payload))


async def test_translates_recorded_variants(model) -> None:
    stream = frames(
        {"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5.4"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning"}},
        {"type": "response.reasoning_summary_part.added", "output_index": 0, "summary_index": 0},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "One."},
        {"type": "response.reasoning_summary_part.added", "output_index": 0, "summary_index": 1},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "Two."},
        {"type": "response.output_text.delta", "output_index": 1, "delta": "Checking."},
        {"type": "response.output_item.done", "output_index": 1}
        | {"item": {"type": "message", "id": "msg_1", "phase": "commentary"}},
        {"type": "response.output_item.added", "output_index": 2}
        | {"item": {"type": "function_call", "call_id": "call_9", "name": "shell"}},
        {"type": "response.function_call_arguments.done", "output_index": 2}
        | {"arguments": '{"cmd":"ls"}'},
        {"type": "response.completed", "response": {"status": "completed"}},
    )
    response = await assemble(model._translate(stream, ask()), "openai")
    assert response.reasoning == "One.\n\nTwo."
    assert response.message.parts[1] == TextPart(
        text="Checking.", provider_state={"openai": {"phase": "commentary"}}
    )
    assert response.tool_calls[0].arguments == {"cmd": "ls"}
    assert response.finish_reason.reason == "tool_calls"


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "error", "code": "insufficient_quota", "message": "quota", "param": None},
        {
            "type": "error",
            "error": {"type": "insufficient_quota", "code": "insufficient_quota", "message": "q"},
        },
    ],
)
async def test_flat_and_nested_error_events(model, payload) -> None:
    stream = frames({"type": "response.created", "response": {"id": "r"}}, payload)
    with pytest.raises(e.QuotaExhaustedError):
        await assemble(model._translate(stream, ask()), "openai")


async def test_stream_without_completion_is_interrupted(model) -> None:
    stream = frames({"type": "response.output_text.delta", "output_index": 0, "delta": "hi"})
    events: list[Any] = []

    async def drain() -> None:
        async for event in model._translate(stream, ask()):
            events.append(event)

    with pytest.raises(e.StreamInterruptedError, match=r"response\.completed"):
        await drain()
    assert events == [TextDelta(index=0, text="hi")]
