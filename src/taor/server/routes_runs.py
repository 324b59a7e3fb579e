"""The runs API: create, list, read, command, cancel and delete runs, and follow their events.

A user sees and commands only their own runs (an admin every one); another user's run is 404,
as an unknown one is. A command that does not apply to the run in its state is 409 with the
state. Events are SSE: one per taor event, its codec JSON as data and its number as id, resumed
after ``Last-Event-ID``.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request, Response
from sse_starlette import EventSourceResponse, ServerSentEvent

from taor._private import private_dir
from taor.agent.commands import Answer, Command, FollowUp, Interrupt, Steer
from taor.errors import SessionError
from taor.server.auth import CurrentUser
from taor.server.runner import NotLive
from taor.server.schemas import (
    PendingPermission,
    PermissionAnswer,
    RunCreate,
    RunPage,
    RunView,
    Text,
)
from taor.server.service import Service
from taor.server.store.runs import ENDED, RunRecord
from taor.server.store.tokens import User

router = APIRouter(prefix="/runs", tags=["runs"])
HEARTBEAT = 15.0  # seconds between keep-alive comments on an idle event stream


def _service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


@router.post("", status_code=201, response_model=RunView)
async def create_run(body: RunCreate, request: Request, user: CurrentUser) -> RunView:
    """Start a run: it waits in the queue until a worker takes it."""
    service = _service(request)
    if body.workspace.kind != "empty":
        raise HTTPException(422, f"workspace kind {body.workspace.kind!r} is not offered yet")
    record = await service.runs.create(
        user,
        prompt=body.prompt,
        model=body.model or service.config.default_model,
        workspace="",
        options=body.model_dump(include={"limits", "permission_mode", "allow", "deny"}),
        metadata=body.metadata,
    )
    workspace = private_dir(service.config.data_dir / "workspaces" / record.id)
    await service.runs.change(record.id, workspace=str(workspace))
    await service.manager.submit(record.id)
    return await _view(service, record.id, user)


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
    service = _service(request)
    records = await service.runs.page(user, status=status, owner=owner, after=after, limit=limit)
    views = [_as_view(service, record) for record in records]
    return RunPage(runs=views, next=records[-1].id if len(records) == limit else None)


@router.get("/{run_id}", response_model=RunView)
async def get_run(run_id: str, request: Request, user: CurrentUser) -> RunView:
    return await _view(_service(request), run_id, user)


@router.post("/{run_id}/steer", status_code=202)
async def steer(run_id: str, body: Text, request: Request, user: CurrentUser) -> dict[str, str]:
    """A message for the model after its current tool round."""
    return await _command(request, run_id, user, Steer(text=body.text))


@router.post("/{run_id}/follow_up", status_code=202)
async def follow_up(run_id: str, body: Text, request: Request, user: CurrentUser) -> dict[str, str]:
    """An input to run once the current one ends."""
    return await _command(request, run_id, user, FollowUp(text=body.text))


@router.post("/{run_id}/interrupt", status_code=202)
async def interrupt(run_id: str, request: Request, user: CurrentUser) -> dict[str, str]:
    """Stop what the run is doing now; the run stays open for a follow-up."""
    return await _command(request, run_id, user, Interrupt())


@router.post("/{run_id}/permissions/{request_id}", status_code=202)
async def answer(
    run_id: str, request_id: str, body: PermissionAnswer, request: Request, user: CurrentUser
) -> dict[str, str]:
    """Answer one of the run's permission requests."""
    service = _service(request)
    await _record(service, run_id, user)
    if request_id not in {p.request_id for p in service.manager.pending(run_id)}:
        raise HTTPException(404, f"run {run_id} has no pending permission request {request_id}")
    command = Answer(request_id=request_id, decision=body.decision, message=body.message)
    return await _command(request, run_id, user, command)


@router.post("/{run_id}/cancel", status_code=202)
async def cancel(run_id: str, request: Request, user: CurrentUser) -> dict[str, str]:
    """Take a queued run out of the queue, or stop a running one for good."""
    service = _service(request)
    record = await _record(service, run_id, user)
    if not await service.manager.cancel(run_id):
        raise HTTPException(409, f"run {run_id} is {record.status}: there is nothing to cancel")
    return {"status": "cancelling"}


@router.delete("/{run_id}", status_code=204)
async def delete_run(run_id: str, request: Request, user: CurrentUser) -> Response:
    """Delete a run that has ended, with its events and workspace."""
    service = _service(request)
    record = await _record(service, run_id, user)
    if record.status not in ENDED:
        raise HTTPException(409, f"run {run_id} is {record.status}: cancel it first")
    await service.runs.delete(run_id)
    if record.workspace:
        shutil.rmtree(record.workspace, ignore_errors=True)
    (service.config.data_dir / "runs" / f"{run_id}.jsonl").unlink(missing_ok=True)
    return Response(status_code=204)


@router.get("/{run_id}/events")
async def events(
    run_id: str,
    request: Request,
    user: CurrentUser,
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventSourceResponse:
    """The run's events as SSE, from after ``Last-Event-ID`` (from the start without it): one
    per event, ``id`` its number, ``event`` its kind, ``data`` its JSON. The stream ends when
    the run's last event is sent, or early (a client that fell behind): come back with the
    last id seen."""
    service = _service(request)
    await _record(service, run_id, user)
    after = int(last_event_id) if last_event_id and last_event_id.isdigit() else 0
    return EventSourceResponse(
        _sse(service, run_id, after), ping=HEARTBEAT, headers={"X-Accel-Buffering": "no"}
    )


async def _sse(service: Service, run_id: str, after: int) -> AsyncIterator[ServerSentEvent]:
    async for event in service.feeds.follow(run_id, after):
        if event.seq < 0:  # dropped: too far behind; the client comes back from its last id
            return
        yield ServerSentEvent(id=str(event.seq), event=event.kind, data=event.data)


async def _command(request: Request, run_id: str, user: User, command: Command) -> dict[str, str]:
    service = _service(request)
    record = await _record(service, run_id, user)
    try:
        await service.manager.command(run_id, command)
    except NotLive:
        raise HTTPException(
            409, f"run {run_id} is {record.status}: {command.kind} needs a running run"
        ) from None
    except SessionError as error:
        raise HTTPException(409, str(error)) from None
    return {"status": "accepted"}


async def _record(service: Service, run_id: str, user: User) -> RunRecord:
    record = await service.runs.get(run_id, user)
    if record is None:
        raise HTTPException(404, f"no run {run_id}")
    return record


async def _view(service: Service, run_id: str, user: User) -> RunView:
    return _as_view(service, await _record(service, run_id, user))


def _as_view(service: Service, record: RunRecord) -> RunView:
    fields: dict[str, Any] = {
        name: getattr(record, name)
        for name in RunView.model_fields
        if name not in ("queue_position", "pending", "metadata") and hasattr(record, name)
    }
    pending = [
        PendingPermission(
            request_id=p.request_id, tool=p.name, summary=p.summary, diff=p.diff or None
        )
        for p in service.manager.pending(record.id)
    ]
    return RunView(
        **fields,
        metadata=dict(record.metadata),
        queue_position=service.manager.position(record.id),
        pending=pending,
    )
