"""One model call of the loop: compact when due, stream, retry, and record the response.

``call_model`` is the cycle's model call: a compaction the host asked for or the threshold
calls for (``taor.agent.loop.compact_step``) first, the context warning, then the stream;
a context-length error compacts once and asks again.

The stream itself, its retries and the recovery from a tool call the server cannot parse are
the stream step (``stream``).

``record_response`` appends the assistant turn (with its cost and the session's totals) and
reports its text and usage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

from taor.agent.context.ledger import TokenLedger
from taor.agent.events import AssistantTextEnd, Compaction, Event, UsageEvent
from taor.agent.loop.compact_step import compact, due, take_focus
from taor.agent.loop.stream import SECOND, WHOLE, Streamed, stream_recovering
from taor.agent.parts import Accounts, ModelCall
from taor.agent.record.turns import AssistantTurn
from taor.errors import ContextLengthError
from taor.llm.response import Response, Usage
from taor.llm.types import Message, TextPart


async def call_model(rt: ModelCall, out: Streamed) -> AsyncIterator[Event]:
    """The cycle's next model call, into ``out``: a requested or due compaction first, the
    context warning, then the stream; a context-length error compacts and retries once."""
    if rt.compaction_requests:
        async for event in compact(rt, "request", focus=take_focus(rt.compaction_requests)):
            yield event
    request = rt.request()
    tokens = rt.estimate(request)
    if due(rt, tokens):
        async for event in compact(rt, "threshold"):
            yield event
        request = rt.request()
        tokens = rt.estimate(request)
    if (warning := rt.context_warning(tokens)) is not None:
        yield warning
    try:
        async for event in stream_recovering(rt, request, out):
            yield event
        return
    except ContextLengthError as error:
        overflow = error
    compacted = False
    if rt.config.compaction.enabled:
        async for event in compact(rt, "overflow"):
            compacted = compacted or isinstance(event, Compaction)
            yield event
    if not compacted:
        raise overflow
    request = rt.request()
    if (warning := rt.context_warning(rt.estimate(request))) is not None:
        yield warning
    async for event in stream_recovering(rt, request, out):
        yield event


async def record_response(rt: Accounts, response: Response) -> list[Event]:
    """Append the response as an assistant turn (unless empty) and report text and usage."""
    events: list[Event] = [AssistantTextEnd(text=response.text, reasoning=response.reasoning)]
    cut = response.finish_reason.raw in (WHOLE, SECOND)
    if cut and not response.usage.input_tokens:  # the usage comes last, after the cut
        response = dataclasses.replace(
            response, usage=_estimated_usage(rt.last_estimate, rt.tokens, response)
        )
    cost, total_cost = rt.usage.add(
        response.usage, provider=rt.model.provider, model=response.model or rt.model.model_id
    )
    if _has_content(response.message):
        calls, session_cost = rt.session_totals()
        await rt.append(
            AssistantTurn(
                message=response.message,
                usage=response.usage,
                response_id=response.id,
                provider=response.provider or rt.model.provider,
                model=response.model or rt.model.model_id,
                finish=response.finish_reason.reason,
                cost=cost,
                session_calls=calls,
                session_cost=session_cost,
            )
        )
    if rt.last_estimate and response.usage.input_tokens and not cut:
        rt.tokens.observe(rt.last_estimate, response.usage.input_tokens)
    events.append(
        UsageEvent(
            usage=response.usage,
            total=rt.usage.total,
            cost=cost,
            total_cost=total_cost,
            response_id=response.id or "",
        )
    )
    return events


def _estimated_usage(estimate: int, tokens: TokenLedger, response: Response) -> Usage:
    """The usage of a response cut before the provider reported it: the request's calibrated
    ``estimate`` in, the message's estimate out."""
    return Usage(input_tokens=estimate, output_tokens=tokens.estimate([response.message]))


async def record_partial(rt: Accounts, out: Streamed) -> AssistantTextEnd | None:
    """After an interrupt mid-stream: keep the text that arrived (no tool calls, no thinking)."""
    text = out.partial_text()
    if not text.strip():
        return None
    message = Message(role="assistant", parts=(TextPart(text=text),))
    calls, session_cost = rt.session_totals()  # its usage is unknown: the totals stand
    await rt.append(
        AssistantTurn(
            message=message,
            provider=rt.model.provider,
            model=rt.model.model_id,
            finish="interrupted",
            partial=True,
            session_calls=calls,
            session_cost=session_cost,
        )
    )
    return AssistantTextEnd(text=text, partial=True)


def _has_content(message: Message) -> bool:
    return any(not isinstance(part, TextPart) or part.text.strip() for part in message.parts)
