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
from collections.abc import AsyncGenerator

from taor.agent.events import (
    ErrorEvent,
    Event,
    ProcessingEnd,
    SteeringInjected,
    StopReason,
    TurnLimit,
)
from taor.agent.loop.deadline import Deadline
from taor.agent.loop.model_call import Streamed, call_model, record_response
from taor.agent.loop.steps import (
    after_limit,
    begin,
    check_loops,
    failure_events,
    finish_interrupted,
    settle_pending,
    stop_hook,
)
from taor.agent.loop.tool_round import run_round
from taor.agent.record.turns import ToolResultsTurn
from taor.agent.runtime import CycleCounters, Runtime
from taor.errors import ProviderError
from taor.llm.types import ToolResultPart


async def run_cycle(rt: Runtime, cycle: int, prompt: str) -> AsyncGenerator[Event, None]:
    counters = CycleCounters(started=rt.clock())
    streamed = Streamed()
    results: dict[str, ToolResultPart] = {}
    stop: StopReason = "completed"
    text = ""
    limit: TurnLimit | None = None
    deadline = Deadline.arm(rt, rt.config.limits.max_wall_time)
    try:
        try:
            for event in await begin(rt, cycle, prompt):
                yield event
            while True:
                if (limit := rt.limit_reached(counters)) is not None:
                    break
                streamed = Streamed()
                async for event in call_model(rt, streamed):  # compacts first when due
                    yield event
                assert streamed.response is not None
                for event in await record_response(rt, streamed.response):
                    yield event
                text, calls = streamed.response.text, streamed.response.tool_calls
                if not calls:
                    more = await stop_hook(rt, text)
                    if more is not None:
                        yield more
                    if not isinstance(more, SteeringInjected):  # nothing, or the hook failed
                        break
                    continue
                counters.rounds += 1
                counters.calls += len(calls)
                results = {}
                async for event in run_round(rt, calls, results):
                    yield event
                await rt.append(ToolResultsTurn(results=tuple(results[c.id] for c in calls)))
                for event in await rt.drain_steering():
                    yield event
                if (detected := await check_loops(rt, calls)) is not None:
                    yield detected
                    if detected.stopped:
                        stop = "loop_detected"
                        break
                    yield await rt.inject(detected.message, "loop_detection")
        finally:
            deadline.cancel()  # before any handler below awaits
    except asyncio.CancelledError:
        if rt.stopping is None:
            raise  # not ours: whoever cancelled the session's task wants it gone
        stop = rt.stopping  # the host's interrupt or close, or the wall-time deadline
        for event in await finish_interrupted(rt, streamed, results):
            yield event
        if deadline.fired:
            limit = rt.wall_time_limit(counters)
    except ProviderError as error:
        stop = "error"
        rt.failure = error
        for event in failure_events(error):
            yield event
    except Exception as error:  # a bug in taor or a host callback: keep the session usable
        stop = "error"
        await settle_pending(rt, results, "cancelled")
        yield ErrorEvent(message=f"Internal error: {error!r}", error_type=type(error).__name__)
    if limit is not None:
        stop, streamed = "turn_limit", Streamed()
        rt.stopping = None  # a deadline that fired is dealt with; the summary has its own
        try:
            async for event in after_limit(rt, limit, streamed):
                yield event
        except ProviderError as error:  # only a bad key gets this far: the session closes
            stop = "error"
            rt.failure = error
            for event in failure_events(error):
                yield event
        text = streamed.response.text if streamed.response else streamed.partial_text() or text
    yield ProcessingEnd(cycle=cycle, stop_reason=stop, text=text)
