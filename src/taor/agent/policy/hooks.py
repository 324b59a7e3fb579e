"""Hooks: async callables the host gives a session to watch and steer it.

- ``before_tool(call)``: ``None`` keeps the call; ``ChangeArguments`` runs it with other
  arguments (the loop validates them again); ``DenyCall`` refuses it with a message for the
  model; ``AnswerCall`` gives an output in place of running the tool.
- ``after_tool(call, output)``: ``None`` keeps the output; a ``ToolOutput`` replaces it.
- ``on_user_prompt(text)``: ``None`` keeps the prompt; a ``str`` replaces it.
- ``on_stop(final_text)``: ``None`` (or a blank ``str``) lets the cycle end; a ``str`` continues
  the loop with it as a steering message.
- ``before_compaction(tokens)``: told the estimated token count before compacting.

Hooks of a kind run in order, each seeing what the one before produced; the first ``DenyCall``
or ``AnswerCall`` (before_tool) or ``str`` (on_stop) ends the run. The ``run_*`` helpers never
raise for a hook's failure: an exception (or a result of the wrong type) becomes a
``HookFailure`` value, so the loop can emit an ``error`` event and give the model a clear tool
error (``HookFailure.output()``). Cancellation propagates.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any, Literal, TypeAlias

from taor._records import frozen
from taor.tools.base import ToolOutput


@frozen
class ToolCallInfo:
    call_id: str
    name: str
    arguments: Mapping[str, Any]


@frozen
class ChangeArguments:
    kind: Literal["change_arguments"] = "change_arguments"
    arguments: Mapping[str, Any]


@frozen
class DenyCall:
    kind: Literal["deny"] = "deny"
    message: str


@frozen
class AnswerCall:
    kind: Literal["answer"] = "answer"
    output: ToolOutput


@frozen
class HookFailure:
    """A hook raised (or returned something it may not); ``hook`` names it."""

    kind: Literal["hook_failure"] = "hook_failure"
    hook: str
    error: Exception

    @property
    def message(self) -> str:
        return f"The hook {self.hook} failed: {type(self.error).__name__}: {self.error}"

    def output(self) -> ToolOutput:
        """The tool error the model gets in place of the call's result."""
        return ToolOutput.error(f"{self.message}. The tool call was not completed.")


BeforeToolResult: TypeAlias = ChangeArguments | DenyCall | AnswerCall
BeforeToolHook: TypeAlias = Callable[[ToolCallInfo], Awaitable[BeforeToolResult | None]]
AfterToolHook: TypeAlias = Callable[[ToolCallInfo, ToolOutput], Awaitable[ToolOutput | None]]
UserPromptHook: TypeAlias = Callable[[str], Awaitable[str | None]]
StopHook: TypeAlias = Callable[[str], Awaitable[str | None]]
CompactionHook: TypeAlias = Callable[[int], Awaitable[None]]


@frozen
class Hooks:
    before_tool: tuple[BeforeToolHook, ...] = ()
    after_tool: tuple[AfterToolHook, ...] = ()
    on_user_prompt: tuple[UserPromptHook, ...] = ()
    on_stop: tuple[StopHook, ...] = ()
    before_compaction: tuple[CompactionHook, ...] = ()


def hook_name(hook: Callable[..., Any]) -> str:
    return str(getattr(hook, "__qualname__", None) or getattr(hook, "__name__", None) or hook)


def _wrong_type(hook: Callable[..., Any], value: object, expected: str) -> HookFailure:
    error = TypeError(f"returned {type(value).__name__}; expected {expected}")
    return HookFailure(hook=hook_name(hook), error=error)


async def run_before_tool(
    hooks: Hooks, call: ToolCallInfo
) -> ToolCallInfo | DenyCall | AnswerCall | HookFailure:
    """The call to run (its arguments as the hooks left them), or why it does not run."""
    for hook in hooks.before_tool:
        try:
            result: object = await hook(call)
        except Exception as error:
            return HookFailure(hook=hook_name(hook), error=error)
        if isinstance(result, ChangeArguments):
            call = replace(call, arguments=result.arguments)
        elif isinstance(result, DenyCall | AnswerCall):
            return result
        elif result is not None:
            return _wrong_type(hook, result, "None, ChangeArguments, DenyCall or AnswerCall")
    return call


async def run_after_tool(
    hooks: Hooks, call: ToolCallInfo, output: ToolOutput
) -> ToolOutput | HookFailure:
    """The output as the hooks left it."""
    for hook in hooks.after_tool:
        try:
            result: object = await hook(call, output)
        except Exception as error:
            return HookFailure(hook=hook_name(hook), error=error)
        if isinstance(result, ToolOutput):
            output = result
        elif result is not None:
            return _wrong_type(hook, result, "None or a ToolOutput")
    return output


async def run_user_prompt(hooks: Hooks, text: str) -> str | HookFailure:
    """The prompt as the hooks left it."""
    for hook in hooks.on_user_prompt:
        try:
            result: object = await hook(text)
        except Exception as error:
            return HookFailure(hook=hook_name(hook), error=error)
        if isinstance(result, str):
            text = result
        elif result is not None:
            return _wrong_type(hook, result, "None or a str")
    return text


async def run_stop(hooks: Hooks, final_text: str) -> str | HookFailure | None:
    """A steering message to continue with (the first hook to give one wins), or None."""
    for hook in hooks.on_stop:
        try:
            result: object = await hook(final_text)
        except Exception as error:
            return HookFailure(hook=hook_name(hook), error=error)
        if isinstance(result, str):
            if result.strip():
                return result
        elif result is not None:
            return _wrong_type(hook, result, "None or a str")
    return None


async def run_before_compaction(hooks: Hooks, tokens: int) -> HookFailure | None:
    for hook in hooks.before_compaction:
        try:
            await hook(tokens)
        except Exception as error:
            return HookFailure(hook=hook_name(hook), error=error)
    return None
