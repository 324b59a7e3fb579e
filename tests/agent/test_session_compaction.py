"""Compaction in the session: at the threshold before a model call, on a
context-length error (one retry), on request with a focus; what the host sees (events, state,
hooks), what is sent (smaller, valid, pinned items kept) and what is recorded (every turn)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

from taor.agent.config import CompactionConfig, Limits, SessionConfig
from taor.agent.context.compaction import PINNED_HEADER, SUMMARY_HEADER, view_problems
from taor.agent.context.compaction.summarize import SUMMARY_SYSTEM
from taor.agent.context.compaction.view import chars_of
from taor.agent.events import (
    Compaction,
    ErrorEvent,
    Event,
    Interrupted,
    ProcessingEnd,
    WarningEvent,
)
from taor.agent.policy.hooks import Hooks
from taor.agent.profiles import profile_for
from taor.agent.record.store_load import load
from taor.agent.record.turns import NoticeTurn, ToolResultsTurn
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.errors import ContextLengthError
from taor.llm.model import Timeouts
from taor.llm.response import Usage
from taor.llm.retry import RetryPolicy
from taor.llm.types import Request, TextPart, ToolResultPart
from taor.testing import Reply, ScriptedModel, text, tool_calls

from .loop_support import assert_valid, collect, config, of, session

QUIET = Usage(output_tokens=1)  # no input tokens reported: the estimate stays chars / 4
TASK = "Read the files f0.txt to f5.txt and tell me what they hold."
SUMMARY = "Read f0.txt and f1.txt: numbered lines. Remaining: the other files."
FILES = {f"f{n}.txt": f"line {n}\n" * 600 for n in range(8)}  # ~2500 tokens per read
WINDOW = 8000


def read(n: int) -> Reply:
    return tool_calls(("read_file", {"path": f"f{n}.txt"}), usage=QUIET)


def say(words: str, delay: float = 0.0) -> Reply:
    return text(words, usage=QUIET, delay=delay)


def cfg(**compaction: Any) -> SessionConfig:
    return config(context_window=WINDOW, compaction=CompactionConfig(**compaction))


def env() -> MemoryEnvironment:
    return MemoryEnvironment(files=dict(FILES))


def main_requests(model: ScriptedModel) -> list[Request]:
    return [r for r in model.requests if r.system != SUMMARY_SYSTEM]


def summary_requests(model: ScriptedModel) -> list[Request]:
    return [r for r in model.requests if r.system == SUMMARY_SYSTEM]


def assert_sendable(requests: Sequence[Request]) -> None:
    """Every request valid: calls paired with results in order, ends with a user message."""
    for request in requests:
        assert view_problems(request.messages) == []
        assert request.messages[-1].role == "user"


def sent_text(request: Request) -> str:
    """Every text of a request's messages, tool results included."""
    parts = (p for m in request.messages for p in m.parts)
    return "".join(p.text for p in parts if isinstance(p, TextPart | ToolResultPart))


def full_outputs(s: Session) -> list[str]:
    return [r.text for t in s.history if isinstance(t, ToolResultsTurn) for r in t.results]


def notices(s: Session) -> list[str]:
    return [t.text for t in s.history if isinstance(t, NoticeTurn)]


async def until_acknowledged(events: AsyncIterator[Event]) -> list[Event]:
    """Events up to the compaction's acknowledgement (a compaction event or its warning)."""
    seen = []
    async for event in events:
        seen.append(event)
        if isinstance(event, Compaction) or (
            isinstance(event, WarningEvent) and event.code == "compaction"
        ):
            return seen
    raise AssertionError(f"no acknowledgement in {[e.kind for e in seen]}")


# --- at the threshold ---


async def test_threshold_compacts_before_the_call_and_the_next_request_is_smaller() -> None:
    model = ScriptedModel([*(read(n) for n in range(6)), say("They hold numbered lines.")])
    seen: list[tuple[int, str]] = []

    async def before_compaction(tokens: int) -> None:
        seen.append((tokens, s.state))

    hooks = Hooks(before_compaction=(before_compaction,))
    s = session(model, env(), cfg(keep_rounds=1), hooks=hooks)
    async with s:
        events = await collect(s, TASK)
        compactions = of(events, Compaction)
        assert compactions and all(c.tokens_before > c.tokens_after for c in compactions)
        assert all(c.tokens_before >= 0.85 * WINDOW for c in compactions)
        assert seen == [(c.tokens_before, "compacting") for c in compactions]
        assert events[-1].stop_reason == "completed"  # type: ignore[union-attr]
        assert s.state == "idle"
    requests = main_requests(model)
    assert len(requests) == 7 and not summary_requests(model)  # eliding was enough
    assert_sendable(requests)
    sizes = [chars_of(r.messages) for r in requests]
    assert any(after < before for before, after in pairwise(sizes))
    assert max(sizes) < 0.85 * WINDOW * 4  # uncompacted, the last one would be ~60k characters
    assert_valid(s)
    assert len(full_outputs(s)) == 6 and all(out.count("line") == 600 for out in full_outputs(s))
    assert [n.startswith("compacted: ") and n.endswith("tokens (elide)") for n in notices(s)] == [
        True
    ] * len(compactions)


async def test_a_summary_keeps_first_message_instructions_plan_and_files_changed() -> None:
    files = {**FILES, "AGENTS.md": "Always run pytest -q before finishing."}
    plan = "PLAN: read every file, then report."
    write = tool_calls(("write_file", {"path": "notes.md", "content": "started"}), usage=QUIET)
    steps = [write, read(0), read(1), read(2), say(SUMMARY), say("Done.")]
    model = ScriptedModel(steps)
    compaction = CompactionConfig(plan=plan, summary_tokens=500)
    config_ = config(context_window=WINDOW, compaction=compaction)
    async with Session(
        model,
        environment=MemoryEnvironment(files=files),
        config=config_,
        profile=profile_for("openai-compat"),
    ) as s:
        events = await collect(s, TASK)
    (compaction_event,) = of(events, Compaction)
    assert compaction_event.tokens_before > compaction_event.tokens_after
    (summarizing,) = summary_requests(model)
    assert "600\tline 0" in summarizing.messages[0].text  # the middle, from the full outputs
    after = main_requests(model)[-1]  # the call after the compaction
    assert_sendable([after])
    head = after.messages[0]
    texts = [p.text for p in head.parts if isinstance(p, TextPart)]
    assert texts[0] == TASK  # the first user message, as it was
    pinned = next(t for t in texts if t.startswith(PINNED_HEADER))
    assert "Always run pytest -q before finishing." in pinned
    assert plan in pinned and "- notes.md" in pinned
    summary = next(t for t in texts if t.startswith(SUMMARY_HEADER))
    assert SUMMARY in summary
    assert notices(s) == [
        f"compacted: {compaction_event.tokens_before} -> {compaction_event.tokens_after} "
        "tokens (summary)"
    ]
    assert_valid(s)


# --- on a context-length error ---


async def test_a_context_length_error_compacts_and_retries_the_call_once() -> None:
    overflow = ContextLengthError("prompt is too long", provider="scripted")
    model = ScriptedModel([read(0), read(1), overflow, say(SUMMARY), say("Done.")])
    async with session(model, env(), config()) as s:  # the catalog's window: no threshold
        events = await collect(s, TASK)
        assert not of(events, ErrorEvent)
        (compaction,) = of(events, Compaction)
        assert compaction.tokens_before > compaction.tokens_after
        assert events[-1].stop_reason == "completed"  # type: ignore[union-attr]
        assert events[-1].text == "Done."  # type: ignore[union-attr]
    requests = main_requests(model)
    assert len(requests) == 4 and len(summary_requests(model)) == 1
    failed, retried = requests[2], requests[3]
    assert chars_of(retried.messages) < chars_of(failed.messages)
    assert_sendable(requests)
    assert_valid(s)


async def test_a_persistent_overflow_ends_the_cycle_as_documented_and_keeps_the_session() -> None:
    overflow = ContextLengthError("prompt is too long", provider="scripted")
    model = ScriptedModel([read(0), read(1), overflow, say(SUMMARY), overflow, say("fine now")])
    async with session(model, env(), config()) as s:
        events = await collect(s, TASK)
        assert len(of(events, Compaction)) == 1  # compacted once, retried once
        (error,) = of(events, ErrorEvent)
        assert not error.fatal and error.error_type == "ContextLengthError"
        assert "context_length" in [w.code for w in of(events, WarningEvent)]
        assert events[-1].stop_reason == "error"  # type: ignore[union-attr]
        assert s.state == "idle"
        again = await s.run("a small question")
    assert (again.stop_reason, again.text) == ("completed", "fine now")
    assert len(model.requests) == 6
    assert_sendable(main_requests(model))
    assert_valid(s)


async def test_compaction_switched_off_leaves_the_overflow_alone() -> None:
    overflow = ContextLengthError("prompt is too long", provider="scripted")
    model = ScriptedModel([read(0), read(1), read(2), overflow])
    async with session(model, env(), cfg(enabled=False)) as s:
        events = await collect(s, TASK)
    assert not of(events, Compaction) and not summary_requests(model)
    assert [w.code for w in of(events, WarningEvent)] == ["context_window", "context_length"]
    assert len(model.requests) == 4


# --- on request ---


async def test_on_request_between_cycles_with_a_focus() -> None:
    steps = [read(0), read(1), read(2), say("Read them."), say(SUMMARY), say("ok")]
    model = ScriptedModel(steps)
    async with session(model, env(), config()) as s:
        await collect(s, TASK)
        before = len(s.history)
        events = s.events()
        s.compact("the numbering of the lines")
        acknowledged = await until_acknowledged(events)
        (compaction,) = of(acknowledged, Compaction)
        assert compaction.tokens_before > compaction.tokens_after
        assert s.state == "idle"
        result = await s.run("What did the last file hold?")
    assert result.text == "ok"
    (summarizing,) = summary_requests(model)
    assert "Pay particular attention to: the numbering of the lines" in (
        summarizing.messages[0].text
    )
    last = main_requests(model)[-1]
    assert_sendable([last])
    head = [p.text for p in last.messages[0].parts if isinstance(p, TextPart)]
    assert head[0] == TASK and any(t.startswith(SUMMARY_HEADER) for t in head)
    assert len(s.history) == before + 1 + 2  # the notice, then the next cycle's turns
    assert_valid(s)


async def test_on_request_during_a_cycle_runs_before_its_next_model_call() -> None:
    model = ScriptedModel([read(0), read(1), read(2), say(SUMMARY), say("Done.")])
    calls = 0

    async def ask_on_the_third_call(call: object) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            s.compact()

    s = session(model, env(), config(), hooks=Hooks(before_tool=(ask_on_the_third_call,)))
    async with s:
        events = await collect(s, TASK)
    kinds = [e.kind for e in events]
    assert kinds.count("compaction") == 1
    assert kinds.index("compaction") > max(i for i, k in enumerate(kinds) if k == "tool_call_end")
    assert events[-1].text == "Done."  # type: ignore[union-attr]
    assert model.requests[3].system == SUMMARY_SYSTEM  # right after the third round
    assert_sendable(main_requests(model))


async def test_on_request_that_cannot_shrink_is_acknowledged_by_a_warning() -> None:
    model = ScriptedModel([say("Hello.")])
    async with session(model, env(), config()) as s:
        await collect(s, "hi")
        events = s.events()
        s.compact()
        (warning,) = of(await until_acknowledged(events), WarningEvent)
    assert warning.code == "compaction" and "abandoned" in warning.message
    assert not notices(s) and len(model.requests) == 1


async def test_an_interrupt_stops_a_compaction_between_cycles_and_changes_nothing() -> None:
    summarizing = asyncio.Event()

    def slow_summary(request: Request) -> Reply:
        summarizing.set()
        return say(SUMMARY, delay=60.0)

    model = ScriptedModel([read(0), read(1), read(2), say("Read them."), slow_summary, say("ok")])
    async with session(model, env(), config()) as s:
        await collect(s, TASK)
        history = s.history
        events = s.events()
        s.compact()
        await summarizing.wait()
        assert s.state == "compacting"
        s.interrupt()
        seen = await until_acknowledged(events)
        assert of(seen, Interrupted) and not of(seen, Compaction)
        assert s.history == history and s.state == "idle"
        result = await s.run("go on")
    assert result.text == "ok"
    assert sent_text(main_requests(model)[-1]).count("line 0") == 600  # nothing was compacted


# --- the record, hooks, abandoning ---


async def test_the_jsonl_store_keeps_every_original_turn(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    model = ScriptedModel([*(read(n) for n in range(6)), say("Done.")])
    s = Session.recorded(path, model, environment=env(), config=cfg(keep_rounds=1))
    async with s:
        events = await collect(s, TASK)
    assert of(events, Compaction)
    recorded = load(path).turns
    assert list(recorded) == s.history
    outputs = [r.text for t in recorded if isinstance(t, ToolResultsTurn) for r in t.results]
    assert len(outputs) == 6 and all(out.count("line") == 600 for out in outputs)
    assert any(isinstance(t, NoticeTurn) and t.text.startswith("compacted: ") for t in recorded)
    resumed = Session.resume(path, ScriptedModel([say("hi")]), environment=env(), config=cfg())
    async with resumed:
        assert resumed.history == s.history  # the full record; the view is rebuilt from it


async def test_a_failing_hook_is_reported_and_compaction_still_runs() -> None:
    async def broken(tokens: int) -> None:
        raise RuntimeError("hook down")

    model = ScriptedModel([*(read(n) for n in range(4)), say("Done.")])
    hooks = Hooks(before_compaction=(broken,))
    async with session(model, env(), cfg(keep_rounds=1), hooks=hooks) as s:
        events = await collect(s, TASK)
    (error,) = of(events, ErrorEvent)
    assert "broken" in error.message and "hook down" in error.message
    assert events.index(error) < events.index(of(events, Compaction)[0])
    assert events[-1].stop_reason == "completed"  # type: ignore[union-attr]


async def test_an_abandoned_compaction_warns_once_and_is_not_retried_every_call() -> None:
    small = {f"s{n}.txt": "x" for n in range(4)}
    huge = "y" * (WINDOW * 4 * 9 // 10)  # 90% of the window in the first message
    steps = [
        *(tool_calls(("read_file", {"path": f"s{n}.txt"}), usage=QUIET) for n in range(4)),
        say("Done."),
    ]
    model = ScriptedModel(steps)
    async with session(model, MemoryEnvironment(files=small), cfg()) as s:
        events = await collect(s, huge)
    warnings = [w for w in of(events, WarningEvent) if w.code == "compaction"]
    assert len(warnings) == 1 and "abandoned" in warnings[0].message
    assert not of(events, Compaction) and not summary_requests(model)
    assert len(model.requests) == 5
    assert isinstance(events[-1], ProcessingEnd) and events[-1].stop_reason == "completed"
    assert not notices(s)


# --- the summary calls are calls of the session ---


async def test_a_stalled_summary_stream_times_out_and_the_compaction_falls_back() -> None:
    """A summary call is watched like any model call: a stalled stream is an idle timeout
    (retried by the policy, then given up), never a hang; the cheap elision still applies."""
    stalled = say(SUMMARY, delay=30)
    steps = [read(0), read(1), read(2), say("Read them."), stalled, stalled, say("ok")]
    model = ScriptedModel(steps)
    timeouts = Timeouts(connect=0.05, idle=0.05)
    retry = RetryPolicy(max_attempts=2, base_delay=0.001, jitter=0.0)
    async with session(model, env(), replace(config(), timeouts=timeouts, retry=retry)) as s:
        await collect(s, TASK)
        events = s.events()
        s.compact()
        acknowledged = await asyncio.wait_for(until_acknowledged(events), 10)
        warnings = [w.message for w in of(acknowledged, WarningEvent)]
        assert any("IdleTimeoutError" in w or "no data from the model" in w for w in warnings)
        assert (await s.run("go on")).text == "ok"
        assert_valid(s)


async def test_summary_calls_count_toward_the_model_call_limit() -> None:
    """Four calls of the loop and one summary reach max_model_calls=5: the next input stops
    at the limit (it would run one more call if the summary were not counted)."""
    steps = [read(0), read(1), read(2), say("Read them."), say(SUMMARY), say("ok")]
    model = ScriptedModel(steps)
    limits = Limits(max_model_calls=5, summary_on_limit=False)
    async with session(model, env(), replace(config(), limits=limits)) as s:
        await collect(s, TASK)
        events = s.events()
        s.compact()
        assert of(await until_acknowledged(events), Compaction)
        assert len(summary_requests(model)) == 1
        result = await s.run("go on")
        assert result.stop_reason == "turn_limit"
        assert_valid(s)
