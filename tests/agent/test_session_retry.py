"""Model-call retries through the session: ``retry`` events, mid-stream breaks, the idle
timeout; usage and cost; configure between calls."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from taor.agent.config import SessionConfig
from taor.agent.events import (
    AssistantTextDelta,
    AssistantTextEnd,
    ErrorEvent,
    Retry,
    UsageEvent,
)
from taor.agent.record.codec import event_from_json, to_json
from taor.errors import (
    IdleTimeoutError,
    OverloadedError,
    RateLimitError,
    StreamInterruptedError,
)
from taor.llm import connect
from taor.llm.model import Timeouts
from taor.llm.response import Usage
from taor.testing import FakeProviderServer, Reply, ScriptedModel, server_error, text, tool_calls

from .loop_support import FAST_RETRY, BreakingModel, Broken, collect, config, kinds, of, session


def rate_limited() -> RateLimitError:
    return RateLimitError("Rate limit exceeded", provider="scripted", status=429)


def overloaded() -> OverloadedError:
    return OverloadedError("Overloaded", provider="scripted", status=529)


async def test_a_429_then_an_overload_are_retried_with_retry_events() -> None:
    model = ScriptedModel([rate_limited(), overloaded(), text("finally")])
    async with session(model) as s:
        events = await collect(s, "hi")
    retries = of(events, Retry)
    assert [(r.attempt, r.error_type) for r in retries] == [
        (1, "RateLimitError"),
        (2, "OverloadedError"),
    ]
    assert "Rate limit exceeded" in retries[0].cause and "HTTP 429" in retries[0].cause
    assert all(0 < r.delay <= FAST_RETRY.max_delay for r in retries)
    assert not any(r.discarded_text for r in retries)
    assert events[-1].stop_reason == "completed"  # type: ignore[union-attr]
    assert len(model.requests) == 3
    assert model.requests[0] == model.requests[2]  # the same request, asked again


async def test_retry_after_a_tool_round_does_not_rerun_the_tools() -> None:
    model = ScriptedModel([tool_calls(("list_dir", {})), rate_limited(), text("done")])
    async with session(model) as s:
        events = await collect(s, "go")
        result_turns = [t for t in s.history if t.kind == "tool_results"]
    assert len(of(events, Retry)) == 1
    assert kinds(events).count("tool_call_start") == 1
    assert len(result_turns) == 1
    assert events[-1].stop_reason == "completed"  # type: ignore[union-attr]


async def test_retries_give_up_after_max_attempts_with_an_error() -> None:
    model = ScriptedModel([rate_limited()] * 3 + [text("never reached")])
    cfg = config(retry=replace(FAST_RETRY, max_attempts=3))
    async with session(model, cfg=cfg) as s:
        events = await collect(s, "hi")
        assert s.state == "idle"
    assert len(of(events, Retry)) == 2
    (error,) = of(events, ErrorEvent)
    assert error.error_type == "RateLimitError" and not error.fatal
    assert events[-1].stop_reason == "error"  # type: ignore[union-attr]
    assert model.remaining == 1


async def test_the_error_event_gives_the_providers_request_id(
    fake_server: FakeProviderServer,
) -> None:
    fake_server.push(*[server_error("upstream broke")] * 2)
    model = connect("openai:gpt-5.1", api_key="k", base_url=fake_server.base_url("openai"))
    cfg = config(retry=replace(FAST_RETRY, max_attempts=2))
    async with session(model, cfg=cfg) as s:
        events = await collect(s, "hi")
    await model.aclose()
    first, last = (r.request_id for r in fake_server.requests)
    assert first and last and first != last
    (retry,) = of(events, Retry)
    assert f"request id {first}" in retry.cause
    (error,) = of(events, ErrorEvent)
    assert error.request_id == last and f"request id {last}" in error.message
    assert event_from_json(json.loads(json.dumps(to_json(error)))) == error


@pytest.mark.parametrize("what", ["disconnect", "malformed"])
async def test_a_stream_broken_after_text_is_retried_and_the_text_discarded(what: str) -> None:
    """Part of the answer was streamed when the connection broke: the retry says the host
    should drop that text; the final answer is the retried one, recorded once."""
    error = StreamInterruptedError(f"stream {what}", provider="scripted")
    broken = Broken(Reply(text="Half an answ", chunk=4), after=3, error=error)
    model = BreakingModel([broken, text("A whole answer.")])
    async with session(model) as s:
        events = await collect(s, "hi")
        assistant = [t for t in s.history if t.kind == "assistant"]
    order = kinds(events)
    (retry,) = of(events, Retry)
    assert retry.discarded_text and retry.error_type == "StreamInterruptedError"
    assert order.count("assistant_text_start") == 2
    assert order.index("retry") < len(order) - 1 - order[::-1].index("assistant_text_start")
    assert [e.delta for e in of(events, AssistantTextDelta)][:2] == ["Half", " an "]
    assert [e.text for e in of(events, AssistantTextEnd)] == ["A whole answer."]
    assert len(assistant) == 1
    assert events[-1].text == "A whole answer."  # type: ignore[union-attr]


async def test_a_stream_broken_before_any_text_does_not_discard() -> None:
    error = StreamInterruptedError("reset", provider="scripted")
    model = BreakingModel([Broken(Reply(text="x"), after=1, error=error), text("ok")])
    async with session(model) as s:
        events = await collect(s, "hi")
    (retry,) = of(events, Retry)
    assert not retry.discarded_text
    assert kinds(events).count("assistant_text_start") == 1


async def test_an_idle_stream_times_out_and_is_retried() -> None:
    model = ScriptedModel([Reply(text="too late", delay=30), text("on time")])
    cfg = config(timeouts=Timeouts(idle=0.05, connect=0.05))  # the first event: idle + connect
    async with session(model, cfg=cfg) as s:
        events = await collect(s, "hi")
    (retry,) = of(events, Retry)
    assert retry.error_type == IdleTimeoutError.__name__
    assert "no data from the model for 0.1 seconds" in retry.cause
    assert events[-1].text == "on time"  # type: ignore[union-attr]


# --- usage and cost ---


async def test_usage_event_after_each_response_with_totals_and_catalog_cost() -> None:
    """claude-fable-5-1: $10 / $50 per million input / output tokens, cache read $0.25."""
    first = Usage(input_tokens=1000, output_tokens=100, cache_read_tokens=400)
    second = Usage(input_tokens=2000, output_tokens=200, reasoning_tokens=50)
    model = ScriptedModel(
        [
            replace(tool_calls(("list_dir", {})), usage=first),
            Reply(text="done", usage=second),
        ],
        provider="anthropic",
        model_id="claude-fable-5-1",
    )
    async with session(model) as s:
        events = await collect(s, "go")
    usages = of(events, UsageEvent)
    assert [u.usage for u in usages] == [first, second]
    assert usages[1].total == first + second
    cost_1 = (600 * 10 + 400 * 0.25 + 100 * 50) / 1e6
    cost_2 = (2000 * 10 + 200 * 50) / 1e6
    assert usages[0].cost == pytest.approx(cost_1)
    assert usages[1].cost == pytest.approx(cost_2)
    assert usages[1].total_cost == pytest.approx(cost_1 + cost_2)
    order = kinds(events)
    assert order.index("usage") == order.index("assistant_text_end") + 1


async def test_run_result_has_usage_cost_turns_and_tool_calls() -> None:
    model = ScriptedModel(
        [
            Reply(
                tool_calls=tool_calls(("list_dir", {}), ("glob", {"pattern": "*"})).tool_calls,
                usage=Usage(input_tokens=100, output_tokens=10),
            ),
            Reply(text="all done", usage=Usage(input_tokens=200, output_tokens=20)),
        ],
        provider="anthropic",
        model_id="claude-fable-5-1",
    )
    async with session(model) as s:
        result = await s.run("go")
    assert result.text == "all done" and result.stop_reason == "completed"
    assert result.usage == Usage(input_tokens=300, output_tokens=30)
    assert result.cost == pytest.approx((300 * 10 + 30 * 50) / 1e6)
    assert (result.turns, result.tool_calls, result.error) == (2, 2, None)


async def test_unknown_prices_give_no_cost() -> None:
    model = ScriptedModel([text("hi")])  # provider "scripted": no catalog entry
    async with session(model) as s:
        result = await s.run("hi")
    assert result.cost is None
    assert result.usage.output_tokens > 0


# --- configure between calls ---


async def test_configure_reasoning_effort_and_model_apply_to_the_next_request() -> None:
    first = ScriptedModel([])
    second = ScriptedModel([text("from the second model")], model_id="other-model")
    async with session(first) as s:

        def switch(request: object) -> Reply:
            s.configure(reasoning_effort="high", system_prompt="Be brief.")
            s.configure(model=second)
            return tool_calls(("list_dir", {}))

        first.push(switch)
        result = await s.run("go")
    assert first.requests[0].reasoning_effort is None
    assert len(first.requests) == 1
    (request,) = second.requests
    assert request.reasoning_effort == "high"
    assert request.system == "Be brief."
    assert request.model == "other-model"
    assert result.text == "from the second model"


async def test_configure_with_a_whole_config() -> None:
    model = ScriptedModel([text("a"), text("b")])
    async with session(model) as s:
        await s.run("one")
        s.configure(replace(s.config, max_tokens=123, temperature=0.5))
        await s.run("two")
    assert (model.requests[0].max_tokens, model.requests[0].temperature) == (None, None)
    assert (model.requests[1].max_tokens, model.requests[1].temperature) == (123, 0.5)
    assert isinstance(s.config, SessionConfig)
