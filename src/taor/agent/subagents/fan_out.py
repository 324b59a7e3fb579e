"""Fan-out (a coordinator's mode of work): N children from a snapshot of the parent's
conversation, their results gathered, the parent's budget shared among them.

Budget: ``split_limits`` gives each of N children ``max_model_calls // N`` calls and
``max_cost / N`` dollars, so together they spend no more than the budget given (pass what the
parent has left). A budget of fewer model calls than children is refused. The per-input limits
(tool rounds, tool calls, wall time) apply to each child as they are. A limit of 0 stays off.

The snapshot is the parent's turns up to its last settled point: an assistant turn whose calls
have no results yet (the parent is in the middle of the call that started the fan-out) is left
out, and anything else the validator would refuse is repaired.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

from taor.agent.config import Limits
from taor.agent.record.transcript import Transcript, repair
from taor.agent.record.turns import AssistantTurn, Turn
from taor.agent.subagents.manager import SubagentManager
from taor.agent.subagents.records import SubagentResult
from taor.errors import SessionError


def split_limits(budget: Limits, count: int) -> Limits:
    """One child's share of ``budget`` when ``count`` children share it evenly."""
    if count < 1:
        raise SessionError("count must be at least 1.")
    calls = budget.max_model_calls
    if calls and calls < count:
        raise SessionError(
            f"A budget of {calls} model calls cannot be shared by {count} agents; "
            "start fewer agents or raise max_model_calls."
        )
    return dataclasses.replace(
        budget, max_model_calls=calls // count, max_cost=budget.max_cost / count
    )


def snapshot(turns: Sequence[Turn]) -> tuple[Turn, ...]:
    """The turns a child starts from: without a trailing unanswered assistant turn, valid."""
    kept = list(turns)
    if Transcript(kept).pending_calls():
        last = max(i for i, turn in enumerate(kept) if isinstance(turn, AssistantTurn))
        kept = kept[:last]
    return tuple(repair(kept))


async def fan_out(
    manager: SubagentManager,
    history: Sequence[Turn],
    tasks: Sequence[str],
    *,
    budget: Limits | None = None,
    timeout: float | None = None,  # noqa: ASYNC109 (how long to wait for the children)
    model: str | None = None,
) -> list[SubagentResult]:
    """Run one child per task from a snapshot of ``history``, gather their results in task
    order, and close them. A child not done after ``timeout`` seconds is closed: its result
    has status ``cancelled`` (and whatever text it had)."""
    share = split_limits(budget, len(tasks)) if budget is not None and tasks else None
    start = snapshot(history)
    ids = [await manager.spawn(task, model=model, limits=share, history=start) for task in tasks]
    try:
        waited = await asyncio.gather(*(manager.wait(agent_id, timeout) for agent_id in ids))
    finally:
        closed = await asyncio.gather(*(manager.close(agent_id) for agent_id in ids))
    return [
        done if done.status != "running" else late
        for done, late in zip(waited, closed, strict=True)
    ]
