"""Limits, loop detection through the session and the context window warning: each limit
ends the cycle with ``turn_limit`` naming it, then a text-only summary."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from taor.agent.config import CompactionConfig, Limits, LoopDetectionConfig
from taor.agent.events import (
    Event,
    LoopDetection,
    ProcessingEnd,
    SteeringInjected,
    TurnLimit,
    UsageEvent,
    WarningEvent,
)
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.errors import AuthenticationError, ServerError
from taor.llm.catalog import Catalog
from taor.llm.response import Usage
from taor.testing import Reply, ScriptedModel, text, tool_calls

from .loop_support import assert_valid, collect, config, limits, of, session

LIST = tool_calls(("list_dir", {"path": "."}))
SUMMARY = "Done so far: listed the files. Left: everything else."


def end_of(events: list[Event]) -> ProcessingEnd:
    end = events[-1]
    assert isinstance(end, ProcessingEnd)
    return end


def assert_limit_and_summary(events: list[Event], model: ScriptedModel, name: str) -> None:
    """``turn_limit`` naming ``name``, the summary request (text only), the cycle ended."""
    (limit,) = of(events, TurnLimit)
    assert limit.limit == name
    assert limit.message.startswith("Limit reached")
    (steering,) = of(events, SteeringInjected)
    assert steering.source == "limit" and "Do not call any tools" in steering.text
    last = model.requests[-1]
    assert last.tool_choice.mode == "none"
    assert last.messages[-1].text.endswith(steering.text)
    end = end_of(events)
    assert end.stop_reason == "turn_limit"
    assert end.text == SUMMARY


async def assert_usable(s: Session, model: ScriptedModel) -> None:
    model.push(text("back to work"))
    result = await s.run("carry on")
    assert (result.stop_reason, result.text) == ("completed", "back to work")
    assert_valid(s)


async def test_tool_rounds_limit_then_summary_and_the_session_goes_on() -> None:
    model = ScriptedModel([LIST, LIST, text(SUMMARY)])
    async with session(model, cfg=limits(max_tool_rounds=2)) as s:
        events = await collect(s, "explore")
        assert_limit_and_summary(events, model, "tool_rounds")
        assert of(events, TurnLimit)[0].value == 2
        await assert_usable(s, model)


async def test_tool_calls_limit_counts_every_call_of_the_input() -> None:
    model = ScriptedModel([tool_calls(("list_dir", {}), ("glob", {"pattern": "*"})), LIST])
    model.push(text(SUMMARY))
    async with session(model, cfg=limits(max_tool_calls=3)) as s:
        events = await collect(s, "explore")
        assert_limit_and_summary(events, model, "tool_calls")
        assert of(events, TurnLimit)[0].value == 3
        await assert_usable(s, model)


def assert_limit_without_summary(events: list[Event], model: ScriptedModel, name: str) -> None:
    """The call or cost limit: ``turn_limit`` naming it, and no summary call past it."""
    (limit,) = of(events, TurnLimit)
    assert limit.limit == name
    assert not of(events, SteeringInjected)
    assert end_of(events).stop_reason == "turn_limit"
    model.assert_done()


async def test_model_calls_limit_is_per_session_and_can_be_raised() -> None:
    model = ScriptedModel([LIST, text("first")])
    async with session(model, cfg=limits(max_model_calls=2)) as s:
        assert (await s.run("one")).stop_reason == "completed"
        events = await collect(s, "two")
        assert_limit_without_summary(events, model, "model_calls")
        assert len(model.requests) == 2
        s.configure(limits=Limits(max_model_calls=10))
        await assert_usable(s, model)


async def test_wall_time_limit_per_input() -> None:
    slow_list = replace(LIST, delay=0.06)
    model = ScriptedModel([slow_list, text(SUMMARY)])
    async with session(model, cfg=limits(max_wall_time=0.05)) as s:
        events = await collect(s, "explore")
        assert_limit_and_summary(events, model, "wall_time")
        assert of(events, TurnLimit)[0].value >= 0.05
        await assert_usable(s, model)  # a new input: the clock starts again


async def test_cost_limit_from_the_catalog_prices() -> None:
    """claude-fable-5-1 costs $10 per million input tokens: 100k tokens cost $1. The budget
    is spent after the first call, so no summary call passes it."""
    expensive = Usage(input_tokens=100_000, output_tokens=0)
    model = ScriptedModel(
        [replace(LIST, usage=expensive)], provider="anthropic", model_id="claude-fable-5-1"
    )
    async with session(model, cfg=limits(max_cost=1.0)) as s:
        events = await collect(s, "explore")
        assert_limit_without_summary(events, model, "cost")
        limit = of(events, TurnLimit)[0]
        assert limit.value == pytest.approx(1.0)
        costs = [(u.cost, u.total_cost) for u in of(events, UsageEvent)]
        assert costs == [(pytest.approx(1.0), pytest.approx(1.0))]
        s.configure(limits=Limits(max_cost=5.0))
        await assert_usable(s, model)


async def test_a_summary_after_a_round_limit_counts_against_the_call_limit() -> None:
    """The tool-round limit asks for a summary only while the call limit has room."""
    model = ScriptedModel([LIST, LIST])
    async with session(model, cfg=limits(max_tool_rounds=1, max_model_calls=2)) as s:
        first = await collect(s, "explore")
        assert of(first, TurnLimit)[0].limit == "tool_rounds"
        assert of(first, SteeringInjected) and end_of(first).model_calls == 2  # with a summary
    model = ScriptedModel([LIST])
    async with session(model, cfg=limits(max_tool_rounds=1, max_model_calls=1)) as s:
        events = await collect(s, "explore")
        assert [limit.limit for limit in of(events, TurnLimit)] == ["model_calls"]
        assert not of(events, SteeringInjected) and len(model.requests) == 1


async def test_retries_count_as_model_calls_and_stop_at_the_call_limit() -> None:
    down = ServerError("busy", provider="scripted")
    model = ScriptedModel([down, down, down, text("never")])
    async with session(model, cfg=limits(max_model_calls=2)) as s:
        result = await s.run("hi")
        assert len(model.requests) == 2
        assert (result.stop_reason, result.turns) == ("error", 2)


async def test_summary_on_limit_false_skips_the_summary_call() -> None:
    model = ScriptedModel([LIST])
    async with session(model, cfg=limits(max_tool_rounds=1, summary_on_limit=False)) as s:
        events = await collect(s, "explore")
        assert of(events, TurnLimit)[0].limit == "tool_rounds"
        assert not of(events, SteeringInjected)
        assert len(model.requests) == 1
        assert end_of(events).stop_reason == "turn_limit"
        await assert_usable(s, model)


async def test_a_summary_that_calls_tools_anyway_gets_cancelled_results() -> None:
    model = ScriptedModel([LIST, tool_calls(("list_dir", {}), text="Summary: listed.")])
    async with session(model, cfg=limits(max_tool_rounds=1)) as s:
        events = await collect(s, "explore")
        assert end_of(events).stop_reason == "turn_limit"
        assert_valid(s)
        await assert_usable(s, model)


async def test_a_failing_summary_call_is_a_warning_and_the_cycle_still_ends() -> None:
    down = ServerError("down for maintenance", provider="scripted", retryable=False)
    model = ScriptedModel([LIST, down])
    async with session(model, cfg=limits(max_tool_rounds=1)) as s:
        events = await collect(s, "explore")
        assert end_of(events).stop_reason == "turn_limit"
        assert [w.code for w in of(events, WarningEvent)] == ["limit"]
        assert_valid(s)


async def test_an_authentication_error_in_the_summary_call_closes_the_session() -> None:
    model = ScriptedModel([LIST, AuthenticationError("key revoked", provider="scripted")])
    async with session(model, cfg=limits(max_tool_rounds=1)) as s:
        with pytest.raises(AuthenticationError):
            await s.run("explore")
        assert s.state == "closed"
        assert_valid(s)


# --- loop detection through the session ---

READ = tool_calls(("read_file", {"path": "a.txt"}))


def files() -> MemoryEnvironment:
    return MemoryEnvironment(files={"a.txt": "a", "b.txt": "b"})


async def test_loop_warning_then_stop_when_the_pattern_continues() -> None:
    """A repeating pattern: the first hit warns (steering + loop_detection); going on stops
    the cycle."""
    model = ScriptedModel([READ] * 12)
    async with session(model, files()) as s:
        events = await collect(s, "read")
        detections = of(events, LoopDetection)
        assert [(d.stopped, d.cycle_length) for d in detections] == [(False, 1), (True, 1)]
        (steering,) = of(events, SteeringInjected)
        assert steering.source == "loop_detection"
        # the warning, then the file the repeated call reads as it is now
        assert steering.text.startswith(detections[0].message)
        assert steering.text.endswith("a.txt as it is now:\n```\na\n```")
        assert steering.text in model.requests[10].messages[-1].text
        assert end_of(events).stop_reason == "loop_detected"
        assert len(model.requests) == 12
        await assert_usable(s, model)  # a new input starts with an empty window


async def test_a_two_call_cycle_is_detected() -> None:
    other = tool_calls(("read_file", {"path": "b.txt"}))
    model = ScriptedModel([READ, other] * 5 + [text("ok, something else")])
    async with session(model, files()) as s:
        events = await collect(s, "read")
    (detected,) = of(events, LoopDetection)
    assert (detected.cycle_length, detected.stopped) == (2, False)
    assert end_of(events).stop_reason == "completed"


@pytest.mark.parametrize(("cooldown", "warnings"), [(10, 1), (0, 2)])
async def test_loop_warning_cooldown(cooldown: int, warnings: int) -> None:
    """A second pattern right after a warning does not warn again within the cooldown."""
    other = tool_calls(("read_file", {"path": "b.txt"}))
    model = ScriptedModel([READ] * 4 + [other] * 4 + [text("done")])
    cfg = config(loop_detection=LoopDetectionConfig(window=4, cooldown=cooldown))
    async with session(model, files(), cfg) as s:
        events = await collect(s, "read")
    assert len(of(events, LoopDetection)) == warnings
    assert not any(d.stopped for d in of(events, LoopDetection))
    assert end_of(events).stop_reason == "completed"


async def test_loop_detection_can_be_switched_off() -> None:
    model = ScriptedModel([READ] * 15 + [text("done")])
    cfg = config(loop_detection=LoopDetectionConfig(enabled=False))
    async with session(model, files(), cfg) as s:
        events = await collect(s, "read")
    assert not of(events, LoopDetection) and not of(events, SteeringInjected)
    assert end_of(events).stop_reason == "completed"


# --- the context window warning ---

QUIET = Usage(output_tokens=1)  # no input tokens reported: no calibration


async def test_context_warning_at_80_percent_once_per_crossing() -> None:
    """A warning once the context reaches ~80% of the window (chars / 4); again only after it
    went below."""
    model = ScriptedModel(
        [
            Reply(tool_calls=LIST.tool_calls, usage=QUIET),
            Reply(text="done", usage=QUIET),
            Reply(text="again", usage=QUIET),
            Reply(text="and again", usage=QUIET),
        ]
    )
    prompt = "x" * 3400  # 850 tokens of a 1000-token window
    no_compaction = CompactionConfig(enabled=False)  # 85% would compact (and warn it cannot)
    cfg = config(context_window=1000, compaction=no_compaction)
    async with session(model, cfg=cfg, tools=[]) as s:
        first = await collect(s, prompt)
        warnings = of(first, WarningEvent)
        assert [w.code for w in warnings] == ["context_window"]
        assert "85%" in warnings[0].message and "1000-token" in warnings[0].message
        assert first.index(warnings[0]) < first.index(of(first, UsageEvent)[0])
        assert not of(await collect(s, "more"), WarningEvent)  # still above: no repeat
        s.configure(context_window=100_000)
        assert not of(await collect(s, "more"), WarningEvent)  # below: re-armed
        s.configure(context_window=1000)
        assert [w.code for w in of(await collect(s, "more"), WarningEvent)] == ["context_window"]


async def test_no_context_warning_below_the_threshold() -> None:
    model = ScriptedModel([Reply(text="fine", usage=QUIET)])
    async with session(model, cfg=config(context_window=1000), tools=[]) as s:
        events = await collect(s, "x" * 3000)  # 750 tokens: 75%
    assert not of(events, WarningEvent)


def _two_windows(tmp_path: Path) -> Catalog:
    def entry(model_id: str, window: int) -> dict[str, object]:
        return {"id": model_id, "provider": "scripted", "context_window": window, "max_output": 500}

    path = tmp_path / "models.json"
    path.write_text(json.dumps({"models": [entry("wide", 100_000), entry("narrow", 1_000)]}))
    return Catalog.from_file(path)


async def test_switching_model_switches_the_context_window(tmp_path: Path) -> None:
    """The warning and compaction follow the window of the model in use, not the first one."""
    wide = ScriptedModel([Reply(text="fine", usage=QUIET)], model_id="wide")
    narrow = ScriptedModel([Reply(text="tight", usage=QUIET)] * 3, model_id="narrow")
    cfg = config(compaction=CompactionConfig(enabled=False))
    catalog = _two_windows(tmp_path)
    async with session(wide, cfg=cfg, tools=[], catalog=catalog) as s:
        assert not of(await collect(s, "x" * 3400), WarningEvent)  # 850 of 100k tokens
        s.configure(model=narrow)
        warnings = of(await collect(s, "more"), WarningEvent)
        assert [w.code for w in warnings] == ["context_window"]
        assert "1000-token" in warnings[0].message
        s.configure(compaction=CompactionConfig())
        compacting = await collect(s, "and more")
    # at 85% of the narrow window compaction is tried; with nothing old to shrink it says so
    assert [w.code for w in of(compacting, WarningEvent)] == ["compaction"]


async def test_a_failing_summary_with_a_long_error_is_a_short_warning() -> None:
    down = ServerError("down: " + "body " * 5000, provider="scripted", retryable=False)
    model = ScriptedModel([LIST, down])
    async with session(model, cfg=limits(max_tool_rounds=1)) as s:
        events = await collect(s, "explore")
    (warning,) = of(events, WarningEvent)
    assert "down: body" in warning.message and len(warning.message) <= 400
