"""``SubagentManager``: a session's children.

A parent session owns one manager. ``spawn`` builds a child ``Session`` through the injected
``ChildFactory`` (own history; the parent's environment, shared and optionally scoped to a
working directory) and runs its task in the background; every event of the child reaches the
parent's ``publish`` tagged with the child's id. ``send_input`` steers a running child or gives
an idle one a new cycle; ``wait`` returns where a child stands after at most ``timeout`` seconds
(status ``running`` when it is not done: it never hangs past the timeout); ``close`` cancels one
child, ``close_all`` every one (the parent's ``close`` calls it); ``interrupt_all`` interrupts
the running ones (the parent's ``interrupt`` calls it). Depth: the parent is at
``depth`` 0; a manager at ``max_depth`` refuses to spawn, and a child gets a manager of its own
only when it may spawn (``max_depth`` 1, the default: no grandchildren).

Misuse raises: ``UnknownIdError`` (a ``SessionError`` and a ``KeyError``) for an unknown agent id, ``SessionError`` for the depth limit, a
closed manager or a closed child, ``PathPolicyError`` for a working directory outside the
workspace. The subagent tools turn these into error results for the model.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

from taor.agent.config import Limits
from taor.agent.events import Event
from taor.agent.policy.decisions import Decision
from taor.agent.record.turns import Turn
from taor.agent.subagents.child import Child, Publish, tagged
from taor.agent.subagents.records import ChildFactory, ChildSession, ChildSpec, SubagentResult
from taor.agent.subagents.scoped import child_environment
from taor.agent.subagents.tools import subagent_tools
from taor.env.base import Environment
from taor.errors import SessionError, UnknownIdError


class SubagentManager:
    """The children of one session."""

    def __init__(
        self,
        factory: ChildFactory,
        environment: Environment,
        *,
        publish: Publish,
        depth: int = 0,
        max_depth: int = 1,
    ) -> None:
        self.depth = depth
        self.max_depth = max_depth
        self._factory = factory
        self._environment = environment
        self._publish = publish
        self._children: dict[str, Child] = {}
        self._numbers = itertools.count(1)
        self._closed = False

    async def spawn(
        self,
        task: str,
        *,
        working_dir: str | None = None,
        model: str | None = None,
        limits: Limits | None = None,
        history: Sequence[Turn] = (),
    ) -> str:
        """Start a child on ``task`` in the background; its id."""
        self._check_can_spawn(task)
        agent_id = f"agent-{next(self._numbers)}"
        environment = child_environment(self._environment, working_dir)
        grand = self._grandchildren(agent_id, environment)
        spec = ChildSpec(
            agent_id=agent_id,
            task=task,
            environment=environment,
            depth=self.depth + 1,
            model=model,
            limits=limits,
            history=tuple(history),
            subagent_tools=tuple(subagent_tools(grand)) if grand is not None else (),
        )
        child = Child(agent_id, self._factory(spec), self._publish, grand)
        self._children[agent_id] = child
        await child.start(task)
        return agent_id

    def send_input(self, agent_id: str, message: str) -> str:
        """Steer a running child (``steered``) or start a new cycle of an idle one (``queued``)."""
        child = self._open_child(agent_id)
        if not message.strip():
            raise SessionError("The message is empty; say what the agent should do.")
        return child.send(message)

    async def wait(self, agent_id: str, timeout: float | None = None) -> SubagentResult:  # noqa: ASYNC109
        """Where the child stands once it is done, or after ``timeout`` seconds (None: no limit)."""
        child = self._child(agent_id)
        if not child.settled.is_set():
            try:
                async with asyncio.timeout(timeout):
                    await child.settled.wait()
            except TimeoutError:
                pass
        return child.result()

    def session(self, agent_id: str) -> ChildSession:
        """The child's ``Session`` (its history, state and tools, for a host that looks)."""
        return self._child(agent_id).session

    def result(self, agent_id: str) -> SubagentResult:
        """Where the child stands now."""
        return self._child(agent_id).result()

    def decide(
        self, agent_id: str, request_id: str, decision: Decision | str, message: str = ""
    ) -> None:
        """Answer a child's ``permission_request`` (relayed with the child's id; a grandchild's
        as ``child/grandchild``)."""
        head, _, rest = agent_id.partition("/")
        child = self._child(head)
        if not rest:
            child.session.decide(request_id, decision, message)
        elif child.subagents is not None:
            child.subagents.decide(rest, request_id, decision, message)
        else:
            raise UnknownIdError(f"Agent {head} has no agent {rest!r}.")

    def decide_pending(self, request_id: str, decision: Decision | str, message: str = "") -> None:
        """Answer ``request_id`` for the first child (or grandchild) that has it pending;
        ``UnknownIdError`` when none has."""
        for child in self._children.values():
            try:
                child.session.decide(request_id, decision, message)
                return
            except UnknownIdError:
                pass
            if child.subagents is not None:
                try:
                    child.subagents.decide_pending(request_id, decision, message)
                    return
                except UnknownIdError:
                    pass
        raise UnknownIdError(f"no pending permission request {request_id!r}")

    def sessions(self) -> list[ChildSession]:
        """The sessions of the children still open."""
        return [child.session for child in self._children.values() if not child.closed]

    def running(self) -> list[str]:
        """The ids of the children whose cycle is running (or waiting on a permission)."""
        return [
            i
            for i, child in self._children.items()
            if not child.closed and child.session.state != "idle"
        ]

    def interrupt_all(self) -> None:
        """Interrupt every running child's cycle (and, through it, its own children); an
        idle child is left alone. Interrupted children stay open for ``send_input``."""
        for child in self._children.values():
            child.interrupt()

    async def close(self, agent_id: str) -> SubagentResult:
        """Stop the child (its current cycle is cancelled, its transcript stays valid)."""
        child = self._child(agent_id)
        await child.close()
        return child.result()

    async def close_all(self) -> None:
        """Close every child; the manager spawns no more."""
        self._closed = True
        await asyncio.gather(*(child.close() for child in self._children.values()))

    # --- helpers ---

    def _check_can_spawn(self, task: str) -> None:
        if self._closed:
            raise SessionError("The session is closing; no new agents can be started.")
        if self.depth >= self.max_depth:
            raise SessionError(
                f"Depth limit reached: an agent at depth {self.depth} may not start agents "
                f"(max depth {self.max_depth}). Do the task yourself."
            )
        if not task.strip():
            raise SessionError("The task is empty; say what the agent should do.")

    def _grandchildren(self, agent_id: str, environment: Environment) -> SubagentManager | None:
        if self.depth + 1 >= self.max_depth:
            return None

        def publish(event: Event) -> None:
            self._publish(tagged(event, agent_id))

        return SubagentManager(
            self._factory,
            environment,
            publish=publish,
            depth=self.depth + 1,
            max_depth=self.max_depth,
        )

    def _child(self, agent_id: str) -> Child:
        child = self._children.get(agent_id)
        if child is None:
            known = ", ".join(self._children) or "none"
            raise UnknownIdError(f"No agent {agent_id!r} (known agents: {known}).")
        return child

    def _open_child(self, agent_id: str) -> Child:
        child = self._child(agent_id)
        if child.closed:
            raise SessionError(f"Agent {agent_id} is closed; start a new one with spawn_agent.")
        return child
