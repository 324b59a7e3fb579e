from __future__ import annotations

import asyncio
from typing import Any

import pytest

from taor.agent.policy.hooks import (
    AnswerCall,
    BeforeToolResult,
    ChangeArguments,
    DenyCall,
    HookFailure,
    Hooks,
    ToolCallInfo,
    run_after_tool,
    run_before_compaction,
    run_before_tool,
    run_stop,
    run_user_prompt,
)
from taor.tools.base import ToolOutput

CALL = ToolCallInfo(call_id="c1", name="shell", arguments={"command": "ls"})


async def test_no_hooks_change_nothing() -> None:
    hooks = Hooks()
    assert await run_before_tool(hooks, CALL) == CALL
    output = ToolOutput.of("x")
    assert await run_after_tool(hooks, CALL, output) is output
    assert await run_user_prompt(hooks, "hi") == "hi"
    assert await run_stop(hooks, "done") is None
    assert await run_before_compaction(hooks, 1000) is None


async def test_before_tool_hooks_chain_changed_arguments() -> None:
    seen: list[dict[str, Any]] = []

    async def add_flag(call: ToolCallInfo) -> BeforeToolResult | None:
        seen.append(dict(call.arguments))
        return ChangeArguments(arguments={**call.arguments, "command": "ls -la"})

    async def observe(call: ToolCallInfo) -> BeforeToolResult | None:
        seen.append(dict(call.arguments))
        return None

    result = await run_before_tool(Hooks(before_tool=(add_flag, observe)), CALL)
    assert result == ToolCallInfo(call_id="c1", name="shell", arguments={"command": "ls -la"})
    assert seen == [{"command": "ls"}, {"command": "ls -la"}]


@pytest.mark.parametrize(
    "answer", [DenyCall(message="not on Fridays"), AnswerCall(output=ToolOutput.of("cached"))]
)
async def test_deny_or_answer_stops_the_chain(answer: DenyCall | AnswerCall) -> None:
    later: list[str] = []

    async def decide(call: ToolCallInfo) -> BeforeToolResult | None:
        return answer

    async def never(call: ToolCallInfo) -> BeforeToolResult | None:
        later.append(call.name)
        return None

    assert await run_before_tool(Hooks(before_tool=(decide, never)), CALL) == answer
    assert later == []


async def test_a_raising_hook_becomes_a_failure_value() -> None:
    async def broken(call: ToolCallInfo) -> BeforeToolResult | None:
        raise ValueError("boom")

    failure = await run_before_tool(Hooks(before_tool=(broken,)), CALL)
    assert isinstance(failure, HookFailure)
    assert failure.hook.endswith("broken")
    assert isinstance(failure.error, ValueError)
    assert failure.message.endswith("failed: ValueError: boom")
    output = failure.output()
    assert output.is_error and "boom" in output.text and "not completed" in output.text


async def test_a_hook_of_the_wrong_type_becomes_a_failure_value() -> None:
    async def wrong(call: ToolCallInfo) -> Any:
        return {"command": "rm -rf /"}

    def not_async(call: ToolCallInfo) -> None:
        return None

    for hook in (wrong, not_async):
        failure = await run_before_tool(Hooks(before_tool=(hook,)), CALL)  # type: ignore[arg-type]
        assert isinstance(failure, HookFailure) and isinstance(failure.error, TypeError)


async def test_cancellation_propagates() -> None:
    async def cancelled(call: ToolCallInfo) -> BeforeToolResult | None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await run_before_tool(Hooks(before_tool=(cancelled,)), CALL)


async def test_after_tool_hooks_replace_the_output_in_turn() -> None:
    async def redact(call: ToolCallInfo, output: ToolOutput) -> ToolOutput | None:
        return ToolOutput.of(output.text.replace("secret", "[redacted]"))

    async def keep(call: ToolCallInfo, output: ToolOutput) -> ToolOutput | None:
        return None

    hooks = Hooks(after_tool=(redact, keep))
    result = await run_after_tool(hooks, CALL, ToolOutput.of("the secret is 42"))
    assert isinstance(result, ToolOutput) and result.text == "the [redacted] is 42"

    async def broken(call: ToolCallInfo, output: ToolOutput) -> ToolOutput | None:
        raise RuntimeError("after")

    failed = await run_after_tool(Hooks(after_tool=(broken,)), CALL, ToolOutput.of("x"))
    assert isinstance(failed, HookFailure) and str(failed.error) == "after"


async def test_user_prompt_hooks_rewrite_in_turn() -> None:
    async def expand(text: str) -> str | None:
        return text.replace("@today", "2026-09-01")

    async def shout(text: str) -> str | None:
        return text.upper()

    hooks = Hooks(on_user_prompt=(expand, shout))
    assert await run_user_prompt(hooks, "plan @today") == "PLAN 2026-09-01"

    async def refuse(text: str) -> str | None:
        raise PermissionError("no prompts about that")

    failure = await run_user_prompt(Hooks(on_user_prompt=(refuse,)), "x")
    assert isinstance(failure, HookFailure) and isinstance(failure.error, PermissionError)


async def test_stop_hooks_the_first_message_continues_the_loop() -> None:
    calls: list[str] = []

    async def fine(text: str) -> str | None:
        calls.append("fine")
        return "  "  # blank: no reason to continue

    async def tests_first(text: str) -> str | None:
        calls.append("tests")
        return None if "tests pass" in text else "Run the tests before you finish."

    async def unreachable(text: str) -> str | None:
        calls.append("unreachable")
        return "again"

    hooks = Hooks(on_stop=(fine, tests_first, unreachable))
    assert await run_stop(hooks, "done") == "Run the tests before you finish."
    assert calls == ["fine", "tests"]
    calls.clear()
    assert await run_stop(Hooks(on_stop=(fine, tests_first)), "done, tests pass") is None


async def test_before_compaction_hooks_get_the_token_count() -> None:
    seen: list[int] = []

    async def note(tokens: int) -> None:
        seen.append(tokens)

    async def broken(tokens: int) -> None:
        raise OSError("disk full")

    assert await run_before_compaction(Hooks(before_compaction=(note, note)), 9000) is None
    assert seen == [9000, 9000]
    failure = await run_before_compaction(Hooks(before_compaction=(broken, note)), 1)
    assert isinstance(failure, HookFailure) and seen == [9000, 9000]
