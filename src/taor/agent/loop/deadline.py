"""A point in time at which the running cycle stops, the way an interrupt stops it.

``Deadline.arm`` schedules, on the event loop, what ``Session.interrupt`` does: set the
cycle's ``stopping`` (to ``turn_limit``) and cancel the task running the cycle. Whatever is in flight
at that moment, a model stream, a tool's command, a wait for a permission answer, is stopped
there, with the interrupt's guarantees (partial text kept, pending calls answered). A host that
interrupted first wins: the deadline then does nothing.
"""

from __future__ import annotations

import asyncio

from taor.agent.cycle_state import Cycle


class Deadline:
    def __init__(self, cycle: Cycle) -> None:
        self._cycle = cycle
        self._handle: asyncio.TimerHandle | None = None
        self.fired = False

    @classmethod
    def arm(cls, cycle: Cycle, seconds: float) -> Deadline:
        """A deadline ``seconds`` from now for the current task, which runs ``cycle``; none
        when ``seconds`` is 0."""
        deadline = cls(cycle)
        task = asyncio.current_task()
        if seconds > 0 and task is not None:
            deadline._handle = asyncio.get_running_loop().call_later(seconds, deadline._fire, task)
        return deadline

    def _fire(self, task: asyncio.Task[object]) -> None:
        if self._cycle.stopping is None and not task.done():
            self.fired = True
            self._cycle.stopping = "turn_limit"
            task.cancel()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
