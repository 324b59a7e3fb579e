"""The steps of the turn loop other than the model call and the tool round."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Sequence

from taor.agent.events import (
    ErrorEvent,
    Event,
    Interrupted,
    LoopDetection,
    SteeringInjected,
    SystemPromptChanged,
    ToolCallEnd,
    TurnLimit,
    UserInput,
    WarningEvent,
)
from taor.agent.loop import parking
from taor.agent.loop.deadline import Deadline
from taor.agent.loop.model_call import record_partial, record_response
from taor.agent.loop.stream import Streamed, stream_response
from taor.agent.parts import Books, Ending, Guards, Opening
from taor.agent.policy.answers import steps_of, unchecked
from taor.agent.policy.hooks import HookFailure, Hooks, run_stop, run_user_prompt
from taor.agent.policy.loop_detection import LoopDetector
from taor.agent.record.transcript import synthetic_result
from taor.agent.record.turns import NoticeTurn, ToolResultsTurn, UserTurn
from taor.agent.record.unicode import repaired
from taor.errors import AuthenticationError, ContextLengthError, ProviderError, brief
from taor.llm.types import ImagePart, TextPart, ToolCallPart, ToolChoice, ToolResultPart
from taor.tools.registry import ToolRegistry

LIMIT_SUMMARY = (
    "{message} Do not call any tools. In a few short paragraphs, summarize for the user what "
    "has been done so far, what remains to be done, and how to continue."
)


async def begin(
    rt: Opening, cycle: int, prompt: str, images: tuple[ImagePart, ...] = ()
) -> list[Event]:
    """The input as a user turn (after the prompt hooks), its images after its text, then any
    queued steering."""
    rt.loops.reset()
    events: list[Event] = []
    changed = await run_user_prompt(rt.hooks, prompt)
    if isinstance(changed, HookFailure):
        events.append(_hook_error(changed))
    else:
        prompt = changed
    prompt, bad = repaired(prompt)
    if bad:
        message = f"The input was not all UTF-8: {bad} character(s) replaced with U+FFFD."
        events.append(WarningEvent(message=message, code="encoding"))
    if rt.prompt is not None and await rt.prompt.refresh_if_changed():
        events.append(SystemPromptChanged(reason="a project instruction file changed"))
    await rt.append(UserTurn(content=(TextPart(text=prompt), *images)))
    events.append(UserInput(text=prompt, cycle=cycle))
    events.extend(await rt.drain_steering())
    return events


async def after_limit(rt: Ending, limit: TurnLimit, streamed: Streamed) -> AsyncIterator[Event]:
    """Report the limit; then, unless switched off or the call or cost limit is used up, ask
    for a last text-only summary (left in ``streamed``: it is the cycle's final text), bounded by ``summary_tokens`` and
    ``summary_time`` and stopped by an interrupt like any other model call."""
    yield limit
    limits = rt.config.limits
    if not limits.summary_on_limit or rt.spent() is not None:
        return  # switched off, or it would be a call past the session's call or cost limit
    yield await rt.inject(LIMIT_SUMMARY.format(message=limit.message), "limit")
    request = rt.request(tool_choice=ToolChoice(mode="none"))
    if limits.summary_tokens:
        tokens = min(request.max_tokens or limits.summary_tokens, limits.summary_tokens)
        request = dataclasses.replace(request, max_tokens=tokens)
    deadline = Deadline.arm(rt.cycle, limits.summary_time)
    try:
        try:
            async for event in stream_response(rt, request, streamed):
                yield event
        finally:
            deadline.cancel()
    except asyncio.CancelledError:
        if rt.cycle.stopping is None:
            raise
        for event in await _summary_cut(rt, streamed, timed_out=deadline.fired):
            yield event
        return
    except ProviderError as error:
        if isinstance(error, AuthenticationError):
            raise  # the key is bad: the session closes, as for any other call
        message = f"The summary after the limit failed: {brief(str(error))}"
        yield WarningEvent(message=message, code="limit")
        await rt.append(NoticeTurn(text=f"summary after the limit failed: {error}"))
        return
    assert streamed.response is not None
    for event in await record_response(rt, streamed.response):
        yield event
    await settle_pending(rt, {}, "cancelled")  # a model that called tools anyway


async def _summary_cut(rt: Ending, streamed: Streamed, *, timed_out: bool) -> list[Event]:
    """The summary stopped by its time bound or by the host: keep what it said."""
    _uncancel()
    events: list[Event] = []
    partial = await record_partial(rt, streamed)
    if partial is not None:
        events.append(partial)
    if timed_out:
        seconds = rt.config.limits.summary_time
        message = f"The summary after the limit was cut off after {seconds:g} seconds."
        events.append(WarningEvent(message=message, code="limit"))
        return events
    reason = rt.cycle.stop_notice
    await rt.append(NoticeTurn(text=reason))
    events.append(Interrupted(reason=reason))
    return events


async def answer_check(rt: Guards, text: str) -> SteeringInjected | None:
    """With ``check_answers`` on, the model sent back with a note when its final answer leaves
    a claim unchecked (``taor.agent.policy.answers``), once per input and check."""
    if not rt.config.check_answers:
        return None
    steps = steps_of(rt.transcript.turns, rt.tools)
    note = unchecked(steps, text, done=rt.cycle.checked)
    if note is None:
        return None
    rt.cycle.checked.add(note.check)
    return await rt.inject(note.text, "check")


async def stop_hook(hooks: Hooks, books: Books, text: str) -> Event | None:
    """A steering event when an ``on_stop`` hook asks the loop to go on; else None."""
    more = await run_stop(hooks, text)
    if isinstance(more, HookFailure):
        return _hook_error(more)  # reported; the cycle ends as it would have
    if more is None:
        return None
    return await books.inject(more, "hook")


async def check_loops(
    tools: ToolRegistry, loops: LoopDetector, calls: Sequence[ToolCallPart]
) -> LoopDetection | None:
    """Record the round's calls; the loop detection a hit reports (the loop then steers the
    model away from a first hit, or stops the cycle)."""
    found = None
    for call in calls:
        # by the arguments the tool uses: those a forgiving profile ignores make no difference
        used = tools.translated(call)
        verdict = loops.record(call, used=used)
        if verdict is not None and (found is None or verdict.kind == "stop"):
            found = verdict
    if found is None:
        return None
    return LoopDetection(
        message=found.message, cycle_length=found.cycle_length, stopped=found.kind == "stop"
    )


async def finish_interrupted(
    rt: Ending, streamed: Streamed, results: dict[str, ToolResultPart]
) -> list[Event]:
    """After an interrupt, a close or the wall-time deadline (``rt.cycle.stopping`` says which):
    partial text kept, pending calls answered, notice written. A close while a person is asked
    (the question recorded) leaves the round waiting for the answer instead (``parking``)."""
    _uncancel()
    if rt.cycle.stopping == "closed" and (parked := await parking.park(rt)) is not None:
        return parked
    events: list[Event] = []
    if streamed.response is None and streamed.assembler is not None:
        partial = await record_partial(rt, streamed)
        if partial is not None:
            events.append(partial)
    why = "time_limit" if rt.cycle.stopping == "turn_limit" else "interrupted"
    await settle_pending(rt, results, why)
    for call_id, name in rt.cycle.running_calls.items():  # started, cut off: the host sees them end
        text = synthetic_result(call_id, name, why).text
        events.append(ToolCallEnd(call_id=call_id, name=name, output=text, is_error=True))
    reason = rt.cycle.stop_notice
    await rt.append(NoticeTurn(text=reason))
    if rt.cycle.stopping != "turn_limit":  # the deadline is reported by its turn_limit event
        events.append(Interrupted(reason=reason))
    return events


def _uncancel() -> None:
    """The cancellation that stopped the step has been dealt with: the cycle goes on to end."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


async def settle_pending(books: Books, results: dict[str, ToolResultPart], why: str) -> None:
    """Give every call of the last assistant turn that has no result one, in call order."""
    pending = books.transcript.pending_calls()
    if not pending:
        return
    answered = tuple(
        results.get(call_id) or synthetic_result(call_id, name, why) for call_id, name in pending
    )
    await books.append(ToolResultsTurn(results=answered))


def failure_events(error: ProviderError) -> list[Event]:
    """A model call failed for good: an error (fatal for authentication), and advice."""
    fatal = isinstance(error, AuthenticationError)
    events: list[Event] = [
        ErrorEvent(
            message=brief(str(error)),  # a provider's body can be long: the log has it whole
            error_type=type(error).__name__,
            fatal=fatal,
            request_id=error.request_id or "",
        )
    ]
    if isinstance(error, ContextLengthError):
        events.append(
            WarningEvent(
                message="The conversation no longer fits the model's context window. Compact "
                "it, or start a new session with a summary of this one.",
                code="context_length",
            )
        )
    return events


def _hook_error(failure: HookFailure) -> ErrorEvent:
    return ErrorEvent(message=failure.message, error_type=type(failure.error).__name__)
