"""Subagents: child sessions a session starts, runs and closes.

``SubagentManager`` owns a session's children (built by an injected ``ChildFactory`` from a
``ChildSpec``); ``subagent_tools`` gives the model ``spawn_agent``, ``send_input``, ``wait`` and
``close_agent``; ``fan_out`` runs N children from a snapshot of the conversation with the
budget shared; ``SharedEnvironment`` / ``ScopedEnvironment`` are the environment a child gets.
"""

from taor.agent.subagents.fan_out import fan_out, snapshot, split_limits
from taor.agent.subagents.manager import SubagentManager
from taor.agent.subagents.records import (
    SUBAGENT_TOOL_NAMES,
    ChildFactory,
    ChildSession,
    ChildSpec,
    SubagentResult,
    SubagentStatus,
    describe,
    tighten,
)
from taor.agent.subagents.scoped import ScopedEnvironment, SharedEnvironment, child_environment
from taor.agent.subagents.tools import (
    CloseAgentTool,
    SendInputTool,
    SpawnAgentTool,
    WaitTool,
    subagent_tools,
)

__all__ = [
    "SUBAGENT_TOOL_NAMES",
    "ChildFactory",
    "ChildSession",
    "ChildSpec",
    "CloseAgentTool",
    "ScopedEnvironment",
    "SendInputTool",
    "SharedEnvironment",
    "SpawnAgentTool",
    "SubagentManager",
    "SubagentResult",
    "SubagentStatus",
    "WaitTool",
    "child_environment",
    "describe",
    "fan_out",
    "snapshot",
    "split_limits",
    "subagent_tools",
    "tighten",
]
