"""One scripted multi-step task (read a file, edit it, run a command while the user steers,
answer) through each of the four real adapters against the loopback FakeProviderServer: the
same events, the same file at the end, a valid transcript, and requests shaped as each provider
wants them (the tool result and the steering text in one user message where the provider
requires it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import (
    AssistantTextEnd,
    Event,
    ProcessingEnd,
    SteeringInjected,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from taor.agent.record.transcript import problems
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm import connect
from taor.testing import FakeProviderServer, RecordedRequest, Reply, ToolCall, text, tool_calls

PROVIDERS = ["anthropic", "openai", "openai-compat", "gemini"]
CONFIG = SessionConfig(permissions=PermissionConfig(mode="bypass"))
PROMPT = "Make app.py greet the world and check it runs."
STEER = "Also tell me the exit code."
ANSWER = "Done: app.py now prints hello world, and it exits with code 0."
EDIT = {"path": "app.py", "old_string": '"hello"', "new_string": '"hello world"'}
SCRIPT = [
    tool_calls(("read_file", {"path": "app.py"}), text="Let me look at app.py first."),
    tool_calls(("edit_file", EDIT)),
    tool_calls(("shell", {"command": "python app.py"})),
    text(ANSWER),
]


def tool_names(provider: str, body: Mapping[str, Any]) -> list[str]:
    tools = body.get("tools") or []
    if provider == "gemini":
        return [d["name"] for t in tools for d in t.get("functionDeclarations", [])]
    if provider == "openai-compat":
        return [t["function"]["name"] for t in tools]
    return [t["name"] for t in tools]


def last_tool_result_and_steering(provider: str, body: Mapping[str, Any]) -> list[str]:
    """What the request sends after the model's shell call, as ``kind:text`` strings, each
    message of the provider's format in one string (parts joined by ``+``)."""
    if provider == "anthropic":
        (last,) = body["messages"][-1:]
        assert last["role"] == "user"
        return [
            "+".join(
                f"tool_result:{p['content'][0]['text']}"
                if p["type"] == "tool_result"
                else f"text:{p['text']}"
                for p in last["content"]
            )
        ]
    if provider == "gemini":
        (last,) = body["contents"][-1:]
        assert last["role"] == "user"
        return [
            "+".join(
                f"tool_result:{p['functionResponse']['response']['output']}"
                if "functionResponse" in p
                else f"text:{p['text']}"
                for p in last["parts"]
            )
        ]
    if provider == "openai":
        output, message = body["input"][-2:]
        assert output["type"] == "function_call_output" and message["role"] == "user"
        return [f"tool_result:{output['output']}", f"text:{message['content'][0]['text']}"]
    tool, user = body["messages"][-2:]  # Chat Completions: a tool message, then a user one
    assert tool["role"] == "tool" and user["role"] == "user"
    return [f"tool_result:{tool['content']}", f"text:{user['content']}"]


def assert_requests(provider: str, requests: list[RecordedRequest]) -> None:
    assert len(requests) == 4
    for n, request in enumerate(requests):
        assert {"read_file", "edit_file", "shell"} <= set(tool_names(provider, request.json))
        assert len(request.tool_results) == n  # the history grows by one result per round
        assert PROMPT in request.body.decode()
        if provider == "gemini":
            assert request.path.endswith(":streamGenerateContent")
        else:
            assert request.json["stream"] is True
    first_result, edit_result, shell_result = requests[3].tool_results
    assert 'print("hello")' in first_result
    assert "Replaced 1 occurrence" in edit_result
    assert "hello world" in shell_result and "Exit code: 0" in shell_result
    shell_and_steering = [f"tool_result:{shell_result}", f"text:{STEER}"]
    if provider in ("anthropic", "gemini"):  # they need one user message for both
        shell_and_steering = ["+".join(shell_and_steering)]
    assert last_tool_result_and_steering(provider, requests[3].json) == shell_and_steering
    assert STEER not in requests[2].body.decode()  # steering waits for the end of the round


def assert_events(events: list[Event]) -> None:
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.name, e.summary) for e in starts] == [
        ("read_file", "read_file: app.py"),
        ("edit_file", "edit_file: app.py"),
        ("shell", "shell: python app.py"),
    ]
    assert [e.call_id for e in ends] == [e.call_id for e in starts]
    assert not any(e.is_error for e in ends)
    assert starts[1].arguments == EDIT
    texts = [e.text for e in events if isinstance(e, AssistantTextEnd)]
    assert texts == ["Let me look at app.py first.", "", "", ANSWER]
    assert len([e for e in events if isinstance(e, UsageEvent)]) == 4
    kinds = [e.kind for e in events]
    (steering,) = [e for e in events if isinstance(e, SteeringInjected)]
    assert steering.text == STEER
    assert kinds.index("steering_queued") < events.index(ends[2]) < events.index(steering)
    assert kinds[-1] == "processing_end"
    end = events[-1]
    assert isinstance(end, ProcessingEnd) and (end.stop_reason, end.text) == ("completed", ANSWER)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_same_task_through_each_adapter(
    provider: str, fake_server: FakeProviderServer
) -> None:
    env = MemoryEnvironment(files={"app.py": 'print("hello")\n'})
    fake_server.push(*SCRIPT)
    model = connect(
        f"{provider}:scenario-model", api_key="test", base_url=fake_server.base_url(provider)
    )
    try:
        async with Session(model, environment=env, config=CONFIG, profile=None) as session:

            def run_and_steer(command: str, cwd: str, variables: Mapping[str, str]) -> str:
                session.steer(STEER)  # the user speaks up while the command runs
                return "hello world\n"

            env.script("python app.py", run_and_steer)
            events = [event async for event in session.submit(PROMPT)]
            history = session.history
    finally:
        await model.aclose()

    assert_events(events)
    assert env.files["app.py"] == b'print("hello world")\n'
    assert [c.arguments["command"] for c in env.calls_of("run")] == ["python app.py"]
    assert problems(history) == []
    assert [t.kind for t in history] == [
        "user",
        "assistant",
        "tool_results",
        "assistant",
        "tool_results",
        "assistant",
        "tool_results",
        "steering",
        "assistant",
    ]
    assert_requests(provider, fake_server.requests)
    fake_server.assert_done()


async def test_calls_sharing_an_id_each_keep_their_own_result(
    fake_server: FakeProviderServer,
) -> None:
    """A local server that gives two calls of one response the same id (and reuses it in the
    next response): each call runs, and the next request pairs each with its own output."""
    env = MemoryEnvironment(files={"a.txt": "alpha\n", "b.txt": "beta\n"})

    def read(path: str) -> ToolCall:
        return ToolCall(name="read_file", arguments={"path": path}, id="call_0")

    fake_server.push(
        Reply(tool_calls=(read("a.txt"), read("b.txt"))),
        Reply(tool_calls=(read("a.txt"),)),
        text("alpha and beta"),
    )
    base_url = fake_server.base_url("openai-compat")
    model = connect("openai-compat:local", api_key="t", base_url=base_url)
    try:
        async with Session(model, environment=env, config=CONFIG, profile=None) as session:
            events = [event async for event in session.submit("read both")]
            history = session.history
    finally:
        await model.aclose()

    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.call_id for e in ends] == ["call_0", "call_0_2", "call_0_3"]
    assert ["alpha" in e.output for e in ends] == [True, False, True]
    assert problems(history) == []
    second = fake_server.requests[1].json["messages"]
    calls = [c["id"] for m in second if m["role"] == "assistant" for c in m["tool_calls"]]
    results = {m["tool_call_id"]: m["content"] for m in second if m["role"] == "tool"}
    assert calls == ["call_0", "call_0_2"]
    assert "alpha" in results["call_0"] and "beta" not in results["call_0"]
    assert "beta" in results["call_0_2"]
    third = fake_server.requests[2].json["messages"]
    assert [c["id"] for m in third if m["role"] == "assistant" for c in m["tool_calls"]] == [
        "call_0",
        "call_0_2",
        "call_0_3",
    ]
