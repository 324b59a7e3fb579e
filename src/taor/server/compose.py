"""How the service makes a run's session: the run's own workspace folder, the sandbox when
bubblewrap is there, the run's limits and permission rules, a person asked about every call
the rules do not settle (through the API), and the transcript kept under the service's data
folder, so a run can be read and continued after the service stops.

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
from taor.server.config import ServiceConfig
from taor.server.runner import Compose
from taor.server.store.runs import RunRecord


def composer(config: ServiceConfig) -> Compose:
    async def compose(record: RunRecord) -> tuple[Session, Model]:
        model = connect(record.model, base_url=config.base_url or None)
        options = record.options
        limits = options.get("limits") or {}
        session_config = SessionConfig(
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
        transcript = config.data_dir / "runs" / f"{record.id}.jsonl"
        session = Session.recorded(
            transcript,
            model,
            session_id=record.id,
            environment=environment_for(Path(record.workspace), sandbox=config.sandbox),
            config=session_config,
        )
        return session, model

    return compose


def environment_for(workspace: Path, *, sandbox: bool) -> Environment:
    if sandbox and shutil.which("bwrap"):
        from taor.env.sandbox import SandboxEnvironment

        return SandboxEnvironment(str(workspace))
    from taor.env.local import LocalEnvironment

    return LocalEnvironment(str(workspace))
