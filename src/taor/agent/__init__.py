"""taor.agent: the session, its turn loop, events, transcript, guards, permissions and hooks.

``Session`` is the entry point; ``SessionConfig`` (with ``Limits``, ``LoopDetectionConfig``,
``PermissionConfig``, ``CompactionConfig``) configures it; ``Hooks`` and ``Decision`` are how a host steers tool calls;
``taor.agent.events`` holds the event vocabulary (``Event`` is the union) and
``taor.agent.codec`` turns events and turns into JSON and back.
"""

from taor.agent.config import (
    CompactionConfig,
    Limits,
    LoopDetectionConfig,
    PermissionConfig,
    SessionConfig,
)
from taor.agent.decisions import Decision
from taor.agent.events import EVENT_TYPES, Event
from taor.agent.hooks import AnswerCall, ChangeArguments, DenyCall, Hooks, ToolCallInfo
from taor.agent.result import RunResult
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.agent.store import JsonlTranscriptStore, TranscriptStore
from taor.agent.turns import (
    AssistantTurn,
    NoticeTurn,
    SteeringTurn,
    ToolResultsTurn,
    Turn,
    UserTurn,
)

__all__ = [
    "EVENT_TYPES",
    "AnswerCall",
    "AssistantTurn",
    "ChangeArguments",
    "CompactionConfig",
    "Decision",
    "DenyCall",
    "Event",
    "Hooks",
    "JsonlTranscriptStore",
    "Limits",
    "LoopDetectionConfig",
    "NoticeTurn",
    "PermissionConfig",
    "RunResult",
    "Session",
    "SessionConfig",
    "SteeringTurn",
    "ToolCallInfo",
    "ToolResultsTurn",
    "TranscriptStore",
    "Turn",
    "UserTurn",
    "default_tools",
]
