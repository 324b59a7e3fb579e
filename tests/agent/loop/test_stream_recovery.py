"""A tool call the server cannot parse (llama.cpp's HTTP 500 "Failed to parse tool call
arguments as JSON", as an error answer or an error chunk mid-stream), through the real openai
SDK against the fake server: the session asks again differently and goes on."""

from __future__ import annotations

from typing import Any

from taor.agent.events import ErrorEvent, ProcessingEnd, Retry
from taor.agent.loop.stream import NO_TOOLS, NUDGE
from taor.agent.record.transcript import problems
from taor.env.memory import MemoryEnvironment
from taor.llm import connect
from taor.testing import FakeProviderServer, HttpError, Reply, ToolCall, error_event

from ..loop_support import collect, of, session

PARSE_FAILED = (
    "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error "
    "at line 1, column 40: syntax error while parsing value - invalid string: missing closing "
    "quote; last read: '\"print(\"hi'"
)


def http_500() -> HttpError:
    return HttpError(status=500, message=PARSE_FAILED, error_type="server_error")


def in_stream() -> Any:
    return error_event(after=2, error_type="server_error", message=PARSE_FAILED)


def write_call() -> Reply:
    arguments = {"path": "hello.py", "content": "print('hi')\n"}
    return Reply(tool_calls=(ToolCall(name="write_file", arguments=arguments),))


def last_user_text(request: Any) -> str:
    message = request.json["messages"][-1]
    assert message["role"] == "user"
    return str(message["content"])


async def test_a_500_is_asked_again_with_a_nudge_and_the_run_goes_on(
    fake_server: FakeProviderServer,
) -> None:
    fake_server.push(http_500(), write_call(), Reply(text="Wrote hello.py."))
    model = connect("openai-compat:qwen", base_url=fake_server.base_url("openai-compat"))
    env = MemoryEnvironment()
    async with session(model, env) as s:
        events = await collect(s, "Write hello.py")
        assert problems(s.history) == []
    await model.aclose()
    (retry,) = of(events, Retry)
    assert (retry.attempt, retry.delay, retry.error_type) == (1, 0.0, "MalformedToolCallError")
    assert "Failed to parse tool call arguments" in retry.cause
    first, nudged, after = fake_server.requests
    assert NUDGE not in last_user_text(first)
    assert last_user_text(nudged).endswith(NUDGE)
    assert nudged.json["temperature"] == 0.4 and "temperature" not in first.json
    assert nudged.json["tools"] == first.json["tools"]
    assert NUDGE not in str(after.json["messages"])  # the transcript never held it
    assert await env.read_text("hello.py") == "print('hi')\n"
    assert of(events, ProcessingEnd)[-1].stop_reason == "completed"


async def test_mid_stream_failures_warm_up_then_drop_the_tools(
    fake_server: FakeProviderServer,
) -> None:
    fake_server.push(in_stream(), in_stream(), in_stream(), Reply(text="I could not do it."))
    model = connect("openai-compat:qwen", base_url=fake_server.base_url("openai-compat"))
    async with session(model) as s:
        events = await collect(s, "Write hello.py")
        assert problems(s.history) == []
    await model.aclose()
    retries = of(events, Retry)
    assert [(r.attempt, r.error_type) for r in retries] == [
        (1, "MalformedToolCallError"),
        (2, "MalformedToolCallError"),
        (3, "MalformedToolCallError"),
    ]
    assert all(r.discarded_text for r in retries)  # text had streamed before the error chunk
    requests = fake_server.requests
    assert [r.json.get("temperature") for r in requests] == [None, 0.4, 0.8, 0.4]
    assert ["tools" in r.json for r in requests] == [True, True, True, False]
    assert last_user_text(requests[3]).endswith(NO_TOOLS)
    end = of(events, ProcessingEnd)[-1]
    assert (end.stop_reason, end.text) == ("completed", "I could not do it.")


async def test_when_nothing_helps_the_cycle_ends_on_an_error_and_the_session_lives(
    fake_server: FakeProviderServer,
) -> None:
    fake_server.push(*[http_500()] * 4, Reply(text="still here"))
    model = connect("openai-compat:qwen", base_url=fake_server.base_url("openai-compat"))
    async with session(model) as s:
        events = await collect(s, "Write hello.py")
        (error,) = of(events, ErrorEvent)
        assert error.error_type == "MalformedToolCallError" and not error.fatal
        assert of(events, ProcessingEnd)[-1].stop_reason == "error"
        again = await collect(s, "Say something")
    await model.aclose()
    assert of(again, ProcessingEnd)[-1].text == "still here"
