"""Settings into a ``Session``: the one place a host decides what environment, permissions,
limits and hooks a run gets, and where its transcript is recorded (new, continued or forked).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from taor.agent.config import Limits, PermissionConfig, PermissionMode, SessionConfig
from taor.agent.policy.hooks import Hooks
from taor.agent.profiles import ProfileId, profile_by_id
from taor.agent.record.store import load
from taor.agent.record.transcript import repair
from taor.agent.record.turns import Turn
from taor.agent.session import Session
from taor.agent.setup import ProfileChoice, SessionOptions
from taor.env.base import Environment
from taor.errors import ConfigurationError
from taor.host import sessions
from taor.host.compose.hooks import hooks_from
from taor.host.compose.model import model_from
from taor.host.settings import Settings
from taor.llm.model import Model
from taor.llm.types import ReasoningEffort

if TYPE_CHECKING:
    from taor.tools.mcp.config import McpServerConfig


def environment_from(root: Path, settings: Settings) -> Environment:
    if settings.sandbox:
        from taor.env.sandbox import SandboxEnvironment

        return SandboxEnvironment(str(root))
    from taor.env.local import LocalEnvironment

    return LocalEnvironment(str(root))


def config_from(settings: Settings, *, interactive: bool = False) -> SessionConfig:
    """``interactive``: a host answers permission requests (else the headless default does)."""
    system_prompt = ""
    if settings.system_prompt_file:
        try:
            system_prompt = Path(settings.system_prompt_file).read_text(
                encoding="utf-8", errors="replace"
            )
        except OSError as error:
            raise ConfigurationError(
                f"system_prompt_file {settings.system_prompt_file!r} "
                f"({settings.sources['system_prompt_file']}): {error.strerror}"
            ) from None
    permissions = PermissionConfig(
        mode=cast("PermissionMode", settings.permission_mode),
        allow=settings.allow,
        deny=settings.deny,
        interactive=interactive,
    )
    limits = Limits(
        max_model_calls=settings.max_turns or 0,
        max_cost=settings.max_budget_usd or 0.0,
        max_wall_time=settings.max_wall or 0.0,
    )
    return SessionConfig(
        system_prompt=system_prompt,
        instructions=settings.append_system_prompt or "",
        user_instructions_file=settings.instructions_file,
        reasoning_effort=cast("ReasoningEffort | None", settings.effort),
        permissions=permissions,
        limits=limits,
        tool_output_limits=settings.tool_output_limits,
        tool_line_limits=settings.tool_line_limits,
        temperature=settings.temperature,
        max_tokens=settings.max_output_tokens,
    )


def earlier_session(cwd: Path, *, latest: bool = False, resume: str | None = None) -> Path | None:
    """The transcript to go on from: this project's newest (``latest``), or the one whose id
    starts with ``resume``; None for a new session."""
    if not (latest or resume):
        return None
    folder = sessions.sessions_dir(cwd)
    return sessions.newest(folder) if latest else sessions.by_id([folder], resume or "")


def session_for(
    cwd: Path,
    settings: Settings,
    *,
    latest: bool = False,
    resume: str | None = None,
    fork: bool = False,
    model: Model | None = None,
    interactive: bool = False,
    mcp_servers: Sequence[McpServerConfig] = (),
) -> tuple[Session, Model]:
    """The session of a run in ``cwd``, recorded on disk (new, or ``earlier_session``'s
    continued or, with ``fork``, copied), and its model (which the caller closes after the
    session; ``model``: that one instead of the settings'). ``interactive``: a person answers
    permission requests (so does a stream-json host); else the headless default does."""
    environment = environment_from(cwd, settings)
    earlier = earlier_session(cwd, latest=latest, resume=resume)
    model = model or model_from(settings)
    asks = interactive or settings.input_format == "stream-json"
    config = config_from(settings, interactive=asks)
    hooks = hooks_from(settings.hooks, cwd)
    session = open_session(
        environment,
        model,
        config,
        earlier=earlier,
        fork=fork,
        hooks=hooks,
        mcp_servers=mcp_servers,
        profile=profile_from(settings),
    )
    return session, model


def profile_from(settings: Settings) -> ProfileChoice:
    """The profile ``profile =`` (``--profile``) names; ``"auto"``: the session's choice by the
    model."""
    if settings.profile == "auto":
        return "auto"
    return profile_by_id(cast("ProfileId", settings.profile))


def open_session(
    environment: Environment,
    model: Model,
    config: SessionConfig,
    *,
    earlier: Path | None = None,
    fork: bool = False,
    hooks: Hooks | None = None,
    mcp_servers: Sequence[McpServerConfig] = (),
    profile: ProfileChoice = "auto",
) -> Session:
    """A session recorded in this project's folder: ``earlier`` continued (or, with ``fork``,
    copied into a new one), else a new one."""
    options: SessionOptions = {
        "environment": environment,
        "config": config,
        "hooks": hooks,
        "profile": profile,
    }
    if mcp_servers:
        options["mcp_servers"] = mcp_servers
    if earlier is not None and not fork:
        return Session.resume(earlier, model, **options)
    folder = sessions.sessions_dir(Path(environment.working_directory()))
    session_id = uuid.uuid4().hex
    history = _history(earlier) if earlier is not None else ()
    path = sessions.new_path(folder, session_id)
    return Session.recorded(path, model, session_id=session_id, history=history, **options)


def _history(path: Path) -> list[Turn]:
    """The turns of a session to fork, with any call a crash left unanswered answered."""
    return repair(load(path).turns, "stopped")
