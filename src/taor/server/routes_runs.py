"""The runs API: create, list, read, command, cancel and delete runs, and follow their events.

A user sees and commands only their own runs (an admin every one); another user's run is 404,
as an unknown one is. A command that does not apply to the run in its state is 409 with the
state; a run beyond the user's quota or the queue's size is 429 with ``Retry-After``. An ended
run is continued (``continue``, or a ``follow_up``) from its transcript. Events are SSE
(``routes_events``).
"""

from __future__ import annotations

import asyncio
import shutil
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, Response

from taor.agent.commands import Answer, Command, FollowUp, Interrupt, Steer
from taor.errors import ConfigurationError, SessionError
from taor.server.admission import admit
from taor.server.auth import CurrentUser
from taor.server.compose import build_problem, build_title, transcript_of
from taor.server.routes_events import router as events_router
from taor.server.runner import NotLive
from taor.server.schemas import (
    OptionalText,
    PermissionAnswer,
    RunCreate,
    RunPage,
    RunView,
    Text,
)
from taor.server.service import Service
from taor.server.store.runs import ENDED, RunRecord
from taor.server.store.tokens import User
from taor.server.views import as_view, record_of, service_of, view_of
from taor.server.workspaces import check, prepare

router = APIRouter(prefix="/runs", tags=["runs"])
router.include_router(events_router)
CONTINUABLE = frozenset({"finished", "failed", "interrupted"})


@router.post("", status_code=201, response_model=RunView)
async def create_run(body: RunCreate, request: Request, user: CurrentUser) -> RunView:
    """Start a run: it waits in the queue until a worker takes it. 429 (with ``Retry-After``)
    when you have as many live runs as a user may, or the queue is full."""
    service = service_of(request)
    spec = body.workspace.model_dump()
    try:
        check(service.config, spec)
    except ConfigurationError as error:
        raise HTTPException(422, f"workspace: {error}") from None
    if problem := build_problem(body, body.model or service.config.default_model):
        raise HTTPException(422, problem)
    async with service.manager.admission:
        await admit(service.config, service.runs, user)
        record = await service.runs.create(
            user,
            prompt=body.prompt or build_title(body),
            model=body.model or service.config.default_model,
            workspace="",
            options=body.model_dump(
                include={"workspace", "limits", "permission_mode", "allow", "deny", "kind", "build"}
            ),
            metadata=body.metadata,
        )
    try:  # a template is copied in: off the event loop
        workspace = await asyncio.to_thread(prepare, service.config, record.id, spec)
    except (ConfigurationError, OSError) as error:
        await service.runs.delete(record.id)
        raise HTTPException(422, f"workspace: {error}") from None
    await service.runs.change(record.id, workspace=str(workspace))
    await service.manager.submit(record.id)
    return await view_of(service, record.id, user)


@router.get("", response_model=RunPage)
async def list_runs(
    request: Request,
    user: CurrentUser,
    status: Annotated[str | None, Query(max_length=30)] = None,
    owner: Annotated[str | None, Query(alias="user", max_length=100)] = None,
    after: Annotated[str | None, Query(max_length=40)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> RunPage:
    """Runs you may see, newest first; pass ``next`` as ``after`` for the next page."""
    service = service_of(request)
    records = await service.runs.page(user, status=status, owner=owner, after=after, limit=limit)
    views = [as_view(service, record) for record in records]
    return RunPage(runs=views, next=records[-1].id if len(records) == limit else None)


@router.get("/{run_id}", response_model=RunView)
async def get_run(run_id: str, request: Request, user: CurrentUser) -> RunView:
    return await view_of(service_of(request), run_id, user)


@router.post("/{run_id}/steer", status_code=202)
async def steer(run_id: str, body: Text, request: Request, user: CurrentUser) -> dict[str, str]:
    """A message for the model after its current tool round."""
    return await _command(request, run_id, user, Steer(text=body.text))


@router.post("/{run_id}/follow_up", status_code=202)
async def follow_up(run_id: str, body: Text, request: Request, user: CurrentUser) -> dict[str, str]:
    """An input to run once the current one ends; for a run that has ended (``finished``,
    ``failed``, ``interrupted``), the run is continued with it."""
    service = service_of(request)
    record = await record_of(service, run_id, user)
    if record.status in CONTINUABLE:
        return await _continue(service, record, user, body.text)
    return await _command(request, run_id, user, FollowUp(text=body.text))


@router.post("/{run_id}/continue", status_code=202)
async def continue_run(
    run_id: str, request: Request, user: CurrentUser, body: OptionalText | None = None
) -> dict[str, str]:
    """Queue an ended run (``finished``, ``failed``, ``interrupted``) again: its session is
    resumed from its transcript (a tool call that may have run is answered ``interrupted``,
    never run again), given ``text`` when there is one; its events go on after the last."""
    service = service_of(request)
    record = await record_of(service, run_id, user)
    return await _continue(service, record, user, body.text if body else None)


async def _continue(
    service: Service, record: RunRecord, user: User, text: str | None
) -> dict[str, str]:
    async with service.manager.admission:  # the state read again here: one continue at a time
        record = await record_of(service, record.id, user)
        if record.status not in CONTINUABLE:
            raise HTTPException(
                409,
                f"run {record.id} is {record.status}: only a finished, failed or interrupted "
                "run can be continued",
            )
        await admit(service.config, service.runs, user)
        options = {**record.options, "next_input": text or ""}
        await service.runs.change(
            record.id,
            status="queued",
            options=options,
            finished_at=None,
            error=None,
            stop_reason=None,
        )
    await service.manager.submit(record.id)
    return {"status": "queued"}


@router.post("/{run_id}/interrupt", status_code=202)
async def interrupt(run_id: str, request: Request, user: CurrentUser) -> dict[str, str]:
    """Stop what the run is doing now; the run ends ``interrupted`` and can be continued."""
    return await _command(request, run_id, user, Interrupt())


@router.post("/{run_id}/permissions/{request_id}", status_code=202)
async def answer(
    run_id: str, request_id: str, body: PermissionAnswer, request: Request, user: CurrentUser
) -> dict[str, str]:
    """Answer one of the run's permission requests."""
    service = service_of(request)
    record = await record_of(service, run_id, user)
    pending = {p.request_id for p in await service.manager.pending_of(run_id)}
    if record.status != "awaiting_permission" and request_id not in pending:
        raise HTTPException(409, f"run {run_id} is {record.status}: it awaits no permission answer")
    if request_id not in pending:  # (one asked again by the worker that takes a run over)
        raise HTTPException(404, f"run {run_id} has no pending permission request {request_id}")
    command = Answer(request_id=request_id, decision=body.decision, message=body.message)
    return await _command(request, run_id, user, command)


@router.post("/{run_id}/cancel", status_code=202)
async def cancel(run_id: str, request: Request, user: CurrentUser) -> dict[str, str]:
    """Take a queued run out of the queue, or stop a running one for good."""
    service = service_of(request)
    record = await record_of(service, run_id, user)
    if not await service.manager.cancel(run_id):
        state = service.manager.state_of(run_id, record.status)
        raise HTTPException(409, f"run {run_id} is {state}: there is nothing to cancel")
    return {"status": "cancelling"}


@router.delete("/{run_id}", status_code=204)
async def delete_run(run_id: str, request: Request, user: CurrentUser) -> Response:
    """Delete a run that has ended, with its events and workspace."""
    service = service_of(request)
    record = await record_of(service, run_id, user)
    if record.status not in ENDED or service.manager.is_live(run_id):
        raise HTTPException(409, f"run {run_id} is {record.status}: cancel it first")
    await service.runs.delete(run_id)
    if record.workspace and (record.options.get("workspace") or {}).get("kind") != "host":
        shutil.rmtree(record.workspace, ignore_errors=True)  # a host folder is never removed
    transcript_of(service.config, run_id).unlink(missing_ok=True)
    service.files.remove(run_id)
    return Response(status_code=204)


async def _command(request: Request, run_id: str, user: User, command: Command) -> dict[str, str]:
    service = service_of(request)
    record = await record_of(service, run_id, user)
    try:
        await service.manager.command(run_id, command)
    except NotLive:
        state = service.manager.state_of(run_id, record.status)
        raise HTTPException(
            409, f"run {run_id} is {state}: {command.kind} needs a running run"
        ) from None
    except SessionError as error:
        raise HTTPException(409, str(error)) from None
    return {"status": "accepted"}
