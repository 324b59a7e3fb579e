"""A tool call behind its guards: ``before_tool`` hooks, permission, timeout, ``after_tool``
hooks, around a call ``ToolRegistry.prepare`` looked up, validated and described. Whatever goes
wrong becomes an ``is_error`` output; a hook that raises also produces an ``error`` event.
Permission, checkpoints, the diff and the preview read what the call's tool declares
(``PreparedCall.effects``), by the arguments as its executor names them."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from taor.agent.checkpoints.watch import Watch, watch_for
from taor.agent.events import ErrorEvent, Event, PermissionDecision, PermissionRequest
from taor.agent.loop import parking
from taor.agent.parts import CanUseTool, Guards
from taor.agent.policy.decisions import Decision, as_decision
from taor.agent.policy.hooks import (
    AnswerCall,
    DenyCall,
    HookFailure,
    ToolCallInfo,
    run_after_tool,
    run_before_tool,
)
from taor.agent.policy.preview import edit_preview
from taor.llm.types import ToolCallPart
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.diff import read_texts, unified_diff
from taor.tools.prepared import PreparedCall

Emit = Callable[[Event], None]


async def guarded_output(
    rt: Guards,
    prepared: PreparedCall | ToolOutput,
    emit: Emit,
    on_output: Callable[[str], None],
) -> ToolOutput:
    """The output of a prepared call (or the error output of a call that could not be)."""
    if isinstance(prepared, ToolOutput):
        return prepared
    call = prepared.call
    info = ToolCallInfo(call_id=call.id, name=call.name, arguments=prepared.arguments)
    before = await run_before_tool(rt.hooks, info)
    if isinstance(before, HookFailure):
        return _hook_failed(before, emit)
    if isinstance(before, AnswerCall):
        return before.output
    if isinstance(before, DenyCall):
        return ToolOutput.error(f"{call.name} was not run: {before.message}")
    if before.arguments is not prepared.arguments:
        prepared = rt.tools.revalidate(prepared, dict(before.arguments))
        if isinstance(prepared, ToolOutput):
            return prepared
        info = before
    denied = await _permission(rt, prepared, emit)
    if denied is not None:
        return denied
    output = await _execute(rt, prepared, on_output)
    after = await run_after_tool(rt.hooks, info, output)
    if isinstance(after, HookFailure):
        return _hook_failed(after, emit)
    return after


def _hook_failed(failure: HookFailure, emit: Emit) -> ToolOutput:
    emit(ErrorEvent(message=failure.message, error_type=type(failure.error).__name__))
    return failure.output()


async def _execute(
    rt: Guards, prepared: PreparedCall, on_output: Callable[[str], None]
) -> ToolOutput:
    """Run the tool, its timeout applied, with the files it may change checkpointed around it."""
    watch = Watch()
    if rt.config.checkpoints and not prepared.read_only:  # reads change nothing to save
        effects = prepared.effects
        watch = watch_for(rt.checkpoints, prepared.call.name, effects, caller=rt.environment)
    await watch.start()
    try:
        return await _diffed(rt, prepared, on_output)
    finally:
        await watch.finish()


async def _diffed(
    rt: Guards, prepared: PreparedCall, on_output: Callable[[str], None]
) -> ToolOutput:
    """The tool's output; one that names the files it writes gets their diff for the host
    (``taor.tools.diff``)."""
    effects = prepared.effects
    paths = list(effects.writes) if not effects.writes_elsewhere else []
    before = await read_texts(rt.environment, paths) if paths else {}
    output = await _invoke(rt, prepared, on_output)
    if not before or output.is_error:
        return output
    diff = unified_diff(before, await read_texts(rt.environment, paths))
    if not diff:
        return output
    return dataclasses.replace(output, metadata={**output.metadata, "diff": diff})


async def _invoke(
    rt: Guards, prepared: PreparedCall, on_output: Callable[[str], None]
) -> ToolOutput:
    context = ToolContext(
        environment=rt.environment,
        on_output=on_output,
        call_id=prepared.call.id,
        output_dir=rt.output_dir(),
    )
    limit = rt.config.tool_timeout
    if not limit:
        return await rt.tools.invoke(prepared, context)
    try:
        async with asyncio.timeout(limit):
            return await rt.tools.invoke(prepared, context)
    except TimeoutError:
        return ToolOutput.error(
            f"Tool {prepared.call.name} did not finish within {limit:g} seconds and was stopped."
        )


async def _permission(rt: Guards, prepared: PreparedCall, emit: Emit) -> ToolOutput | None:
    """None when the call may run; else the error output that tells the model it was denied."""
    call, used, effects = prepared.call, prepared.used_arguments, prepared.effects
    verdict = rt.permissions.decide(call.name, used, read_only=prepared.read_only, effects=effects)
    if verdict.decision == "allow":
        return None
    source: str = verdict.source
    if verdict.decision == "deny":
        decision = Decision.deny(verdict.reason)
    else:
        decision, source = await _ask(rt, prepared, verdict.reason, emit)
    added: tuple[str, ...] = ()
    if decision.kind == "allow_always":
        rules = rt.permissions.allow_always(call.name, used, effects=effects)
        added = tuple(map(str, rules))
    emit(
        PermissionDecision(
            call_id=call.id,
            name=call.name,
            decision=decision.kind,
            source=source,
            message=decision.message,
            request_id=_request_id(call) if source == "host" else "",
            rules=added,
        )
    )
    if decision.allows:
        return None
    reason = decision.message or "the user did not allow it"
    return ToolOutput.error(f"Permission denied for {call.name}: {reason}")


async def _ask(rt: Guards, prepared: PreparedCall, reason: str, emit: Emit) -> tuple[Decision, str]:
    call, arguments = prepared.call, dict(prepared.arguments)
    settings = rt.config.permissions
    if rt.can_use_tool is not None:
        return await _ask_callback(rt.can_use_tool, call, arguments, emit), "callback"
    headless = Decision(
        kind="allow" if settings.headless == "allow" else "deny",
        message=""
        if settings.headless == "allow"
        else "no one was there to allow it "
        "(headless session); do without it or ask the user to allow it",
    )
    if not settings.interactive:
        return headless, "default"
    diff = await edit_preview(rt.environment, prepared.effects)  # before the question is open
    exact = rt.permissions.exact_rules(call.name, prepared.used_arguments, effects=prepared.effects)
    request_id = _request_id(call)
    future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
    rt.permission_waiters[request_id] = future
    request = PermissionRequest(
        request_id=request_id,
        call_id=call.id,
        name=call.name,
        arguments=arguments,
        summary=prepared.summary,
        reason=reason,
        rules=tuple(map(str, exact)),
        diff=diff,
    )
    await parking.record_question(rt, request)  # before anyone sees it: a close parks it
    parking.settle_early(rt, request_id, future)
    emit(request)
    try:
        async with asyncio.timeout(settings.timeout or None):
            decision, source = await future, "host"
    except TimeoutError:
        decision, source = headless, "default"
    finally:
        rt.permission_waiters.pop(request_id, None)
    await parking.record_answer(rt, request, decision)  # before the call runs
    return decision, source


def _request_id(call: ToolCallPart) -> str:
    return f"perm_{call.id}"


async def _ask_callback(
    callback: CanUseTool, call: ToolCallPart, arguments: Mapping[str, Any], emit: Emit
) -> Decision:
    """The callback's answer; one that raises (or answers nonsense) is reported and denies."""
    try:
        return as_decision(await callback(call.name, dict(arguments)))
    except Exception as error:
        message = f"The can_use_tool callback failed: {type(error).__name__}: {error}"
        emit(ErrorEvent(message=message, error_type=type(error).__name__))
        return Decision.deny(f"{message}; the call was not allowed")
