"""A session's start and release: what happens before its first input and after its last.

``open_session`` initializes the environment, starts the tool sources in order (a source may
spawn its server inside the environment), builds the system prompt (a profile's, unless the
config sets one) and returns the opening events: ``session_start``, a warning for each note
a reopened transcript left (what was skipped or repaired), and a ``tool_call_end`` for each
call the repair gave a result (its start was told before the crash; this ends it).
``release`` gives back what the session holds, in an order that loses nothing: the children
first (they use the environment), then the tool sources in reverse order (one that fails to
close is logged and the others are closed all the same), the processes still running, the
transcript store and checkpoint index, the scratch directory and a model the session
connected itself.
"""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Sequence

from taor.agent.config import SessionConfig
from taor.agent.context.prompt.cache import SystemPrompt
from taor.agent.events import Event, SessionStart, ToolCallEnd, WarningEvent
from taor.agent.profiles import Profile
from taor.agent.runtime import Runtime
from taor.agent.setup import prompt_settings
from taor.agent.subagents import SubagentManager
from taor.env.base import Environment
from taor.llm.model import Model
from taor.llm.types import ToolResultPart


async def open_session(
    rt: Runtime,
    profile: Profile | None,
    *,
    resumed: bool,
    notes: Sequence[str],
    settled: Sequence[ToolResultPart] = (),
) -> tuple[Event, ...]:
    await rt.environment.initialize()
    await rt.tools.start_sources()
    if profile is not None and not rt.config.system_prompt:
        rt.prompt = await build_prompt(rt.config, profile, rt.model, rt.environment)
    start = SessionStart(
        session_id=rt.session_id,
        provider=rt.model.provider,
        model=rt.model.model_id,
        resumed=resumed,
    )
    warnings = (WarningEvent(message=f"Transcript {n}", code="transcript") for n in notes)
    ended = (
        ToolCallEnd(call_id=r.call_id, name=r.name, output=r.text, is_error=r.is_error)
        for r in settled
    )
    return (start, *warnings, *ended)


async def build_prompt(
    config: SessionConfig, profile: Profile | None, model: Model, environment: Environment
) -> SystemPrompt:
    """The system prompt ``profile`` builds for ``model`` (the config's settings applied),
    from what ``environment`` holds today."""
    settings = prompt_settings(config, profile, model)
    return await SystemPrompt.create(environment, settings, today=datetime.date.today())


async def release(
    rt: Runtime, subagents: SubagentManager | None, *, started: bool, owns_model: bool
) -> None:
    if subagents is not None:
        await subagents.close_all()
    await rt.tools.close_sources()  # each failure is logged by the source set
    if started:
        await rt.environment.cleanup()
    if rt.store is not None:
        await rt.store.close()
    if rt.owns_checkpoints:
        rt.checkpoints.close()
    shutil.rmtree(rt.scratch_dir, ignore_errors=True)
    if owns_model:
        await rt.model.aclose()
