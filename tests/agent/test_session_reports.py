"""What a host reads from a session between events: the model in use, usage and cost, what
fills the context window, the permission rules in force, the rules an allow-always adds, and
steering that came too late for its cycle or was taken back."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

from taor.agent.events import (
    Event,
    FollowUpQueued,
    PermissionDecision,
    PermissionRequest,
    UserInput,
)
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm.response import Usage
from taor.llm.types import Request
from taor.testing import Reply, ScriptedModel, text, tool_calls

from .session_drive import config, drive, of_kind

SHELL = ("shell", {"command": "pytest -q"})


def workspace() -> MemoryEnvironment:
    env = MemoryEnvironment(files={"app.py": "a = 1\n"})
    env.script("pytest -q", "3 passed\n")
    return env


async def test_usage_report_counts_responses_cost_and_cache_share() -> None:
    usage = Usage(input_tokens=1000, output_tokens=50, cache_read_tokens=600)
    model = ScriptedModel(
        [text("hi", usage=usage)], provider="anthropic", model_id="claude-sonnet-4-5"
    )
    async with Session(model, environment=workspace(), profile=None) as session:
        before = session.usage_report()
        await drive(session, "hello")
        report = session.usage_report()
    assert (before.responses, before.token_ratio, before.cache_share) == (0, 1.0, 0.0)
    assert report.responses == report.session_model_calls == 1
    assert report.usage == usage and report.cache_share == 0.6
    assert report.cost is not None and report.cost > 0 and report.session_cost == report.cost
    assert report.token_ratio != 1.0  # calibrated by the response's reported input tokens


async def test_usage_report_says_how_the_model_is_priced_before_its_first_call() -> None:
    models = {
        "priced": ("anthropic", "claude-sonnet-4-5"),
        "free": ("local", "qwen2.5-coder-1.5b"),  # taor runs it: no charge
        "unknown": ("openai-compat", "some-served-model"),  # the catalog has no prices
    }
    for pricing, (provider, model_id) in models.items():
        model = ScriptedModel([text("hi")], provider=provider, model_id=model_id)
        async with Session(model, environment=workspace(), profile=None) as session:
            before = session.usage_report()
            await drive(session, "hello")
            after = session.usage_report()
        assert before.pricing == after.pricing == pricing, provider
        assert before.cost == 0.0
        assert (after.cost is None) == (pricing == "unknown")
        assert (after.cost == 0.0) == (pricing == "free")


async def test_context_report_names_what_fills_the_window() -> None:
    model = ScriptedModel([tool_calls(("read_file", {"path": "app.py"})), text("It sets a.")])
    settings = dataclasses.replace(config(), system_prompt="You help with code.")
    async with Session(model, environment=workspace(), config=settings) as session:
        start = session.context_report()
        await drive(session, "what does app.py do?")
        report = session.context_report()
    assert dict(start.parts).keys() == {"system prompt", "tool definitions"}
    parts = dict(report.parts)
    for name in ("your messages", "assistant text", "tool calls", "tool results"):
        assert parts[name] > 0, name
    assert report.tokens == sum(parts.values()) and start.tokens == sum(dict(start.parts).values())
    assert report.window > 0 and 0 < report.fraction < 1 and report.messages == 4


async def test_the_model_property_follows_configure() -> None:
    first, second = ScriptedModel([text("a")]), ScriptedModel([text("b")], model_id="other")
    async with Session(first, environment=workspace()) as session:
        assert session.model is first
        session.configure(model=second)
        assert session.model is second
        result = await session.run("go")
    assert result.text == "b"


async def test_allow_always_names_its_rules_before_and_after_and_they_are_in_force() -> None:
    model = ScriptedModel([tool_calls(SHELL), text("ran"), tool_calls(SHELL), text("again")])
    settings = config("default", allow=("read_file",), deny=("shell(rm*)",))
    async with Session(model, environment=workspace(), config=settings) as session:
        assert session.permission_rules().added == ()
        events = await drive(
            session, "test", lambda r: session.decide(r.request_id, "allow_always")
        )
        again = await drive(session, "again")  # the added rule answers: no request
        rules = session.permission_rules()
    (request,) = of_kind(events, "permission_request")
    (decision,) = of_kind(events, "permission_decision")
    assert isinstance(request, PermissionRequest) and request.rules == ("shell(pytest -q)",)
    assert isinstance(decision, PermissionDecision) and decision.rules == request.rules
    assert not of_kind(again, "permission_request")
    assert (rules.mode, rules.allow, rules.deny) == ("default", ("read_file",), ("shell(rm*)",))
    assert rules.added == ("shell(pytest -q)",)


async def test_steering_that_came_after_the_last_call_runs_as_the_next_input() -> None:
    sent: list[Request] = []

    def late(request: Request) -> Reply:  # the final answer is being written: too late
        sent.append(request)
        session.steer("also update the docs")
        return text("done")

    model = ScriptedModel([late, text("docs updated")])
    async with Session(model, environment=workspace(), profile=None) as session:
        await drive(session, "fix it")
        events = session.events()
        assert session.requeue_steering() == ["also update the docs"]
        assert session.requeue_steering() == []
        seen = [event async for event in _until_second_input(events)]
    assert any(isinstance(e, FollowUpQueued) for e in seen)
    (follow,) = [e for e in seen if isinstance(e, UserInput)]
    assert follow.text == "also update the docs"


async def test_steering_withdrawn_after_an_interrupt_is_never_sent() -> None:
    sent: list[Request] = []

    def interrupted(request: Request) -> Reply:  # steered, then stopped before it was sent
        sent.append(request)
        session.steer("and the docs")
        session.interrupt()
        return text("never finished")

    def answer(request: Request) -> Reply:
        sent.append(request)
        return text("fine")

    model = ScriptedModel([interrupted, answer])
    async with Session(model, environment=workspace(), profile=None) as session:
        await drive(session, "fix it")
        assert session.withdraw_steering() == ["and the docs"]
        assert session.withdraw_steering() == []
        await drive(session, "next")
    assert "and the docs" not in str(sent[-1].messages)


async def _until_second_input(events: AsyncIterator[Event]) -> AsyncIterator[Event]:
    async for event in events:
        yield event
        if event.kind == "processing_end":
            return
