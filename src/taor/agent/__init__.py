"""taor.agent: the session, its turn loop, and what the loop reads and writes.

``Session`` is the entry point; ``SessionConfig`` (with ``Limits``, ``LoopDetectionConfig``,
``PermissionConfig``, ``CompactionConfig``) configures it; ``Hooks`` and ``Decision`` are how a
host steers tool calls; ``taor.agent.events`` holds the event vocabulary (``Event`` is the
union) and ``taor.agent.record.codec`` turns events and turns into JSON and back.

The map, from the host down:

- ``session``: the ``Session`` a host holds (``session_like``: the protocol a remote session
  meets to stand in for it); ``driver`` runs its inputs one cycle at a time and turns
  interrupts and close into a clean end; ``channel`` numbers events and delivers them to every
  reader; ``setup`` resolves the model, environment, tools and profile; ``result`` is
  ``RunResult``.
- ``loop/``: one cycle, read top to bottom in ``loop/cycle.py``: the model call
  (``loop/model_call.py``, its stream, retries and malformed-call recovery in
  ``loop/stream.py``) and the tool round (``loop/tool_round.py``, each call through
  ``loop/guarded.py``, reading what ``taor.tools`` prepared for it), the steps that end a
  cycle, and when to compact (``loop/compact_step.py``).
- ``record/``: turns, the transcript and its validator, the JSON codec, the JSONL store, and
  the permission waits a parked session resumes (``record/parking.py``, ``loop/parking.py``).
- ``policy/``: permissions and their rules, hooks, loop detection.
- ``context/``: the system prompt, token and usage ledgers, compaction.
- ``profiles/``: per-provider tool sets and prompts; ``subagents/``: child sessions.
- ``checkpoints/``: the files tool calls change, saved per user input
  (``Session.checkpoints()``), and ``Session.rewind`` to go back to one.
- ``runtime``: the state the loop works on (``parts``: the narrow views of it each step
  takes); ``config`` and ``events``: what a host sets and sees;
  ``commands``: what a host tells a session, as data (``Session.apply``).
"""

from taor.agent.checkpoints import Checkpoint, FileChange, RewindResult
from taor.agent.config import (
    CompactionConfig,
    Limits,
    LoopDetectionConfig,
    PermissionConfig,
    SessionConfig,
)
from taor.agent.events import EVENT_TYPES, Event
from taor.agent.policy.decisions import Decision
from taor.agent.policy.hooks import AnswerCall, ChangeArguments, DenyCall, Hooks, ToolCallInfo
from taor.agent.record.store import JsonlTranscriptStore, TranscriptStore
from taor.agent.record.turns import (
    AssistantTurn,
    NoticeTurn,
    SteeringTurn,
    ToolResultsTurn,
    Turn,
    UserTurn,
)
from taor.agent.result import RunResult
from taor.agent.session import Session
from taor.agent.session_like import SessionLike
from taor.agent.setup import default_tools

__all__ = [
    "EVENT_TYPES",
    "AnswerCall",
    "AssistantTurn",
    "ChangeArguments",
    "Checkpoint",
    "CompactionConfig",
    "Decision",
    "DenyCall",
    "Event",
    "FileChange",
    "Hooks",
    "JsonlTranscriptStore",
    "Limits",
    "LoopDetectionConfig",
    "NoticeTurn",
    "PermissionConfig",
    "RewindResult",
    "RunResult",
    "Session",
    "SessionConfig",
    "SessionLike",
    "SteeringTurn",
    "ToolCallInfo",
    "ToolResultsTurn",
    "TranscriptStore",
    "Turn",
    "UserTurn",
    "default_tools",
]
