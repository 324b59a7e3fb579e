"""What the API shows of a run (``RunView``): its row, its place in the queue, and its pending
permission requests with what a person needs to answer them (the diff of an edit, the whole
command of a shell call)."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request

from taor.agent.events import PermissionRequest
from taor.server.schemas import PendingPermission, RunView
from taor.server.service import Service
from taor.server.store.runs import RunRecord
from taor.server.store.tokens import User


def service_of(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


async def record_of(service: Service, run_id: str, user: User) -> RunRecord:
    record = await service.runs.get(run_id, user)
    if record is None:
        raise HTTPException(404, f"no run {run_id}")
    return record


async def view_of(service: Service, run_id: str, user: User) -> RunView:
    record = await record_of(service, run_id, user)
    return as_view(service, record, await service.manager.pending_of(record.id))


def as_view(
    service: Service, record: RunRecord, asked: list[PermissionRequest] | None = None
) -> RunView:
    """The run as the API shows it; ``asked``: its open permission requests, when read
    already (wherever the run is carried out), else those this process knows."""
    fields: dict[str, Any] = {
        name: getattr(record, name)
        for name in RunView.model_fields
        if name not in ("queue_position", "pending", "metadata") and hasattr(record, name)
    }
    pending = [
        PendingPermission(
            request_id=p.request_id,
            tool=p.name,
            summary=p.summary,
            arguments=dict(p.arguments),
            command=command_of(p.arguments),
            diff=p.diff or None,
            reason=p.reason,
            rules=list(p.rules),
        )
        for p in (asked if asked is not None else service.manager.pending(record.id))
    ]
    return RunView(
        **fields,
        metadata=dict(record.metadata),
        queue_position=service.manager.position(record.id),
        pending=pending,
    )


def command_of(arguments: Any) -> str | None:
    command = arguments.get("command") if hasattr(arguments, "get") else None
    return command if isinstance(command, str) else None
