"""The subagent tools over a ``SubagentManager`` (any ``Agents``): ``spawn_agent``, ``send_input``, ``wait``,
``close_agent``. Their results are text for the model (the agent id, where it
stands, its output, success and turns used) with the same facts in ``metadata`` for the host.
A refused call (depth limit, unknown id, a working directory outside the workspace) is an
``is_error`` result saying what to do instead.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, field
from typing import Any

from taor._records import frozen
from taor.agent.config import Limits
from taor.agent.subagents.records import Agents, SubagentResult, describe
from taor.env.base import EnvError
from taor.errors import SessionError
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.effects import Effects

DEFAULT_WAIT = 300.0
MAX_WAIT = 600.0
# The subagent tools change no file themselves: each child's own calls are checkpointed and
# diffed in the child.
CHILDREN_RECORD_THEIR_OWN = Effects(writes_elsewhere=False)
_ID = {"type": "string", "description": "The id spawn_agent returned, e.g. agent-1."}


def _schema(properties: Mapping[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": required,
        "additionalProperties": False,
    }


async def _refusals(action: Callable[[], Awaitable[ToolOutput]]) -> ToolOutput:
    """The action's output, or an error result for a refused request."""
    try:
        return await action()
    except (SessionError, EnvError) as error:  # an unknown agent id is a SessionError too
        return ToolOutput.error(str(error))


def _result_output(result: SubagentResult) -> ToolOutput:
    return ToolOutput.of(describe(result), metadata=asdict(result))


@frozen
class SpawnAgentTool:
    manager: Agents = field(repr=False, compare=False)
    name: str = "spawn_agent"
    description: str = (
        "Start a subagent: a separate agent with its own conversation that works on `task` in "
        "the background, in the same workspace (or only inside `working_dir`). Returns its "
        "agent_id at once; call wait to get its output. Give it a complete, self-contained task."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: _schema(
            {
                "task": {"type": "string", "description": "What the agent should do."},
                "working_dir": {
                    "type": "string",
                    "description": "A directory of the workspace the agent is confined to.",
                },
                "model": {"type": "string", "description": "Another model for the agent."},
                "max_turns": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Most model calls the agent may make (0: no limit).",
                },
            },
            ["task"],
        )
    )
    read_only: bool = False

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        return CHILDREN_RECORD_THEIR_OWN

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        async def spawn() -> ToolOutput:
            turns = int(arguments.get("max_turns") or 0)
            agent_id = await self.manager.spawn(
                str(arguments["task"]),
                working_dir=arguments.get("working_dir"),
                model=arguments.get("model"),
                limits=Limits(max_model_calls=turns) if turns else None,
            )
            text = (
                f"Started agent {agent_id} (status: running). Call wait with agent_id "
                f"{agent_id!r} for its result, send_input to give it more instructions, "
                "close_agent to stop it."
            )
            return ToolOutput.of(text, metadata={"agent_id": agent_id, "status": "running"})

        return await _refusals(spawn)


@frozen
class SendInputTool:
    manager: Agents = field(repr=False, compare=False)
    name: str = "send_input"
    description: str = (
        "Send a message to a subagent: a running agent reads it at its next step, an idle one "
        "starts working on it."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: _schema(
            {"agent_id": _ID, "message": {"type": "string", "description": "The message."}},
            ["agent_id", "message"],
        )
    )
    read_only: bool = False

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        return CHILDREN_RECORD_THEIR_OWN

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        async def send() -> ToolOutput:
            agent_id = str(arguments["agent_id"])
            how = self.manager.send_input(agent_id, str(arguments["message"]))
            text = (
                f"Message sent to agent {agent_id}; it reads it at its next step."
                if how == "steered"
                else f"Agent {agent_id} was idle; it is now working on the message."
            )
            return ToolOutput.of(text, metadata={"agent_id": agent_id, "delivery": how})

        return await _refusals(send)


@frozen
class WaitTool:
    manager: Agents = field(repr=False, compare=False)
    name: str = "wait"
    description: str = (
        "Wait until a subagent is done (or `timeout` seconds pass) and get its output, whether "
        "it succeeded and the turns it used."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: _schema(
            {
                "agent_id": _ID,
                "timeout": {
                    "type": "number",
                    "minimum": 0,
                    "description": (
                        f"Seconds to wait at most (default {DEFAULT_WAIT:g}, at most {MAX_WAIT:g})."
                    ),
                },
            },
            ["agent_id"],
        )
    )
    read_only: bool = True

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        return CHILDREN_RECORD_THEIR_OWN

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        async def wait() -> ToolOutput:
            timeout = min(float(arguments.get("timeout", DEFAULT_WAIT)), MAX_WAIT)
            result = await self.manager.wait(str(arguments["agent_id"]), timeout)
            return _result_output(result)

        return await _refusals(wait)


@frozen
class CloseAgentTool:
    manager: Agents = field(repr=False, compare=False)
    name: str = "close_agent"
    description: str = (
        "Stop a subagent (its current work is cancelled) and get its final status and output."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: _schema({"agent_id": _ID}, ["agent_id"])
    )
    read_only: bool = False

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        return CHILDREN_RECORD_THEIR_OWN

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        async def close() -> ToolOutput:
            return _result_output(await self.manager.close(str(arguments["agent_id"])))

        return await _refusals(close)


def subagent_tools(manager: Agents) -> list[Tool]:
    """The four tools over ``manager`` (at the depth limit ``spawn_agent`` answers with an
    error saying so; ``ChildSpec.tools`` leaves them all out for a child that may not spawn)."""
    return [
        SpawnAgentTool(manager=manager),
        SendInputTool(manager=manager),
        WaitTool(manager=manager),
        CloseAgentTool(manager=manager),
    ]
