"""Flags and the environment variables into a ``Session``: the one place the command decides
what model, environment, permissions and limits a run gets."""

from __future__ import annotations

import argparse
import os
import uuid
from collections.abc import Mapping
from pathlib import Path

from taor.agent.config import Limits, PermissionConfig, SessionConfig
from taor.agent.record.store import load
from taor.agent.record.transcript import repair
from taor.agent.record.turns import Turn
from taor.agent.session import Session, SessionOptions
from taor.cli import sessions
from taor.env.base import Environment
from taor.errors import ConfigurationError
from taor.llm.connect import PROVIDERS, connect
from taor.llm.model import Model

# The model a key alone chooses, in this order of preference.
DEFAULT_MODELS = (
    ("anthropic", "claude-sonnet-4-5"),
    ("openai", "gpt-5.1"),
    ("gemini", "gemini-2.5-pro"),
)


def model_from(args: argparse.Namespace, env: Mapping[str, str]) -> Model:
    """The ``--model`` given, else the first provider with a key; a clear error otherwise."""
    if args.model:
        return connect(args.model, base_url=args.base_url, env=env)
    for provider, model_id in DEFAULT_MODELS:
        if any(env.get(var) for var in PROVIDERS[provider].key_vars):
            return connect(f"{provider}:{model_id}", base_url=args.base_url, env=env)
    raise ConfigurationError(no_key_message())


def no_key_message() -> str:
    looked = ", ".join(var for p, _ in DEFAULT_MODELS for var in PROVIDERS[p].key_vars)
    return (
        f"no model to use: none of {looked} is set. Set one of them (for example "
        "`export ANTHROPIC_API_KEY=...`), or point taor at a local OpenAI-compatible server "
        "with `--model openai-compat:NAME --base-url http://localhost:8080/v1`."
    )


def environment_from(args: argparse.Namespace) -> Environment:
    root = Path(args.cwd or os.getcwd()).resolve()
    if not root.is_dir():
        raise ConfigurationError(f"--cwd {args.cwd!r} is not a directory")
    if args.sandbox:
        from taor.env.sandbox import SandboxEnvironment

        return SandboxEnvironment(str(root))
    from taor.env.local import LocalEnvironment

    return LocalEnvironment(str(root))


def config_from(args: argparse.Namespace) -> SessionConfig:
    instructions = args.append_system_prompt or ""
    system_prompt = ""
    if args.system_prompt_file:
        try:
            system_prompt = Path(args.system_prompt_file).read_text()
        except OSError as error:
            raise ConfigurationError(
                f"--system-prompt-file {args.system_prompt_file!r}: {error.strerror}"
            ) from None
    permissions = PermissionConfig(
        mode=args.permission_mode or "default",
        allow=tuple(args.allow),
        deny=tuple(args.deny),
        interactive=False,  # headless: what would be asked is answered by `headless`
    )
    limits = Limits(
        max_model_calls=args.max_turns or 0,
        max_cost=args.max_budget_usd or 0.0,
        max_wall_time=args.max_wall or 0.0,
    )
    return SessionConfig(
        system_prompt=system_prompt,
        instructions=instructions,
        reasoning_effort=args.effort,
        permissions=permissions,
        limits=limits,
    )


def session_from(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[Session, Model]:
    """The run's session, recorded on disk (new, continued or forked), and its model (which
    the caller closes after the session)."""
    environment = environment_from(args)
    folder = sessions.sessions_dir(Path(environment.working_directory()))
    earlier = None
    if args.continue_ or args.resume:
        earlier = sessions.newest(folder) if args.continue_ else sessions.by_id(folder, args.resume)
    model = model_from(args, env)
    options: SessionOptions = {"environment": environment, "config": config_from(args)}
    if earlier is not None and not args.fork:
        return Session.resume(earlier, model, **options), model
    session_id = uuid.uuid4().hex
    history = _history(earlier) if earlier is not None else ()
    path = sessions.new_path(folder, session_id)
    return Session.recorded(path, model, session_id=session_id, history=history, **options), model


def _history(path: Path) -> list[Turn]:
    """The turns of a session to fork, with any call a crash left unanswered answered."""
    return repair(load(path).turns, "interrupted")
