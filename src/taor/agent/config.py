"""``SessionConfig``: everything about a session that is not its model, environment or tools.

Every field may change between calls (``Session.configure``); a change applies from the next
model call. Limits of 0 or None are off. ``Limits`` end a cycle with a ``turn_limit`` event and
leave the session usable; ``max_model_calls`` and ``max_cost`` count over the whole session,
the others per input (cycle).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any, Literal

from taor._records import frozen
from taor.llm.model import Timeouts
from taor.llm.retry import RetryPolicy
from taor.llm.types import ReasoningEffort

PermissionMode = Literal["default", "accept_edits", "plan", "bypass"]
HeadlessDecision = Literal["allow", "deny"]


@frozen
class Limits:
    """Counted limits are checked before each model call. ``max_wall_time`` is a deadline: the
    model call, tool or permission wait in flight when it passes is stopped as an interrupt
    would stop it (partial text kept, pending calls answered). Either way a text-only summary
    follows unless ``summary_on_limit`` is off, capped at ``summary_tokens`` and stopped after
    ``summary_time`` seconds (its partial text kept), so an input stopped by the deadline ends
    within ``max_wall_time + summary_time`` plus the second or two it takes to stop a tool's
    processes.

    ``max_model_calls`` counts every request sent: retries, recoveries of a malformed tool call
    and the summary included; none of them starts once the limit is reached (so the summary
    is skipped at the call or cost limit). ``max_cost`` is checked before each request: no
    request starts once the known cost is at or over it, but the one in flight when it is
    crossed is paid for, so the total can pass it by that one call."""

    max_model_calls: int = 0  # per session
    max_tool_rounds: int = 0  # per input
    max_tool_calls: int = 0  # per input
    max_wall_time: float = 0.0  # seconds per input: a deadline, see below
    max_cost: float = 0.0  # US dollars per session, from the catalog's prices
    summary_on_limit: bool = True  # ask the model for a last text-only summary at a limit
    summary_tokens: int = 1000  # at most this many output tokens for that summary (0: no cap)
    summary_time: float = 30.0  # seconds that summary may take (0: no bound)


@frozen
class LoopDetectionConfig:
    """``repeats``: when set, one call made that many times within the last ``window`` calls
    is a loop too (not only a block that fills the window), and that many back-to-back
    copies of a warned call stop the cycle."""

    enabled: bool = True
    window: int = 10
    cooldown: int = 10  # tool calls after a warning before another can fire
    repeats: int = 0  # 0: only the cycle rule


@frozen
class PermissionConfig:
    """``allow`` / ``deny`` are rules like ``shell(git status*)`` or ``edit_file(src/**)``;
    deny wins. ``headless`` answers a request when the host has no way to (no ``can_use_tool``
    callback and ``interactive`` False), and ``timeout`` bounds a wait for the host's answer
    (0: wait until answered, interrupted or closed)."""

    mode: PermissionMode = "default"
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    interactive: bool = True
    headless: HeadlessDecision = "deny"
    timeout: float = 0.0


@frozen
class CompactionConfig:
    """When the session compacts what it sends (``taor.agent.loop.compact_step``): before a model
    call once the estimate reaches ``threshold`` of the context window, once on a context-length
    error, and on request (``Session.compact``). ``keep_rounds``: the latest tool rounds whose
    outputs stay whole; ``plan``: a plan or brief from the host, pinned through every summary;
    ``summary_tokens``: the length of a summary; ``max_messages``: the hard cap on messages."""

    enabled: bool = True
    threshold: float = 0.85
    keep_rounds: int = 3
    plan: str = ""
    summary_tokens: int = 2000
    max_messages: int = 1000


@frozen
class SessionConfig:
    """``instructions`` are the user's own, the last layer of the built system prompt;
    ``system_prompt``, when set, replaces the built prompt entirely (profile prompt, environment
    block, project instructions). ``user_instructions_file`` is a host path read as the
    user-level instructions (e.g. ``~/.config/taor/AGENTS.md``); None skips it.
    ``parallel_tool_calls`` False asks the model for one tool call per reply and runs only the
    first when it makes more (the others are answered with an error saying to call them one
    at a time); None takes the profile's choice (local models: one at a time).
    ``checkpoints`` False stops saving files before tool calls change them (``Session.rewind``
    then has nothing to put back)."""

    system_prompt: str = ""
    instructions: str = ""
    user_instructions_file: str | None = None
    reasoning_effort: ReasoningEffort | None = None
    max_tokens: int | None = None
    parallel_tool_calls: bool | None = None
    temperature: float | None = None
    provider_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    timeouts: Timeouts = field(default_factory=Timeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    limits: Limits = field(default_factory=Limits)
    loop_detection: LoopDetectionConfig = field(default_factory=LoopDetectionConfig)
    permissions: PermissionConfig = field(default_factory=PermissionConfig)
    tool_output_limits: Mapping[str, int] = field(default_factory=dict)  # characters per tool
    tool_line_limits: Mapping[str, int] = field(default_factory=dict)  # lines per tool
    context_window: int | None = None  # tokens; None: from the catalog
    context_warning: float = 0.8  # share of the window that triggers a warning
    compaction: CompactionConfig = field(default_factory=CompactionConfig)
    tool_timeout: float = 0.0  # seconds a tool call may take (0: the tool's own limits)
    subagents: bool | None = None  # offer spawn_agent & co (None: the profile decides)
    max_subagent_depth: int = 1  # agents below this one may not spawn (1: no grandchildren)
    checkpoints: bool = True  # save files before tool calls change them (Session.rewind)
    # check a final answer's claims against what the input's calls did, and send the model
    # back once per check when one is left unchecked (None: the profile decides; small: on)
    check_answers: bool | None = None
