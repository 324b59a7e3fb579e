"""How the service makes a run's session: the run's own workspace folder (a git workspace
cloned into it first), the sandbox when bubblewrap is there, the run's limits and permission
rules, a person asked about every call the rules do not settle (through the API), and the
transcript kept under the service's data folder. A run that has a transcript is continued:
its session is resumed from it (``Session.resume``: a tool call that may have run is answered
``interrupted``, never run again; a permission wait is asked again).

The model is the run's (``provider:model``) or the service's default, reached at the service's
base URL when one is set; keys come from the service's own environment, never from a run.

A build run (``kind: build``) gets a build's session (``taor.build``: the persona, the brief,
interview and plan in its prompt, the tool-call cap, the repetition rule, no tool while the
report is written) behind a ``BuildSession``, which the worker carries out as a session.

``write_ahead`` (a worker's: the run's transcript copied into the database) is awaited before
each tool call runs, so the call is on record wherever the run is continued, even when its
worker dies the moment the call starts."""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from taor.agent.config import Limits, PermissionConfig, SessionConfig
from taor.agent.policy.hooks import Hooks, ToolCallInfo
from taor.agent.profiles import profile_id_for
from taor.agent.session import Session
from taor.env.base import Environment
from taor.llm.connect import connect
from taor.llm.model import Model
from taor.server.carry import Compose
from taor.server.config import ServiceConfig
from taor.server.store.runs import RunRecord
from taor.server.workspaces import clone

if TYPE_CHECKING:
    from taor.server.schemas import RunCreate


WriteAhead = Callable[[str], Awaitable[None]]


def composer(config: ServiceConfig, *, write_ahead: WriteAhead | None = None) -> Compose:
    async def compose(record: RunRecord) -> tuple[Session, Model]:
        transcript = transcript_of(config, record.id)
        hooks = _hooks(record.id, write_ahead)
        workspace = Path(record.workspace)
        spec = record.options.get("workspace") or {}
        if spec.get("kind") == "git" and not transcript.exists():
            await clone(config, spec.get("url") or "", spec.get("ref"), workspace)
        model = connect(record.model, base_url=config.base_url or None)
        environment = environment_for(workspace, sandbox=config.sandbox)
        if record.options.get("kind") == "build":
            return _build_session(record, transcript, model, environment, hooks), model
        options: dict[str, Any] = {"environment": environment, "config": _config(record),
                                   "hooks": hooks}  # fmt: skip
        if transcript.exists():
            return Session.resume(transcript, model, **options), model
        return Session.recorded(transcript, model, session_id=record.id, **options), model

    return compose


def _hooks(run_id: str, write_ahead: WriteAhead | None) -> Hooks:
    if write_ahead is None:
        return Hooks()

    async def on_record(call: ToolCallInfo) -> None:
        await write_ahead(run_id)

    return Hooks(before_tool=(on_record,))


def _build_session(
    record: RunRecord, transcript: Path, model: Model, environment: Environment, hooks: Hooks
) -> Session:
    """A build run's session, new or resumed, behind the ``BuildSession`` the worker drives
    (it stands in for a ``Session``: the worker uses only what both have)."""
    from taor.build import BuildInputs, BuildRun, ReportGuard, build_config, build_hooks
    from taor.server.build_session import BuildSession

    spec: dict[str, Any] = record.options.get("build") or {}
    inputs = BuildInputs(brief=spec["brief"], qna=spec["qna"], plan=spec["plan"])
    cap = spec.get("max_tool_calls") or 150
    config = build_config(
        _config(record), inputs, max_tool_calls=cap, compact=profile_id_for(model) == "small"
    )
    guard = ReportGuard(inputs)
    options: dict[str, Any] = {"environment": environment, "config": config,
                               "hooks": build_hooks(guard, hooks)}  # fmt: skip
    if transcript.exists():
        session = Session.resume(transcript, model, **options)
    else:
        session = Session.recorded(transcript, model, session_id=record.id, **options)
    workspace = Path(record.workspace)
    title = f"Build report: {record.prompt}"
    run = BuildRun(session, workspace=workspace, guard=guard, title=title, inputs=inputs)
    return cast("Session", BuildSession(session, run))


def build_title(body: RunCreate) -> str:
    """A build run's name: the first line of its brief."""
    brief = body.build.brief if body.build is not None else ""
    first = next((line.strip(" #*") for line in brief.splitlines() if line.strip()), "")
    return first[:80] or "build"


def build_problem(body: RunCreate, model: str) -> str | None:
    """Why a build run's inputs cannot be built with ``model`` (before any model call)."""
    if body.build is None:
        return None
    from taor.build.inputs import BuildInputs, check, check_budget
    from taor.errors import ConfigurationError
    from taor.llm.catalog import Catalog

    inputs = BuildInputs(brief=body.build.brief, qna=body.build.qna, plan=body.build.plan)
    provider, _, model_id = model.partition(":")
    try:
        check(inputs)
        window = Catalog.default().lookup(provider, model_id or provider).context_window
        check_budget(inputs, window, model)
    except ConfigurationError as error:
        return f"build: {error}"
    return None


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
