"""How the service makes a run's session: the run's own workspace folder (a git workspace
cloned into it first), the sandbox when bubblewrap is there, the run's limits and permission
rules, a person asked about every call the rules do not settle (through the API), and the
transcript kept under the service's data folder. A run that has a transcript is continued:
its session is resumed from it (``Session.resume``: a tool call that may have run is answered
``interrupted``, never run again; a permission wait is asked again).

The model is the run's (``provider:model``) or the service's default, reached at the service's
base URL when one is set; keys come from the service's own environment, never from a run."""

from __future__ import annotations

import shutil
from pathlib import Path

from taor.agent.config import Limits, PermissionConfig, SessionConfig
from taor.agent.session import Session
from taor.env.base import Environment
from taor.llm.connect import connect
from taor.llm.model import Model
from taor.server.carry import Compose
from taor.server.config import ServiceConfig
from taor.server.store.runs import RunRecord
from taor.server.workspaces import clone


def composer(config: ServiceConfig) -> Compose:
    async def compose(record: RunRecord) -> tuple[Session, Model]:
        transcript = transcript_of(config, record.id)
        workspace = Path(record.workspace)
        spec = record.options.get("workspace") or {}
        if spec.get("kind") == "git" and not transcript.exists():
            await clone(config, spec.get("url") or "", spec.get("ref"), workspace)
        model = connect(record.model, base_url=config.base_url or None)
        environment = environment_for(workspace, sandbox=config.sandbox)
        if transcript.exists():
            return Session.resume(
                transcript, model, environment=environment, config=_config(record)
            ), model
        session = Session.recorded(
            transcript,
            model,
            session_id=record.id,
            environment=environment,
            config=_config(record),
        )
        return session, model

    return compose


def transcript_of(config: ServiceConfig, run_id: str) -> Path:
    return config.data_dir / "runs" / f"{run_id}.jsonl"


def _config(record: RunRecord) -> SessionConfig:
    options = record.options
    limits = options.get("limits") or {}
    return SessionConfig(
        permissions=PermissionConfig(
            mode=options.get("permission_mode", "default"),
            allow=tuple(options.get("allow", ())),
            deny=tuple(options.get("deny", ())),
            interactive=True,
        ),
        limits=Limits(
            max_model_calls=limits.get("max_turns") or 0,
            max_cost=limits.get("max_budget_usd") or 0.0,
            max_wall_time=limits.get("max_wall") or 0.0,
        ),
    )


def environment_for(workspace: Path, *, sandbox: bool) -> Environment:
    if sandbox and shutil.which("bwrap"):
        from taor.env.sandbox import SandboxEnvironment

        return SandboxEnvironment(str(workspace))
    from taor.env.local import LocalEnvironment

    return LocalEnvironment(str(workspace))
