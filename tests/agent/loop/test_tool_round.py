"""Calls answered without running: a session that takes one tool call per reply (the
local-model profile's choice) runs only the first of several, and the last call of a reply cut
at the output token limit is answered, not run."""

from __future__ import annotations

from dataclasses import replace

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import ToolCallEnd
from taor.agent.loop.tool_round import CUT_OFF
from taor.agent.record.transcript import problems
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm import Usage, connect
from taor.testing import FakeProviderServer, ScriptedModel, text, tool_calls

from ..loop_support import collect, config, of


async def test_one_call_per_reply_stops_reading_at_the_second_call() -> None:
    """The first call runs; the model's stream is closed as a second begins, so the calls after
    it are never generated (a small model can write the same call dozens of times)."""
    env = MemoryEnvironment(files={"a.txt": "alpha\n", "b.txt": "beta\n"})
    model = ScriptedModel(
        [
            tool_calls(
                ("read_file", {"path": "a.txt"}),
                ("read_file", {"path": "b.txt"}),
                ("read_file", {"path": "a.txt"}),
            ),
            text("done"),
        ]
    )
    cfg = config(parallel_tool_calls=False)
    async with Session(model, environment=env, config=cfg) as session:
        events = await collect(session, "read both")
        assert [r.tool_choice.parallel for r in model.requests] == [False, False]
        (only,) = of(events, ToolCallEnd)
        assert not only.is_error and "alpha" in only.output
        first = session.history[1]
        assert [c.arguments for c in first.message.tool_calls] == [{"path": "a.txt"}]  # type: ignore[union-attr]
        assert first.finish == "tool_calls"  # type: ignore[union-attr]
        read = [call.arguments.get("path") for call in env.calls_of("read_text")]
        assert "b.txt" not in read
        assert problems(session.history) == []


async def test_sessions_take_parallel_calls_unless_their_profile_says_otherwise(
    fake_server: FakeProviderServer,
) -> None:
    local = connect(
        "openai-compat:qwen", api_key="k", base_url=fake_server.base_url("openai-compat")
    )
    claude = ScriptedModel([], provider="anthropic", model_id="claude-sonnet-4-5")
    env = MemoryEnvironment()
    assert Session(local, environment=env).config.parallel_tool_calls is False
    assert Session(claude, environment=env).config.parallel_tool_calls is True
    chosen = SessionConfig(parallel_tool_calls=True)
    assert Session(local, environment=env, config=chosen).config.parallel_tool_calls is True
    await local.aclose()


async def test_the_last_call_of_a_reply_cut_at_max_tokens_is_answered_not_run(
    fake_server: FakeProviderServer,
) -> None:
    """Through the real stream: finish_reason "length" with calls whose last was cut short."""
    cut = replace(
        tool_calls(
            ("shell", {"command": "echo one >> log"}),
            ("shell", {"command": "echo two >> log"}),
            ("shell", {"command": "rm -rf build"}),  # the server says it stopped mid-call
        ),
        finish="length",
    )
    fake_server.push(cut, text("done"))
    model = connect("openai-compat:qwen", base_url=fake_server.base_url("openai-compat"))
    env = MemoryEnvironment()
    cfg = config(parallel_tool_calls=True, permissions=PermissionConfig(mode="bypass"))
    async with Session(model, environment=env, config=cfg) as session:
        events = await collect(session, "go")
        ends = of(events, ToolCallEnd)
        assert [e.output == CUT_OFF for e in ends] == [False, False, True]
        ran = [call.arguments.get("command") for call in env.calls_of("run")]
        assert "echo two >> log" in ran and "rm -rf build" not in ran
        assert problems(session.history) == []
    await model.aclose()


async def test_one_call_per_reply_stops_reading_once_the_call_is_whole(
    fake_server: FakeProviderServer,
) -> None:
    """Through the real stream, arguments a few characters a delta: reading stops when they
    make a whole JSON object (a brace inside a string does not end it), before the provider's
    usage arrives, so the usage recorded is taor's estimate, not taken to calibrate it."""
    command = "echo '{}' > braces.json && echo '{\"a\": 1}'"
    reply = tool_calls(
        ("shell", {"command": command}),
        text="Running it.",
        usage=Usage(input_tokens=999_999, output_tokens=77_777),
        chunk=3,
    )
    fake_server.push(reply, text("done", usage=Usage()))  # no usage: nothing to calibrate on
    model = connect("openai-compat:qwen", base_url=fake_server.base_url("openai-compat"))
    env = MemoryEnvironment()
    async with Session(model, environment=env, config=config(parallel_tool_calls=False)) as s:
        ratio = s.usage_report().token_ratio
        events = await collect(s, "go")
        (end,) = of(events, ToolCallEnd)
        assert not end.is_error
        commands = [call.arguments.get("command") for call in env.calls_of("run")]
        assert command in commands, commands
        turn = s.history[1]
        usage = turn.usage  # type: ignore[union-attr]
        assert 0 < usage.input_tokens < 999_999 and 0 < usage.output_tokens < 77_777
        assert s.usage_report().token_ratio == ratio
        assert problems(s.history) == []
    await model.aclose()
