"""The turn loop: one async generator of events per input, written once.

Think, act, observe, repeat: take the input, then call the model, run the tools it asks for,
give back the results, until it answers without tools, a limit or a loop stops it, the host
interrupts, or the model fails for good. Each step is a helper of its own module; whatever
happens, the transcript stays valid: an interrupt keeps the partial text and answers pending
calls with ``interrupted`` results, an error answers them with ``cancelled`` ones. The
wall-time limit is a deadline (``taor.agent.loop.deadline``) that stops the step in flight as an
interrupt would, then ends the cycle as the other limits do, with a bounded summary.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field

from taor.agent.events import (
    ErrorEvent,
    Event,
    ProcessingEnd,
    SteeringInjected,
    StopReason,
    TurnLimit,
    WarningEvent,
)
from taor.agent.loop.course import course_note
from taor.agent.loop.deadline import Deadline
from taor.agent.loop.input_check import oversized
from taor.agent.loop.model_call import call_model, record_response
from taor.agent.loop.parking import forget_parked
from taor.agent.loop.steps import (
    after_limit,
    answer_check,
    begin,
    check_loops,
    failure_events,
    finish_interrupted,
    settle_pending,
    stop_hook,
)
from taor.agent.loop.stream import Streamed
from taor.agent.loop.tool_round import run_round
from taor.agent.parts import Ending
from taor.agent.record.parking import ParkedRound
from taor.agent.record.turns import AssistantTurn, NoticeTurn, ToolResultsTurn, Turn, UserTurn
from taor.agent.runtime import Runtime
from taor.errors import InvalidRequestError, ProviderError, brief
from taor.llm.types import ImagePart, ToolCallPart, ToolResultPart

# What is too long for an event (a provider's whole answer, a traceback) goes to this logger;
# the command writes it to its log file. Silent unless a host gives it a handler.
_log = logging.getLogger("taor.agent")
_log.addHandler(logging.NullHandler())


@dataclass(kw_only=True, slots=True)
class _Progress:
    """How far the cycle got: what an interrupt must finish and what the end reports."""

    streamed: Streamed = field(default_factory=Streamed)
    results: dict[str, ToolResultPart] = field(default_factory=dict)
    stop: StopReason = "completed"
    text: str = ""
    limit: TurnLimit | None = None

    def ended(self) -> bool:
        """Whether a step ended the cycle (its stop reason is set)."""
        return self.stop != "completed"


async def run_cycle(
    rt: Runtime,
    cycle: int,
    prompt: str,
    images: tuple[ImagePart, ...] = (),
    *,
    parked: ParkedRound | None = None,
) -> AsyncGenerator[Event, None]:
    """The events of one input (its text and images), ``processing_end`` last (the driver has
    started ``rt.cycle``). With ``parked``, the cycle is the one a resumed session left waiting
    for a permission answer: it goes on with that round (``taor.agent.loop.parking``)."""
    at = _Progress()
    deadline = Deadline.arm(rt.cycle, rt.config.limits.max_wall_time)
    try:
        try:
            first = _go_on(rt, parked, at) if parked else _begin(rt, cycle, prompt, images, at)
            async for event in first:
                yield event
            async for event in _think_act_observe(rt, at):
                yield event
        finally:
            deadline.cancel()  # before any handler below awaits
    except asyncio.CancelledError:
        if rt.cycle.stopping is None:
            raise  # not ours: whoever cancelled the session's task wants it gone
        at.stop = rt.cycle.stopping  # the host's interrupt or close, or the wall-time deadline
        for event in await finish_interrupted(rt, at.streamed, at.results):
            yield event
        if deadline.fired:
            at.limit = rt.wall_time_limit()
    except ProviderError as error:
        at.stop = "error"
        for event in await _failed(rt, error):
            yield event
    except Exception as error:  # a bug in taor or a host callback: keep the session usable
        at.stop = "error"
        _log.error("internal error in the turn loop", exc_info=True)
        await settle_pending(rt, at.results, "cancelled")
        what = brief(f"{type(error).__name__}: {error}")  # the whole of it is in the log
        await rt.append(NoticeTurn(text=f"internal error: {what}"))
        yield ErrorEvent(message=f"Internal error: {what}", error_type=type(error).__name__)
    if at.limit is not None:
        async for event in _limit_summary(rt, at):
            yield event
    yield ProcessingEnd(
        cycle=cycle, stop_reason=at.stop, text=at.text, model_calls=rt.cycle.model_calls
    )


async def _begin(
    rt: Runtime, cycle: int, prompt: str, images: tuple[ImagePart, ...], at: _Progress
) -> AsyncIterator[Event]:
    if (
        refused := oversized(rt.tokens, rt.model.model_id, prompt)
    ) is not None:  # not sent, not recorded
        at.stop = "error"
        yield refused
        return
    for event in await begin(rt, cycle, prompt, images):
        yield event


async def _go_on(rt: Runtime, parked: ParkedRound, at: _Progress) -> AsyncIterator[Event]:
    """The rest of a parked round: its question asked again, the calls after it run."""
    rt.cycle.rounds += 1
    rt.cycle.calls += len(parked.calls)
    try:
        async for event in _act_observe(rt, parked.calls, at, cut=parked.cut, done=parked.done):
            yield event
    finally:
        forget_parked(rt)


async def _think_act_observe(rt: Runtime, at: _Progress) -> AsyncIterator[Event]:
    if at.ended():  # the input was refused, or the resumed round stopped the cycle
        return
    while True:
        if (limit := rt.limit_reached()) is not None:
            at.limit = limit
            return
        at.streamed = Streamed()
        async for event in call_model(rt, at.streamed):  # compacts first when due
            yield event
        if at.streamed.response is None:  # a limit kept the call from being asked again
            at.limit = at.streamed.limit
            return
        for event in await record_response(rt, at.streamed.response):
            yield event
        at.text, calls = at.streamed.response.text, at.streamed.response.tool_calls
        if not calls:
            # (no check once a limit is reached: the answer would become a limit's summary)
            checked = None if rt.limit_reached() else await answer_check(rt, at.text)
            more = checked or await stop_hook(rt.hooks, rt, at.text)
            if more is not None:
                yield more
            if not isinstance(more, SteeringInjected):  # nothing, or the hook failed
                return
            continue
        rt.cycle.rounds += 1
        rt.cycle.calls += len(calls)
        cut = at.streamed.response.finish_reason.reason == "length"
        async for event in _act_observe(rt, calls, at, cut=cut):
            yield event
        if at.ended():
            return


async def _act_observe(
    rt: Runtime,
    calls: Sequence[ToolCallPart],
    at: _Progress,
    *,
    cut: bool,
    done: Mapping[str, ToolResultPart] | None = None,
) -> AsyncIterator[Event]:
    """A round of tool calls (``done``: the results some have already), its results recorded,
    steering and loop detection after it (``at.stop`` says when it ends the cycle)."""
    at.results = dict(done or {})
    async for event in run_round(rt, calls, at.results, cut=cut):
        yield event
    await rt.append(ToolResultsTurn(results=tuple(at.results[c.id] for c in calls)))
    for event in await rt.drain_steering():
        yield event
    if (detected := await check_loops(rt.tools, rt.loops, calls)) is not None:
        yield detected
        if detected.stopped:  # the result says so, not the model's last words
            at.stop, at.text = "loop_detected", detected.message
            return
        now = await course_note(rt, calls, at.results)
        yield await rt.inject(f"{detected.message}\n\n{now}".strip(), "loop_detection")


async def _limit_summary(rt: Runtime, at: _Progress) -> AsyncIterator[Event]:
    """The limit's event and the last summary; its text (or what arrived) ends the cycle."""
    assert at.limit is not None
    at.stop, at.streamed = "turn_limit", Streamed()
    rt.cycle.stopping = None  # a deadline that fired is dealt with; the summary has its own
    try:
        async for event in after_limit(rt, at.limit, at.streamed):
            yield event
    except ProviderError as error:  # only a bad key gets this far: the session closes
        at.stop = "error"
        for event in await _failed(rt, error):
            yield event
    response = at.streamed.response
    at.text = response.text if response else at.streamed.partial_text() or at.text


async def _failed(rt: Ending, error: ProviderError) -> list[Event]:
    """The cycle ends on a provider error; the transcript says so, for people reading it."""
    rt.cycle.failure = error
    _log.error("model call failed: %s", error)  # whole here; the event's message is brief
    refused = isinstance(error, InvalidRequestError) and not _answered_since_input(
        rt.transcript.turns
    )
    await rt.append(NoticeTurn(text=f"error: {error}", refused_input=refused))
    events = failure_events(error)
    if refused:  # else the next input would carry it again, merged, and fail again
        message = (
            "The provider refused this input; it stays in the record but is left out of "
            "the conversation: send another input to go on."
        )
        events.append(WarningEvent(message=message, code="input_refused"))
    return events


def _answered_since_input(turns: Sequence[Turn]) -> bool:
    """Whether the model answered since the last input (a refusal is then of something
    else than the input: a tool's result, say)."""
    for turn in reversed(turns):
        if isinstance(turn, AssistantTurn):
            return True
        if isinstance(turn, UserTurn):
            return False
    return False
