"""The OpenAI-compatible Chat Completions adapter, against the
fake server on loopback; server dialects the fake does not speak come from canned streams fed
through an ``httpx2.MockTransport`` (still taor's own client and SSE reading)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from taor import errors as e
from taor.llm import (
    Catalog,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    Timeouts,
    ToolCallPart,
    ToolChoice,
    Usage,
    assemble,
    complete,
    connect,
    tool_result,
)
from taor.llm.adapters.openai_compat import OpenAICompatModel
from taor.llm.events import TextDelta, ToolCallDelta, ToolCallEnd, UsageUpdate
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

LLAMA_CPP_OVERFLOW = HttpError(
    status=400,
    error_type="exceed_context_size_error",
    message="request (9412 tokens) exceeds the available context size (8192 tokens)",
)


@pytest.fixture
async def model(fake_server: FakeProviderServer) -> AsyncIterator[OpenAICompatModel]:
    adapter = OpenAICompatModel(
        "qwen3-coder",
        api_key="",
        base_url=fake_server.base_url("openai-compat"),
        timeouts=Timeouts(idle=0.3),
    )
    yield adapter
    await adapter.aclose()


# -- responses ------------------------------------------------------------------------------


async def test_text_stream(model: OpenAICompatModel, fake_server: FakeProviderServer) -> None:
    fake_server.push(Reply(text="Hello from a local model.", chunk=5))
    events = [event async for event in model.stream(ask())]
    deltas = [event.text for event in events if isinstance(event, TextDelta)]
    assert len(deltas) == 5 and "".join(deltas) == "Hello from a local model."
    fake_server.push(Reply(text="Hello again.", id="chatcmpl-42"))
    response = await complete(model, ask())
    assert response.text == "Hello again."
    assert (response.finish_reason.reason, response.finish_reason.raw) == ("stop", "stop")
    assert (response.id, response.model, response.provider) == (
        "chatcmpl-42",
        "qwen3-coder",
        "openai-compat",
    )
    assert fake_server.requests[-1].headers["authorization"] == "Bearer not-needed"


async def test_one_tool_call(model: OpenAICompatModel, fake_server: FakeProviderServer) -> None:
    call = ToolCall(name="read_file", arguments={"path": "src/app.py"}, id="call_1")
    fake_server.push(Reply(text="Reading.", tool_calls=(call,), chunk=3))
    events = [event async for event in model.stream(ask(tools=(READ,)))]
    assert sum(isinstance(ev, ToolCallDelta) for ev in events) == 7  # streamed in fragments
    assert [ev.index for ev in events if isinstance(ev, ToolCallEnd)] == [1]
    fake_server.push(Reply(text="Reading.", tool_calls=(call,), chunk=3))
    response = await complete(model, ask(tools=(READ,)))
    (part,) = response.tool_calls
    assert (part.id, part.name, part.arguments) == ("call_1", "read_file", {"path": "src/app.py"})
    assert part.raw_arguments == '{"path":"src/app.py"}'
    assert response.text == "Reading."
    assert (response.finish_reason.reason, response.finish_reason.raw) == (
        "tool_calls",
        "tool_calls",
    )


async def test_parallel_tool_calls_keep_their_order(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    specs = [
        ("read_file", {"path": "a"}),
        ("shell", {"cmd": "ls -la"}),
        ("read_file", {"path": "b"}),
    ]
    calls = tuple(ToolCall(name=n, arguments=a, id=f"call_{i}") for i, (n, a) in enumerate(specs))
    fake_server.push(Reply(tool_calls=calls, chunk=4))
    response = await complete(model, ask(tools=(READ, SHELL)))
    assert [(c.id, c.name, dict(c.arguments)) for c in response.tool_calls] == [
        (c.id, c.name, c.arguments) for c in calls
    ]


async def test_whole_tool_calls_in_one_chunk_and_no_usage(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    """Ollama and llama.cpp send each call whole; a server asked without stream_options sends
    no usage: the response still assembles, with zero usage."""
    calls = (ToolCall(name="shell", arguments={"cmd": "make test"}), ToolCall(name="shell"))
    fake_server.push(Reply(tool_calls=calls, chunk=10_000))
    no_usage = {"openai-compat": {"stream_options": None}}
    events = [e async for e in model.stream(ask(tools=(SHELL,), provider_options=no_usage))]
    assert "stream_options" not in fake_server.requests[-1].json
    assert not any(isinstance(event, UsageUpdate) for event in events)
    assert [ev.arguments for ev in events if isinstance(ev, ToolCallDelta)] == [
        '{"cmd":"make test"}',
        "{}",
    ]
    fake_server.push(Reply(tool_calls=calls, chunk=10_000))
    response = await complete(model, ask(tools=(SHELL,), provider_options=no_usage))
    assert [dict(c.arguments) for c in response.tool_calls] == [{"cmd": "make test"}, {}]
    assert len({c.id for c in response.tool_calls}) == 2
    assert response.usage == Usage()


async def test_opaque_state_round_trips(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    """Gemini's OpenAI endpoint seals tool calls with a thought signature in extra_content."""
    call = ToolCall(name="read_file", arguments={"path": "a"}, id="call_a")
    fake_server.push(Reply(tool_calls=(call,), signature="c2lnLTE="))
    first = await complete(model, ask(tools=(READ,)))
    extra = {"google": {"thought_signature": "c2lnLTE="}}
    assert first.tool_calls[0].provider_state == {"openai-compat": {"extra_content": extra}}
    history = (Message.user("hi"), first.message, Message.tool_results(tool_result("call_a", "x")))
    sent = (await body_of(model, fake_server, ask(*history, tools=(READ,))))["messages"]
    assert sent[1]["tool_calls"] == [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path":"a"}'},
            "extra_content": extra,
        }
    ]


async def test_usage_with_cache_and_reasoning_tokens(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    usage = Usage(
        input_tokens=2000, cache_read_tokens=1536, output_tokens=300, reasoning_tokens=120
    )
    fake_server.push(Reply(text="done", usage=usage))
    response = await complete(model, ask())
    assert response.usage == usage
    assert response.usage.uncached_input_tokens == 464


async def test_thinking_arrives_but_is_not_sent_back(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(Reply(thinking="The user greets me.", text="Hi!", chunk=6))
    response = await complete(model, ask())
    assert (response.reasoning, response.text) == ("The user greets me.", "Hi!")
    thinking = response.message.parts[0]
    assert isinstance(thinking, ThinkingPart) and thinking.provider == "openai-compat"
    body = await body_of(model, fake_server, ask(Message.user("hi"), response.message))
    assert body["messages"][1] == {"role": "assistant", "content": "Hi!"}
    assert b"greets" not in fake_server.requests[-1].body


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "error", "retryable"),
    [
        (unauthorized("Incorrect API key provided"), e.AuthenticationError, False),
        (HttpError(status=403, message="Country not supported"), e.PermissionDeniedError, False),
        (HttpError(status=404, message="model 'x' not found"), e.ModelNotFoundError, False),
        (HttpError(status=400, message="bad 'stop'"), e.InvalidRequestError, False),
        (
            context_length("This model's maximum context length is 8192 tokens"),
            e.ContextLengthError,
            False,
        ),
        (LLAMA_CPP_OVERFLOW, e.ContextLengthError, False),
        (quota_exhausted(), e.QuotaExhaustedError, False),
        (overloaded(), e.OverloadedError, True),
        (server_error(), e.ServerError, True),
        (error_event(after=2, error_type="overloaded_error"), e.OverloadedError, True),
        (error_event(after=1, error_type="server_error", message="boom"), e.ServerError, True),
        (malformed(after=2), e.StreamInterruptedError, True),
    ],
)
async def test_error_mapping(
    model: OpenAICompatModel,
    fake_server: FakeProviderServer,
    step: Any,
    error: type[e.ProviderError],
    retryable: bool,
) -> None:
    fake_server.push(step)
    with pytest.raises(error) as info:
        await assemble(model.stream(ask()), model.provider)
    assert type(info.value) is error and info.value.retryable is retryable
    assert info.value.provider == "openai-compat"


async def test_rate_limit_carries_retry_after(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(rate_limited(retry_after=7))
    with pytest.raises(e.RateLimitError) as info:
        await complete(model, ask(), retry=ONCE)
    assert (info.value.status, info.value.retry_after, info.value.code) == (
        429,
        7.0,
        "rate_limit_exceeded",
    )


async def test_malformed_chunk_says_what_it_got(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(malformed(after=1))
    with pytest.raises(e.StreamInterruptedError, match=re.escape("not JSON: '{this is not json'")):
        await complete(model, ask(), retry=ONCE)


async def test_retry_honours_retry_after(
    model: OpenAICompatModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(rate_limited(retry_after=2), Reply(text="after the wait"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "after the wait"
    assert no_sleep.delays == [2.0] and len(fake_server.requests) == 2


async def test_a_stream_broken_after_content_is_asked_again_from_the_start(
    model: OpenAICompatModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(disconnect(after=3, reply=Reply(text="x" * 200, chunk=10)), Reply(text="y"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "y"
    assert len(fake_server.requests) == 2 and len(no_sleep.delays) == 1


async def test_disconnect_before_the_first_byte_is_retried(
    model: OpenAICompatModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(disconnect(after=0), Reply(text="second try"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "second try"
    assert len(fake_server.requests) == 2 and len(no_sleep.delays) == 1


async def test_idle_timeout(model: OpenAICompatModel, fake_server: FakeProviderServer) -> None:
    fake_server.push(stall(2.0, after=2))
    with pytest.raises(e.IdleTimeoutError):
        await assemble(model.stream(ask()))


# -- request bodies -------------------------------------------------------------------------


async def test_body_shape(model: OpenAICompatModel, fake_server: FakeProviderServer) -> None:
    request = ask(
        system="You are terse.",
        tools=(READ,),
        temperature=0.2,
        stop=("END",),
        reasoning_effort="high",
        max_tokens=1000,
    )
    body = await body_of(model, fake_server, request)
    assert body == {
        "model": "qwen3-coder",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 1000,
        "temperature": 0.2,
        "stop": ["END"],
        "reasoning_effort": "high",
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "description": "Read a file.",
                    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
                },
            }
        ],
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "hi"},
        ],
    }
    assert fake_server.requests[-1].path == "/v1/chat/completions"


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        (ToolChoice(mode="auto"), None),
        (ToolChoice(mode="none"), "none"),
        (ToolChoice(mode="required"), "required"),
        (
            ToolChoice(mode="named", name="shell"),
            {"type": "function", "function": {"name": "shell"}},
        ),
    ],
)
async def test_tool_choice(
    model: OpenAICompatModel, fake_server: FakeProviderServer, choice: ToolChoice, sent: Any
) -> None:
    body = await body_of(model, fake_server, ask(tools=(READ, SHELL), tool_choice=choice))
    assert body.get("tool_choice") == sent
    body = await body_of(model, fake_server, ask(tool_choice=choice))  # no tools: nothing
    assert "tool_choice" not in body and "tools" not in body


async def test_optional_parameters_are_left_out(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    body = await body_of(model, fake_server, ask())
    for key in ("max_tokens", "temperature", "stop", "reasoning_effort", "tools", "tool_choice"):
        assert key not in body


async def test_max_tokens_from_the_catalog(fake_server: FakeProviderServer, tmp_path: Path) -> None:
    entry = {
        "id": "my-coder",
        "provider": "openai-compat",
        "context_window": 65536,
        "max_output": 8192,
    }
    (tmp_path / "catalog.json").write_text(json.dumps({"models": [entry]}))
    adapter = OpenAICompatModel(
        "my-coder",
        api_key="k",
        base_url=fake_server.base_url("openai-compat"),
        catalog=Catalog.from_file(tmp_path / "catalog.json"),
    )
    try:
        assert (await body_of(adapter, fake_server, ask()))["max_tokens"] == 8192
        assert (await body_of(adapter, fake_server, ask(max_tokens=50)))["max_tokens"] == 50
        unknown = await body_of(adapter, fake_server, ask(model="other-model"))
        assert unknown["model"] == "other-model" and "max_tokens" not in unknown
    finally:
        await adapter.aclose()


async def test_provider_options_merge_and_delete(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    options: dict[str, dict[str, Any]] = {
        "openai-compat": {"top_p": 0.9, "max_tokens": None, "max_completion_tokens": 64}
    }
    body = await body_of(model, fake_server, ask(max_tokens=10, provider_options=options))
    assert (body["top_p"], body["max_completion_tokens"]) == (0.9, 64)
    assert "max_tokens" not in body
    options = {"openai-compat": {"messages": []}}
    with pytest.raises(e.ConfigurationError, match="messages"):
        await complete(model, ask(provider_options=options), retry=ONCE)


async def test_images_in_user_messages(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    message = Message.user("What is this?", ImagePart(data=PNG), ImagePart(url="https://x/y.jpg"))
    body = await body_of(model, fake_server, ask(message))
    assert body["messages"][0] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgpmYWtl"}},
            {"type": "image_url", "image_url": {"url": "https://x/y.jpg"}},
        ],
    }


async def test_tool_results_encoding(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    calls = Message.assistant(
        ToolCallPart(id="call_1", name="read_file", arguments={"path": "a"}),
        ToolCallPart(id="call_2", name="screenshot", raw_arguments="{}"),
        ToolCallPart(id="call_3", name="shell", arguments={"cmd": "x"}, raw_arguments='{"cmd": '),
    )
    results = Message.tool_results(
        tool_result("call_1", "contents of a"),
        tool_result("call_2", [ImagePart(data=PNG)]),
        tool_result("call_3", "command not found", is_error=True),
    )
    body = await body_of(model, fake_server, ask(Message.user("go"), calls, results))
    assistant, *rest = body["messages"][1:]
    assert assistant["content"] is None
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == [
        '{"path":"a"}',
        "{}",
        '{"cmd":"x"}',  # the broken raw arguments are not sent back
    ]
    assert rest == [
        {"role": "tool", "tool_call_id": "call_1", "content": "contents of a"},
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": "(the image follows in the next message)",
        },
        {"role": "tool", "tool_call_id": "call_3", "content": "Error: command not found"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Image(s) from tool call call_2:"},
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64,iVBORw0KGgpmYWtl"},
                },
            ],
        },
    ]
    assert fake_server.requests[-1].tool_results == (
        "contents of a",
        "(the image follows in the next message)",
        "Error: command not found",
    )


async def test_fragment_cache_keeps_bytes_stable(model: OpenAICompatModel) -> None:
    history = [Message.user("Fix the bug."), Message.assistant("Looking.")]
    first = ask(*history, system="sys", tools=(READ,))
    _, body_1, _ = model._encode(first)
    assert model._encode(first)[1] == body_1  # from the cache, byte for byte
    history += [Message.user("Now the tests.")]
    _, body_2, _ = model._encode(ask(*history, system="sys", tools=(READ,)))
    assert body_1.endswith(b"]}") and body_2.startswith(body_1[:-2] + b",")
    fresh = OpenAICompatModel("qwen3-coder", api_key="", base_url="http://127.0.0.1:9/v1")
    assert fresh._encode(ask(*history, system="sys", tools=(READ,)))[1] == body_2


async def test_history_from_another_provider_drops_its_opaque_data(
    model: OpenAICompatModel, fake_server: FakeProviderServer
) -> None:
    foreign = Message(
        role="assistant",
        parts=(
            ThinkingPart(text="secret reasoning", signature="ANTHROPIC-SIG", provider="anthropic"),
            TextPart(text="Let me read it.", provider_state={"gemini": {"thought_signature": "G"}}),
            ToolCallPart(
                id="toolu_01",
                name="read_file",
                arguments={"path": "a"},
                provider_state={"anthropic": {"cache": "x"}, "gemini": {"thought_signature": "G"}},
            ),
        ),
        provider_state={"openai": {"reasoning_items": ["rs_1"]}},
    )
    history = (Message.user("hi"), foreign, Message.tool_results(tool_result("toolu_01", "data")))
    body = await body_of(model, fake_server, ask(*history, tools=(READ,)))
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "Let me read it.",
        "tool_calls": [
            {
                "id": "toolu_01",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path":"a"}'},
            }
        ],
    }
    raw = fake_server.requests[-1].body
    for secret in (b"ANTHROPIC-SIG", b"secret reasoning", b"thought_signature", b"rs_1"):
        assert secret not in raw


async def test_connect_builds_this_adapter(fake_server: FakeProviderServer) -> None:
    model = connect(
        "openai-compat:llama3.2", base_url=fake_server.base_url("openai-compat"), env={}
    )
    try:
        assert isinstance(model, OpenAICompatModel) and model.provider == "openai-compat"
        fake_server.push(Reply(text="hello"))
        assert (await complete(model, ask(), retry=ONCE)).text == "hello"
        assert fake_server.requests[-1].json["model"] == "llama3.2"
    finally:
        await model.aclose()
    with pytest.raises(e.ConfigurationError, match="base_url"):
        connect("openai-compat:llama3.2", env={})


# -- server dialects ------------------------------------------------------------------------


def canned(*chunks: Any) -> OpenAICompatModel:
    """A model whose server answers with these SSE data payloads (dicts or raw strings)."""
    frames = b"".join(
        b"data: " + (c if isinstance(c, str) else json.dumps(c)).encode() + b"\n\n" for c in chunks
    )

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=frames)

    return OpenAICompatModel(
        "m", api_key="k", base_url="http://127.0.0.1:9/v1", transport=httpx2.MockTransport(handler)
    )


async def run(model: OpenAICompatModel) -> Any:
    try:
        return await assemble(model.stream(ask()), model.provider)
    finally:
        await model.aclose()


def delta(d: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": d, "finish_reason": finish}], **extra}


def call(**fields: Any) -> dict[str, Any]:
    return delta({"tool_calls": [fields]})


async def test_ids_repeated_on_every_chunk_and_missing_index() -> None:
    fn = {"name": "shell", "arguments": '{"cmd":'}
    response = await run(
        canned(
            call(id="call_x", type="function", function=fn),
            call(id="call_x", function={"arguments": '"ls"}'}),
            delta({}, "tool_calls"),
            "[DONE]",
        )
    )
    assert [(c.id, dict(c.arguments)) for c in response.tool_calls] == [("call_x", {"cmd": "ls"})]


async def test_no_ids_are_synthesized_and_index_reuse_opens_a_new_call() -> None:
    response = await run(
        canned(
            call(index=0, function={"name": "a", "arguments": "{}"}),
            call(function={"name": "b", "arguments": '{"n":1}'}),  # no index, no id
            call(index=0, id="call_c", function={"name": "c", "arguments": "{}"}),
            call(index=0, id="call_d", function={"name": "d", "arguments": "{}"}),  # Ollama
            delta({}, "stop"),
            "[DONE]",
        )
    )
    names = [c.name for c in response.tool_calls]
    ids = [c.id for c in response.tool_calls]
    assert names == ["a", "b", "c", "d"] and ids[2:] == ["call_c", "call_d"]
    assert all(i.startswith("call_") for i in ids) and len(set(ids)) == 4
    assert response.finish_reason.reason == "tool_calls"


async def test_reasoning_deltas_and_usage_in_the_finish_chunk() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 40,
        "prompt_cache_hit_tokens": 64,
        "completion_tokens_details": {"reasoning_tokens": 30},
    }
    response = await run(
        canned(
            delta({"role": "assistant", "reasoning_content": "think "}),
            delta({"reasoning": "hard"}),
            delta({"content": "42"}),
            delta({}, "length", usage=usage),
            "[DONE]",
        )
    )
    assert (response.reasoning, response.text, response.finish_reason.reason) == (
        "think hard",
        "42",
        "length",
    )
    assert response.usage == Usage(
        input_tokens=100, output_tokens=40, cache_read_tokens=64, reasoning_tokens=30
    )


async def test_done_without_finish_reason_is_a_stop() -> None:
    response = await run(canned(delta({"content": "ok"}), "[DONE]"))
    assert (response.text, response.finish_reason.reason) == ("ok", "stop")


async def test_finish_without_done_is_accepted() -> None:
    response = await run(canned(delta({"content": "ok"}), delta({}, "content_filter")))
    assert response.finish_reason.reason == "content_filter"


async def test_stream_that_just_ends_is_interrupted() -> None:
    with pytest.raises(e.StreamInterruptedError, match="no finish_reason"):
        await run(canned(delta({"content": "partial"})))


async def test_openrouter_in_stream_error() -> None:
    error = {"code": 502, "message": "Provider disconnected unexpectedly"}
    with pytest.raises(e.ServerError, match="Provider disconnected") as info:
        await run(canned(delta({"content": "a"}), delta({"content": ""}, "error", error=error)))
    assert info.value.status == 502 and info.value.retryable


async def test_what_follows_done_is_ignored() -> None:
    response = await run(canned(delta({"content": "ok"}, "stop"), "[DONE]", "{not json"))
    assert (response.text, response.finish_reason.reason) == ("ok", "stop")


async def test_chunk_of_an_unknown_shape_is_a_clear_error() -> None:
    with pytest.raises(e.StreamInterruptedError, match="unknown shape"):
        await run(canned({"choices": ["not an object"]}, "[DONE]"))


async def test_a_base_url_is_required() -> None:
    model = OpenAICompatModel("m", api_key="k")
    with pytest.raises(e.ConfigurationError, match="base_url"):
        await assemble(model.stream(ask()))
    await model.aclose()
