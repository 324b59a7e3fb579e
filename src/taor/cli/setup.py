"""Flags, config files and the environment into a ``Session``: the one place the command decides
what model, environment, permissions and limits a run gets."""

from __future__ import annotations

import argparse
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import cast

from taor.agent.config import Limits, PermissionConfig, PermissionMode, SessionConfig
from taor.agent.policy.hooks import Hooks
from taor.agent.record.store import load
from taor.agent.record.transcript import repair
from taor.agent.record.turns import Turn
from taor.agent.session import Session
from taor.agent.setup import SessionOptions
from taor.cli import sessions
from taor.cli.args import settings_flags
from taor.cli.command_hooks import hooks_from
from taor.cli.settings import Settings, resolve
from taor.cli.settings.trust import TrustList
from taor.env.base import Environment
from taor.errors import ConfigurationError
from taor.llm.connect import PROVIDERS, connect
from taor.llm.model import Model
from taor.llm.types import ReasoningEffort

# The model a key alone chooses, in this order of preference.
DEFAULT_MODELS = (
    ("anthropic", "claude-sonnet-4-5"),
    ("openai", "gpt-5.1"),
    ("gemini", "gemini-2.5-pro"),
)


def model_from(settings: Settings) -> Model:
    """The model ``default_model`` chooses; a clear error when there is none."""
    chosen = default_model(settings)
    if chosen is None:
        raise ConfigurationError(no_key_message())
    return connect(chosen[0], base_url=settings.base_url, env=settings.provider_env)


def default_model(settings: Settings) -> tuple[str, str] | None:
    """The model a run uses and why: the one the settings name, else the first provider with
    a key, else the local model when it is installed (so taor works offline with no key)."""
    env = settings.provider_env
    if settings.model:
        return settings.model, f"from {settings.sources.get('model', 'the settings')}"
    for provider, model_id in DEFAULT_MODELS:
        if any(env.get(var) for var in PROVIDERS[provider].key_vars):
            why = "the first provider with a key; --model or model = in the config picks another"
            return f"{provider}:{model_id}", why
    from taor.llm.local.known import resolve

    if resolve("", env).path.is_file():
        return "local", "no provider key, and the local model is installed"
    return None


def no_key_message() -> str:
    looked = ", ".join(var for p, _ in DEFAULT_MODELS for var in PROVIDERS[p].key_vars)
    return (
        f"no model to use: none of {looked} is set. Set one of them (for example "
        "`export ANTHROPIC_API_KEY=...`, or a line `ANTHROPIC_API_KEY=...` in the project's "
        '.env, or `[keys] anthropic = "..."` in ~/.config/taor/config.toml), or run a model on '
        "this machine (`taor models install`, then `--model local`), or point taor at an "
        "OpenAI-compatible server with "
        "`--model openai-compat:NAME --base-url http://localhost:8080/v1`."
    )


def workspace(args: argparse.Namespace) -> Path:
    root = Path(args.cwd or os.getcwd()).resolve()
    if not root.is_dir():
        raise ConfigurationError(f"--cwd {args.cwd!r} is not a directory")
    return root


def settings_from(args: argparse.Namespace, environ: Mapping[str, str]) -> Settings:
    """The run's settings; the project's files act for the person only in a folder they
    trust (``taor trust``), or with ``--trust`` for this run."""
    cwd = workspace(args)
    root = sessions.project_root(cwd)
    config_dir = user_config()
    return resolve(
        cwd=cwd,
        root=root,
        config_dir=config_dir,
        environ=environ,
        flags=settings_flags(args),
        trusted=bool(getattr(args, "trust", False)) or TrustList(config_dir).trusts(root),
    )


def user_config() -> Path:
    """The user's taor config directory (``$XDG_CONFIG_HOME/taor`` on Linux)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("taor"))


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


def earlier_session(args: argparse.Namespace) -> Path | None:
    """The transcript ``--continue`` or ``--resume`` names (None for a new session)."""
    if not (args.continue_ or args.resume):
        return None
    folder = sessions.sessions_dir(workspace(args))
    return sessions.newest(folder) if args.continue_ else sessions.by_id([folder], args.resume)


def session_from(
    args: argparse.Namespace,
    settings: Settings,
    *,
    model: Model | None = None,
    interactive: bool = False,
) -> tuple[Session, Model]:
    """The run's session, recorded on disk (new, continued or forked), and its model (which
    the caller closes after the session; ``model``: that one instead of the settings').
    ``interactive``: a person answers permission requests (so does a stream-json host); else
    the headless default does."""
    environment = environment_from(workspace(args), settings)
    earlier = earlier_session(args)
    model = model or model_from(settings)
    asks = interactive or settings.input_format == "stream-json"
    config = config_from(settings, interactive=asks)
    hooks = hooks_from(settings.hooks, workspace(args))
    session = open_session(environment, model, config, earlier=earlier, fork=args.fork, hooks=hooks)
    return session, model


def open_session(
    environment: Environment,
    model: Model,
    config: SessionConfig,
    *,
    earlier: Path | None = None,
    fork: bool = False,
    hooks: Hooks | None = None,
) -> Session:
    """A session recorded in this project's folder: ``earlier`` continued (or, with ``fork``,
    copied into a new one), else a new one."""
    options: SessionOptions = {"environment": environment, "config": config, "hooks": hooks}
    if earlier is not None and not fork:
        return Session.resume(earlier, model, **options)
    folder = sessions.sessions_dir(Path(environment.working_directory()))
    session_id = uuid.uuid4().hex
    history = _history(earlier) if earlier is not None else ()
    path = sessions.new_path(folder, session_id)
    return Session.recorded(path, model, session_id=session_id, history=history, **options)


def _history(path: Path) -> list[Turn]:
    """The turns of a session to fork, with any call a crash left unanswered answered."""
    return repair(load(path).turns, "interrupted")
