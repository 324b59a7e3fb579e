"""One round of tool calls: permission, hooks, execution, truncation, events.

Calls are grouped in call order: consecutive read-only calls run concurrently, a call that
writes runs alone, so a read after a write sees it. Every call ends with exactly one result in
``results`` (by call id); the loop appends them in call order. Events of concurrent calls go
through one queue, so the round is still one stream of events.

Per call: ``tool_call_start``; look up and validate (an error result when that fails); the
``before_tool`` hooks; the permission policy (and, when it asks, the host or ``can_use_tool``);
the tool, with ``config.tool_timeout``; the ``after_tool`` hooks; then ``tool_call_end`` with the
whole output, while the model gets it truncated. Nothing a tool or hook does raises out of
here; cancellation (an interrupt) propagates after the calls' tasks are stopped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence

from taor.agent.events import ErrorEvent, Event, ToolCallEnd, ToolCallOutputDelta, ToolCallStart
from taor.agent.loop.guarded import guarded_output
from taor.agent.parts import Guards
from taor.llm.types import ImagePart, TextPart, ToolCallPart, ToolResultPart, tool_result
from taor.tools import truncation
from taor.tools.base import ToolOutput
from taor.tools.prepared import PreparedCall
from taor.tools.registry import ToolRegistry

Emit = Callable[[Event], None]
_DONE = None
ONE_AT_A_TIME = (
    "Not run: make one tool call per reply. Only the first call of your reply ran; call this "
    "one again on its own once you have its result."
)
CUT_OFF = (
    "Not run: your reply was cut off at the output token limit while you were writing this "
    "call, so its arguments may be incomplete. Make the call again, shorter, or split the work."
)
_LIFTED = ("full_output", "output_file")  # metadata that tool_call_end carries as fields


def _batches(tools: ToolRegistry, calls: Sequence[ToolCallPart]) -> list[list[ToolCallPart]]:
    """Consecutive read-only calls together; every other call alone; call order kept."""
    batches: list[list[ToolCallPart]] = []
    previous_read_only = False
    for call in calls:
        tool = tools.get(call.name)
        read_only = tool is not None and tool.read_only
        if read_only and previous_read_only:
            batches[-1].append(call)
        else:
            batches.append([call])
        previous_read_only = read_only
    return batches


async def run_round(
    rt: Guards,
    calls: Sequence[ToolCallPart],
    results: dict[str, ToolResultPart],
    *,
    cut: bool = False,
) -> AsyncIterator[Event]:
    """``cut``: the reply ended at the output token limit, so its last call may be cut short:
    it is answered without running (an argument cut mid-string can still parse). A call that
    has its result in ``results`` already (a resumed round's: ``taor.agent.loop.parking``) is
    not run again."""
    rt.cycle.results = results
    refused: list[tuple[ToolCallPart, str]] = []
    if cut:
        calls, refused = calls[:-1], [(calls[-1], CUT_OFF)]
    if rt.config.parallel_tool_calls is False and calls:  # one call per reply: the first runs
        calls, refused = calls[:1], [(c, ONE_AT_A_TIME) for c in calls[1:]] + refused
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    for batch in _batches(rt.tools, [call for call in calls if call.id not in results]):
        tasks = [
            asyncio.create_task(_run_call(rt, call, queue.put_nowait, results)) for call in batch
        ]
        for task in tasks:
            task.add_done_callback(lambda _: queue.put_nowait(_DONE))
        try:
            remaining = len(tasks)
            while remaining:
                event = await queue.get()
                if event is _DONE:
                    remaining -= 1
                else:
                    yield event
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in tasks:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]  # a bug in taor, not in a tool
    for refusal in _refuse(rt.tools, refused, results):
        yield refusal


def _refuse(
    tools: ToolRegistry,
    calls: Sequence[tuple[ToolCallPart, str]],
    results: dict[str, ToolResultPart],
) -> list[Event]:
    """Calls answered without running, each with why."""
    events: list[Event] = []
    for call, why in calls:
        results[call.id] = tool_result(call.id, why, is_error=True, name=call.name)
        summary = tools.summary(call)
        events.append(
            ToolCallStart(
                call_id=call.id, name=call.name, arguments=call.arguments, summary=summary
            )
        )
        events.append(ToolCallEnd(call_id=call.id, name=call.name, output=why, is_error=True))
    return events


async def _run_call(
    rt: Guards, call: ToolCallPart, emit: Emit, results: dict[str, ToolResultPart]
) -> None:
    prepared = rt.tools.prepare(call)  # once: everything below reads it
    summary = prepared.summary if isinstance(prepared, PreparedCall) else rt.tools.summary(call)
    emit(ToolCallStart(call_id=call.id, name=call.name, arguments=call.arguments, summary=summary))
    started = time.monotonic()
    rt.cycle.running_calls[call.id] = call.name

    def on_output(chunk: str) -> None:
        emit(ToolCallOutputDelta(call_id=call.id, delta=chunk))

    try:
        output = await guarded_output(rt, prepared, emit, on_output)
    except Exception as error:  # a bug in taor or a host callback: the call still ends
        emit(
            ErrorEvent(
                message=f"Internal error in {call.name}: {error!r}", error_type=type(error).__name__
            )
        )
        output = ToolOutput.error(f"Tool {call.name} failed inside taor ({type(error).__name__}).")
    full = output.metadata.get("full_output", output.text)
    spilled = output.metadata.get("output_file")
    declared = prepared.limits if isinstance(prepared, PreparedCall) else rt.tools.limits(call.name)
    limits = rt.output_limits(call.name, declared)  # the config may change them
    results[call.id] = _model_result(call, output, declared, limits)
    del rt.cycle.running_calls[call.id]
    emit(
        ToolCallEnd(
            call_id=call.id,
            name=call.name,
            output=str(full),
            is_error=output.is_error,
            duration=time.monotonic() - started,
            metadata={k: v for k, v in output.metadata.items() if k not in _LIFTED},
            output_file=str(spilled) if spilled else None,
        )
    )


def _model_result(
    call: ToolCallPart, output: ToolOutput, declared: truncation.Limits, limits: truncation.Limits
) -> ToolResultPart:
    """What the model gets: the text truncated to ``limits`` (those the tool declares,
    ``declared``, as the config may change them), then any images. A tool that cut its own output (the whole
    of it in ``full_output``) to its declared limits is not cut again: a second line pass would
    drop its marker (the header line pushes it over)."""
    text = output.text
    if "full_output" not in output.metadata or limits != declared:
        text = truncation.truncate(text, limits).text
    images = tuple(part for part in output.content if isinstance(part, ImagePart))
    content = ((TextPart(text=text),) if text or not images else ()) + images
    model_output = ToolOutput(content=content, is_error=output.is_error)
    return model_output.to_result(call.id, name=call.name)  # truncated above, as it asks
