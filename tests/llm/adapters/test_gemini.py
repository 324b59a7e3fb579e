"""The Gemini adapter through the real google-genai client against the fake server on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
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
    ToolDefinition,
    Usage,
    complete,
    connect,
    tool_result,
)
from taor.llm.adapters.gemini import FOREIGN_SIGNATURE, GeminiModel
from taor.llm.events import StateDelta, TextDelta, ThinkingDelta
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

from .support import ONCE, SHELL, ask, body_of

PRO = "gemini-3.1-pro-preview"
READ = ToolDefinition(
    name="read_file",
    description="Read a file.",
    parameters={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    },
)


@pytest.fixture
async def model(fake_server: FakeProviderServer) -> AsyncIterator[GeminiModel]:
    adapter = GeminiModel(
        PRO,
        api_key="test-key",
        base_url=fake_server.base_url("gemini"),
        timeouts=Timeouts(idle=0.3),
    )
    yield adapter
    await adapter.aclose()


# -- responses ------------------------------------------------------------------------------


async def test_text_stream(model: GeminiModel, fake_server: FakeProviderServer) -> None:
    fake_server.push(Reply(text="Hello from the fake Gemini.", chunk=5, id="resp-a"))
    events = [event async for event in model.stream(ask())]
    deltas = [event.text for event in events if isinstance(event, TextDelta)]
    assert len(deltas) == 6 and "".join(deltas) == "Hello from the fake Gemini."
    fake_server.push(Reply(text="Hello again.", id="resp-b"))
    response = await complete(model, ask())
    assert response.text == "Hello again."
    assert (response.finish_reason.reason, response.finish_reason.raw) == ("stop", "STOP")
    assert (response.id, response.model, response.provider) == ("resp-b", PRO, "gemini")
    recorded = fake_server.requests[-1]
    assert recorded.path == f"/v1beta/models/{PRO}:streamGenerateContent"
    assert recorded.query == {"alt": "sse"}  # the key travels in a header, never the URL
    assert recorded.headers["x-goog-api-key"] == "test-key"


async def test_one_tool_call(model: GeminiModel, fake_server: FakeProviderServer) -> None:
    call = ToolCall(name="read_file", arguments={"path": "src/app.py"})
    fake_server.push(Reply(text="Reading.", tool_calls=(call,), id="r1"))
    response = await complete(model, ask(tools=(READ,)))
    (part,) = response.tool_calls
    assert (part.id, part.name, part.arguments) == (
        "call_r1_1",
        "read_file",
        {"path": "src/app.py"},
    )
    assert part.raw_arguments == '{"path":"src/app.py"}'
    assert response.text == "Reading."
    assert (response.finish_reason.reason, response.finish_reason.raw) == ("tool_calls", "STOP")


async def test_parallel_calls_pair_with_their_results_by_position(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    args = [("read_file", {"path": "a"}), ("shell", {"cmd": "ls"}), ("read_file", {"path": "b"})]
    calls = tuple(ToolCall(name=name, arguments=a) for name, a in args)
    fake_server.push(Reply(tool_calls=calls, id="par"))
    first = await complete(model, ask(tools=(READ, SHELL)))
    got = [(c.id, c.name, dict(c.arguments)) for c in first.tool_calls]
    assert got == [(f"call_par_{i}", name, a) for i, (name, a) in enumerate(args)]

    results = Message.tool_results(*(tool_result(c[0], f"out {i}") for i, c in enumerate(got)))
    body = await body_of(model, fake_server, ask(Message.user("go"), first.message, results))
    sent_calls = [p["functionCall"] for p in body["contents"][1]["parts"]]
    responses = [p["functionResponse"] for p in body["contents"][2]["parts"]]
    assert [(c["id"], c["name"]) for c in sent_calls] == [(c[0], c[1]) for c in got]
    assert [(r["id"], r["name"], r["response"]) for r in responses] == [
        ("call_par_0", "read_file", {"output": "out 0"}),
        ("call_par_1", "shell", {"output": "out 1"}),
        ("call_par_2", "read_file", {"output": "out 2"}),
    ]
    assert fake_server.requests[-1].tool_results == ("out 0", "out 1", "out 2")


async def test_thought_signatures_round_trip_verbatim(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    reply = Reply(
        thinking="I should read the file first.",
        signature="c2lnLW9uLXRoZS10aG91Z2h0",
        tool_calls=(ToolCall(name="read_file", arguments={"path": "a"}), ToolCall(name="shell")),
        chunk=7,
    )
    fake_server.push(reply)
    events = [event async for event in model.stream(ask(tools=(READ, SHELL)))]
    assert sum(isinstance(ev, ThinkingDelta) for ev in events) == 5
    states = [ev for ev in events if isinstance(ev, StateDelta)]
    assert [ev.index for ev in states] == [0, 1]

    fake_server.push(reply)
    first = await complete(model, ask(tools=(READ, SHELL)))
    thinking, call_a, call_b = first.message.parts
    assert isinstance(thinking, ThinkingPart) and thinking.provider == "gemini"
    assert thinking.text == reply.thinking
    assert thinking.provider_state == {"gemini": {"thought_signature": reply.signature}}
    assert isinstance(call_a, ToolCallPart) and call_a.provider_state
    signature = call_a.provider_state["gemini"]["thought_signature"]
    assert call_b.provider_state is None

    results = Message.tool_results(tool_result(call_a.id, "a"), tool_result(call_b.id, "b"))
    body = await body_of(model, fake_server, ask(Message.user("hi"), first.message, results))
    parts = body["contents"][1]["parts"]
    assert parts[0] == {
        "text": reply.thinking,
        "thought": True,
        "thoughtSignature": reply.signature,
    }
    assert parts[1]["thoughtSignature"] == signature
    assert "thoughtSignature" not in parts[2]  # only the first call of a step carries one


async def test_signed_text_part_round_trips(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(Reply(text="All done.", signature="dGV4dC1zaWc=", chunk=4))
    first = await complete(model, ask())
    (part,) = first.message.parts
    assert isinstance(part, TextPart) and part.text == "All done."
    assert part.provider_state == {"gemini": {"thought_signature": "dGV4dC1zaWc="}}
    body = await body_of(model, fake_server, ask(Message.user("hi"), first.message))
    assert body["contents"][1]["parts"] == [
        {"text": "All done.", "thoughtSignature": "dGV4dC1zaWc="}
    ]


async def test_usage_is_normalized_with_cache_and_thoughts(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    usage = Usage(
        input_tokens=5000, cache_read_tokens=3000, output_tokens=400, reasoning_tokens=150
    )
    fake_server.push(Reply(text="cached", thinking="hmm", usage=usage))
    response = await complete(model, ask())
    # on the wire: promptTokenCount 5000 incl. 3000 cached; candidates 250 + thoughts 150
    assert response.usage == usage
    assert response.usage.uncached_input_tokens == 2000


@pytest.mark.parametrize(
    ("finish", "raw", "kind"),
    [
        ("length", "MAX_TOKENS", "length"),
        ("content_filter", "SAFETY", "content_filter"),
        ("error", "MALFORMED_FUNCTION_CALL", "error"),
        ("other", "OTHER", "other"),
    ],
)
async def test_finish_reasons(
    model: GeminiModel, fake_server: FakeProviderServer, finish: Any, raw: str, kind: str
) -> None:
    fake_server.push(Reply(text="cut", finish=finish))
    response = await complete(model, ask())
    assert (response.finish_reason.reason, response.finish_reason.raw) == (kind, raw)


# Recorded shape of real Gemini 3 traffic (spacing, CRLF framing, an empty closing text part,
# usage on every chunk, the signature on the call, no call id); the values are made up.
REAL_STREAM = (
    b'data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_country",'
    b'"args": {}},"thoughtSignature": "RXQ4RUN0d0VBWExJ"}],"role": "model"},"index": 0}],'
    b'"usageMetadata": {"promptTokenCount": 29,"candidatesTokenCount": 10,"totalTokenCount": 149,'
    b'"promptTokensDetails": [{"modality": "TEXT","tokenCount": 29}],"thoughtsTokenCount": 110},'
    b'"modelVersion": "gemini-3-pro-preview","responseId": "SVV8aY6uBqe6qtsP"}\r\n\r\n'
    b'data: {"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},'
    b'"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 29,'
    b'"candidatesTokenCount": 10,"totalTokenCount": 149,"thoughtsTokenCount": 110},'
    b'"modelVersion": "gemini-3-pro-preview","responseId": "SVV8aY6uBqe6qtsP"}\r\n\r\n'
)


def mock_model(handler: Callable[[httpx2.Request], httpx2.Response]) -> GeminiModel:
    return GeminiModel(
        "gemini-3-pro-preview",
        api_key="k",
        base_url="http://gemini.test",
        transport=httpx2.MockTransport(handler),
    )


def sse_response(body: bytes) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)


async def test_replayed_real_stream() -> None:
    model = mock_model(lambda request: sse_response(REAL_STREAM))
    try:
        response = await complete(model, ask(), retry=ONCE)
    finally:
        await model.aclose()
    (call,) = response.message.parts
    assert isinstance(call, ToolCallPart)
    assert (call.id, call.name, call.arguments) == ("call_SVV8aY6uBqe6qtsP_0", "get_country", {})
    assert call.provider_state == {"gemini": {"thought_signature": "RXQ4RUN0d0VBWExJ"}}
    assert response.finish_reason.reason == "tool_calls"
    assert response.usage == Usage(input_tokens=29, output_tokens=120, reasoning_tokens=110)
    assert response.model == "gemini-3-pro-preview"


async def test_blocked_prompt_is_content_filtered() -> None:
    blocked = b'data: {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},"usageMetadata": {"promptTokenCount": 7,"totalTokenCount": 7},"modelVersion": "gemini-3-pro-preview","responseId": "x"}\r\n\r\n'
    model = mock_model(lambda request: sse_response(blocked))
    try:
        with pytest.raises(e.ContentFilteredError) as info:
            await complete(model, ask(), retry=ONCE)
    finally:
        await model.aclose()
    assert info.value.code == "PROHIBITED_CONTENT" and not info.value.retryable


async def test_retry_delay_in_the_error_details_counts_as_retry_after() -> None:
    body = {
        "error": {
            "code": 429,
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}],
        }
    }
    model = mock_model(lambda request: httpx2.Response(429, json=body))
    try:
        with pytest.raises(e.RateLimitError) as info:
            await complete(model, ask(), retry=ONCE)
    finally:
        await model.aclose()
    assert info.value.retry_after == 7.0 and info.value.status == 429


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "error", "retryable"),
    [
        (
            unauthorized("API key not valid. Please pass a valid API key."),
            e.AuthenticationError,
            False,
        ),
        (  # what Gemini really answers for a bad key: 400 INVALID_ARGUMENT with ErrorInfo
            HttpError(status=400, message="API key not valid.", error_type="API_KEY_INVALID"),
            e.AuthenticationError,
            False,
        ),
        (
            HttpError(status=400, message="API key expired.", error_type="API_KEY_EXPIRED"),
            e.AuthenticationError,
            False,
        ),
        (HttpError(status=403, message="Permission denied"), e.PermissionDeniedError, False),
        (HttpError(status=404, message="models/nope is not found"), e.ModelNotFoundError, False),
        (HttpError(status=400, message="Invalid JSON payload"), e.InvalidRequestError, False),
        (context_length(), e.ContextLengthError, False),
        (rate_limited(None), e.RateLimitError, True),
        (quota_exhausted(), e.QuotaExhaustedError, False),
        (overloaded(), e.OverloadedError, True),
        (HttpError(status=503, message="The model is overloaded."), e.OverloadedError, True),
        (server_error(), e.ServerError, True),
    ],
)
async def test_error_mapping(
    model: GeminiModel, fake_server: FakeProviderServer, step: Any, error: type, retryable: bool
) -> None:
    fake_server.push(step)
    with pytest.raises(e.ProviderError) as info:
        await complete(model, ask(), retry=ONCE)
    assert type(info.value) is error
    assert info.value.retryable is retryable and info.value.provider == "gemini"
    assert info.value.status == step.status


async def test_rate_limit_carries_retry_after(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(rate_limited(2))
    with pytest.raises(e.RateLimitError) as info:
        await complete(model, ask(), retry=ONCE)
    assert info.value.retry_after == 2.0 and info.value.code == "RESOURCE_EXHAUSTED"


async def test_in_stream_error_event(model: GeminiModel, fake_server: FakeProviderServer) -> None:
    fake_server.push(error_event(after=1, error_type="overloaded_error", message="Overloaded"))
    with pytest.raises(e.OverloadedError) as info:
        await complete(model, ask(), retry=ONCE)
    assert info.value.code == "UNAVAILABLE"


async def test_malformed_chunk_is_a_clear_stream_error(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(malformed(after=1))
    with pytest.raises(e.StreamInterruptedError, match="malformed chunk"):
        await complete(model, ask(), retry=ONCE)


async def test_retry_honours_retry_after(
    model: GeminiModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(rate_limited(2), Reply(text="after the wait"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "after the wait"
    assert no_sleep.delays == [2.0] and len(fake_server.requests) == 2


async def test_a_stream_broken_after_content_is_asked_again_from_the_start(
    model: GeminiModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(disconnect(after=2, reply=Reply(text="a long answer that breaks", chunk=4)))
    fake_server.push(Reply(text="the whole answer"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "the whole answer"
    assert len(fake_server.requests) == 2 and len(no_sleep.delays) == 1


async def test_disconnect_before_the_first_byte_is_retried(
    model: GeminiModel, fake_server: FakeProviderServer, no_sleep: Any
) -> None:
    fake_server.push(disconnect(after=0), Reply(text="second try"))
    response = await complete(model, ask(), sleep=no_sleep)
    assert response.text == "second try"
    assert len(fake_server.requests) == 2 and len(no_sleep.delays) == 1


async def test_idle_timeout(model: GeminiModel, fake_server: FakeProviderServer) -> None:
    fake_server.push(stall(1.0, after=1))
    with pytest.raises(e.IdleTimeoutError):
        await complete(model, ask(), retry=ONCE)


# -- request bodies -------------------------------------------------------------------------


async def test_body_shape_system_tools_and_defaults(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    history = (Message.system("Also: be brief."), Message.user("hi"))
    request = ask(
        *history, system="You are terse.", tools=(READ, SHELL), temperature=0.2, stop=("END",)
    )
    body = await body_of(model, fake_server, request)
    assert body["systemInstruction"] == {
        "parts": [{"text": "You are terse."}, {"text": "Also: be brief."}]
    }
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    (declarations,) = body["tools"]
    read, shell = declarations["functionDeclarations"]
    assert read == {
        "name": "read_file",
        "description": "Read a file.",
        "parametersJsonSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    }
    assert shell["parametersJsonSchema"] == {"type": "object", "properties": {}}
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    assert body["generationConfig"] == {
        "maxOutputTokens": 65536,  # the catalog's max_output
        "temperature": 0.2,
        "stopSequences": ["END"],
        "thinkingConfig": {"includeThoughts": True},
    }
    body = await body_of(model, fake_server, ask(max_tokens=1000))
    assert body["generationConfig"]["maxOutputTokens"] == 1000
    assert "tools" not in body and "toolConfig" not in body and "systemInstruction" not in body


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        (ToolChoice(mode="auto"), {"mode": "AUTO"}),
        (ToolChoice(mode="none"), {"mode": "NONE"}),
        (ToolChoice(mode="required"), {"mode": "ANY"}),
        (
            ToolChoice(mode="named", name="shell"),
            {"mode": "ANY", "allowedFunctionNames": ["shell"]},
        ),
    ],
)
async def test_tool_choice_modes(
    model: GeminiModel, fake_server: FakeProviderServer, choice: ToolChoice, config: Any
) -> None:
    body = await body_of(model, fake_server, ask(tools=(READ, SHELL), tool_choice=choice))
    assert body["toolConfig"] == {"functionCallingConfig": config}


@pytest.mark.parametrize(
    ("model_id", "effort", "thinking"),
    [
        (PRO, "low", {"includeThoughts": True, "thinkingLevel": "LOW"}),
        (PRO, "medium", {"includeThoughts": True, "thinkingLevel": "MEDIUM"}),
        (PRO, "xhigh", {"includeThoughts": True, "thinkingLevel": "HIGH"}),
        ("gemini-2.5-flash", "low", {"includeThoughts": True, "thinkingBudget": 1024}),
        ("gemini-2.5-flash", "xhigh", {"includeThoughts": True, "thinkingBudget": 24576}),
        ("gemini-2.5-pro", "xhigh", {"includeThoughts": True, "thinkingBudget": 32768}),
        ("gemini-2.5-pro", None, {"includeThoughts": True}),
        ("gemini-2.0-flash", "high", None),
    ],
)
async def test_reasoning_effort(
    model: GeminiModel,
    fake_server: FakeProviderServer,
    model_id: str,
    effort: Any,
    thinking: Any,
) -> None:
    body = await body_of(model, fake_server, ask(model=model_id, reasoning_effort=effort))
    assert body["generationConfig"].get("thinkingConfig") == thinking
    assert fake_server.requests[-1].path == f"/v1beta/models/{model_id}:streamGenerateContent"


async def test_images_inline_and_by_url(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    inline = ImagePart(data=b"\x89PNG fake", media_type="image/png")
    linked = ImagePart(url="https://example.com/cat.jpg", media_type="image/jpeg")
    body = await body_of(model, fake_server, ask(Message.user("what is this?", inline, linked)))
    assert body["contents"][0]["parts"] == [
        {"text": "what is this?"},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORyBmYWtl"}},
        {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/cat.jpg"}},
    ]


async def test_tool_results_encoding_and_merged_user_turn(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(
        Reply(
            tool_calls=(ToolCall(name="read_file", arguments={"path": "a"}), ToolCall(name="shell"))
        )
    )
    first = await complete(model, ask(tools=(READ, SHELL)))
    a, b = first.tool_calls
    image = ImagePart(data=b"\x89PNG fake", media_type="image/png")
    results = Message.tool_results(
        tool_result(a.id, "contents of a"),
        tool_result(b.id, [TextPart(text="exit 1"), image], is_error=True),
    )
    history = (Message.user("hi"), first.message, results, Message.user("also check b"))
    body = await body_of(model, fake_server, ask(*history, tools=(READ, SHELL)))
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["contents"][2]["parts"] == [
        {
            "functionResponse": {
                "id": a.id,
                "name": "read_file",
                "response": {"output": "contents of a"},
            }
        },
        {"functionResponse": {"id": b.id, "name": "shell", "response": {"error": "exit 1"}}},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORyBmYWtl"}},
        {"text": "also check b"},
    ]
    assert body["contents"][1]["parts"][0]["functionCall"] == {
        "id": a.id,
        "name": "read_file",
        "args": {"path": "a"},
    }
    assert fake_server.requests[-1].tool_results == ("contents of a", "exit 1")


async def test_provider_options_merge_into_the_body(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    options = {
        "gemini": {
            "generationConfig": {"topP": 0.9},
            "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
            "tools": [{"googleSearch": {}}],
        },
        "anthropic": {"auto_cache": False},
    }
    body = await body_of(
        model, fake_server, ask(tools=(SHELL,), max_tokens=50, provider_options=options)
    )
    assert (
        body["generationConfig"]["topP"] == 0.9
        and body["generationConfig"]["maxOutputTokens"] == 50
    )
    assert body["safetySettings"][0]["threshold"] == "BLOCK_NONE"
    assert body["tools"][1] == {"googleSearch": {}} and "functionDeclarations" in body["tools"][0]
    assert "auto_cache" not in fake_server.requests[-1].body.decode()


async def test_fragment_cache_does_not_change_the_bytes(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    fake_server.push(Reply(thinking="plan", signature="c2ln", tool_calls=(ToolCall(name="shell"),)))
    first = await complete(model, ask(tools=(SHELL,)))
    history = (
        Message.user("hi"),
        first.message,
        Message.tool_results(tool_result(first.tool_calls[0].id, "ok")),
    )
    request = ask(*history, tools=(SHELL,))
    await body_of(model, fake_server, request)
    await body_of(model, fake_server, request)
    again, repeat = fake_server.requests[-2].body, fake_server.requests[-1].body
    assert again == repeat
    longer = ask(*history, Message.assistant("done"), Message.user("next"), tools=(SHELL,))
    await body_of(model, fake_server, longer)
    extended = fake_server.requests[-1].body
    shared_history = again[: again.index(b'],"toolConfig"')]  # tools and the three contents
    assert extended.startswith(shared_history + b',{"role":"model","parts":[{"text":"done"}]}')
    fresh = GeminiModel(PRO, api_key="test-key", base_url=fake_server.base_url("gemini"))
    try:
        await body_of(fresh, fake_server, longer)
    finally:
        await fresh.aclose()
    assert fake_server.requests[-1].body == extended  # cached bytes equal a fresh encoding


async def test_history_from_another_provider_drops_its_opaque_data(
    model: GeminiModel, fake_server: FakeProviderServer
) -> None:
    foreign = Message(
        role="assistant",
        parts=(
            ThinkingPart(text="secret plan", signature="ANTHROPIC_SIG", provider="anthropic"),
            ThinkingPart(signature="REDACTED_BLOB", redacted=True, provider="anthropic"),
            TextPart(text="Let me look.", provider_state={"openai": {"id": "msg_123"}}),
            ToolCallPart(
                id="toolu_9",
                name="shell",
                arguments={"cmd": "ls"},
                provider_state={"anthropic": {"x": 1}},
            ),
            ToolCallPart(id="toolu_10", name="shell", arguments={"cmd": "pwd"}),
        ),
        provider_state={"openai": {"reasoning": "enc"}},
    )
    results = Message.tool_results(tool_result("toolu_9", "a.py"), tool_result("toolu_10", "/"))
    body = await body_of(
        model, fake_server, ask(Message.user("hi"), foreign, results, tools=(SHELL,))
    )
    raw = fake_server.requests[-1].body.decode()
    for leaked in ("ANTHROPIC_SIG", "REDACTED_BLOB", "secret plan", "msg_123", '"enc"', '"x"'):
        assert leaked not in raw
    parts = body["contents"][1]["parts"]
    assert parts[0] == {"text": "Let me look."}
    # Gemini 3 rejects calls without a signature: the documented placeholder goes on the first
    assert parts[1] == {
        "functionCall": {"id": "toolu_9", "name": "shell", "args": {"cmd": "ls"}},
        "thoughtSignature": FOREIGN_SIGNATURE,
    }
    assert "thoughtSignature" not in parts[2]
    assert [p["functionResponse"]["name"] for p in body["contents"][2]["parts"]] == [
        "shell",
        "shell",
    ]


async def test_connect_builds_the_adapter(fake_server: FakeProviderServer) -> None:
    env = {"GEMINI_API_KEY": "from-env", "GEMINI_BASE_URL": fake_server.base_url("gemini")}
    model = connect(f"gemini:{PRO}", env=env)
    try:
        assert isinstance(model, GeminiModel) and model.provider == "gemini"
        fake_server.push(Reply(text="connected"))
        response = await complete(model, ask(), retry=ONCE)
    finally:
        await model.aclose()
    assert response.text == "connected"
    assert fake_server.requests[-1].headers["x-goog-api-key"] == "from-env"
