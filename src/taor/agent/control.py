"""The commands a host sends a running session: steer, follow up, interrupt, compact, answer a
permission request, reconfigure, rebuild the prompt.

``SessionControl`` is the base class of ``taor.agent.Session`` that holds them; each works on
the session's runtime, driver and channel and is acknowledged by an event (see
``taor.agent.events``). They may come at any time, also from another task while a cycle runs,
but ``rewind``, which only an idle session takes, and which returns what it did.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from taor.agent.channel import Channel
from taor.agent.checkpoints.log import CheckpointLog
from taor.agent.checkpoints.records import Checkpoint, RewindResult
from taor.agent.checkpoints.rewind import rewind_session
from taor.agent.config import SessionConfig
from taor.agent.driver import Driver
from taor.agent.events import FollowUpQueued, SteeringQueued, SystemPromptChanged
from taor.agent.lifecycle import build_prompt
from taor.agent.loop.parking import answer_early
from taor.agent.policy.decisions import Decision
from taor.agent.profiles import Profile
from taor.agent.runtime import Runtime
from taor.agent.subagents import SubagentManager
from taor.agent.subagents.wiring import decide_for_child
from taor.env.base import Environment
from taor.errors import SessionError
from taor.llm.model import Model


class SessionControl:
    """What a host may tell a session while it runs (``Session`` sets the attributes)."""

    id: str
    _rt: Runtime
    _driver: Driver
    _channel: Channel
    profile: Profile | None
    subagents: SubagentManager | None

    def steer(self, text: str) -> None:
        """A message for the model at the next safe point (after the current tool round)."""
        self._check_open()
        self._rt.steering.append(text)
        self._channel.publish(SteeringQueued(text=text))

    def requeue_steering(self) -> list[str]:
        """Steering that reached no model call (the cycle ended first) as one input of its
        own, run next, instead of waiting for the next input; returns the texts moved."""
        texts = self.withdraw_steering()
        if texts:
            self.follow_up("\n\n".join(texts))
        return texts

    def withdraw_steering(self) -> list[str]:
        """Steering that reached no model call, taken back: it will not be sent (a host
        gives it back to the person, say after an interrupt); returns the texts."""
        self._check_open()
        texts = list(self._rt.steering)
        self._rt.steering.clear()
        return texts

    def follow_up(self, text: str) -> None:
        """An input to run as a new cycle once the current one ends."""
        self._driver.enqueue(text)
        self._channel.publish(FollowUpQueued(text=text))

    def interrupt(self) -> None:
        """Stop the current cycle now; partial text is kept, pending calls get results.
        An input submitted while idle whose cycle has not started yet is stopped as it starts.
        Running subagents are interrupted too (they stay open for new input)."""
        self._driver.interrupt()
        if self.subagents is not None:
            self.subagents.interrupt_all()

    def compact(self, focus: str | None = None) -> None:
        """Compact what is sent to the model: now when idle, else at the next safe point of the
        running cycle (before its next model call) or right after it. ``focus`` tells the
        summary what to keep. Acknowledged by a ``compaction`` event, or a ``warning`` (code
        ``compaction``) when nothing could be shrunk. The recorded history stays whole."""
        self._check_open()
        self._rt.compaction_requests.append(focus or "")
        self._driver.wake()

    def decide(
        self, request_id: str, decision: Decision | str, message: str = "", *, agent_id: str = ""
    ) -> None:
        """Answer a ``permission_request`` (``allow``, ``allow_always`` or ``deny``); one of a
        subagent by its ``agent_id`` (else this session's, then the first child's pending).
        Any other answer raises ``SessionError`` and leaves the request pending."""
        decision = Decision.of(decision, message)
        future = None if agent_id else self._rt.permission_waiters.get(request_id)
        if future is None and not agent_id and answer_early(self._rt, request_id, decision):
            return  # a resumed session's parked request, before it is asked again
        if future is None or future.done():
            decide_for_child(self.subagents, request_id, decision, message, agent_id)
            return
        future.set_result(decision)

    def configure(
        self,
        config: SessionConfig | None = None,
        *,
        model: Model | None = None,
        environment: Environment | None = None,
        **changes: Any,
    ) -> None:
        """Change what the next model call uses: a whole config, fields of it, the model or
        the environment (``configure(reasoning_effort="high")``)."""
        self._check_open()
        new = config or self._rt.config
        if changes:
            new = dataclasses.replace(new, **changes)
        self._rt.reconfigure(new, model=model)
        if environment is not None:
            self._rt.environment = environment
            if self._rt.owns_checkpoints:
                self._rt.checkpoints.environment = environment

    async def rebuild_prompt(self) -> None:
        """Build the system prompt again (instruction files, git snapshot, date) from the next
        model call; a ``system_prompt_changed`` event says when it changed."""
        self._check_open()
        prompt = self._rt.prompt
        if prompt is None:
            rt = self._rt
            rt.prompt = await build_prompt(rt.config, self.profile, rt.model, rt.environment)
        elif await prompt.rebuild(today=datetime.date.today()):
            self._channel.publish(SystemPromptChanged(reason="rebuilt on request"))

    def checkpoints(self) -> list[Checkpoint]:
        """One checkpoint per user input so far (turn 1 first): its prompt's first line, when
        it came, and the files changed while it ran (a subagent's list is its parent's)."""
        if not self._rt.owns_checkpoints:
            return []
        return self._rt.checkpoints.checkpoints(self._rt.transcript.turns)

    async def rewind(
        self, turn: int, *, files: bool = True, conversation: bool = True
    ) -> RewindResult:
        """Go back to before user input ``turn``: put the files back as they were then
        (``files``) and continue from the conversation as it was then (``conversation``: the
        session becomes a fork with a new id; the original transcript stays as it is). Only
        an idle session rewinds; see ``taor.agent.checkpoints.rewind``."""
        self._check_open()
        if not self._rt.owns_checkpoints:
            raise SessionError("a subagent's files are checkpointed by its parent: rewind that")
        if self._rt.state != "idle" or self._driver.held:
            raise SessionError(f"rewind needs an idle session; this one is {self._rt.state}")
        running = self.subagents.running() if self.subagents is not None else []
        if running:
            raise SessionError(f"rewind needs idle subagents; running: {', '.join(running)}")
        self._driver.held = True
        try:
            result = await rewind_session(self._rt, turn, files=files, conversation=conversation)
        finally:
            self._driver.held = False
        self.id = self._rt.session_id
        for child in self.subagents.sessions() if self.subagents is not None else ():
            child.lend_checkpoints(self._rt.checkpoints)  # the fork's, from now on
        return result

    def lend_checkpoints(self, log: CheckpointLog) -> None:
        """Record the files this session changes in ``log`` (a parent's checkpoints, in the
        parent's current turn) instead of its own: a subagent's changes are rewound with its
        parent's."""
        self._rt.checkpoints, self._rt.owns_checkpoints = log, False

    def _check_open(self) -> None:
        self._driver.check_open()
