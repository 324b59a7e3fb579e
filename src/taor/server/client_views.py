"""What ``taor.server.Client`` reads back from the service: a run (``Run``), a page of runs
(``RunPage``), a pending permission request (``Pending``) and the notice that a run moved to
another worker (``RunMoved``), as frozen records; and the one exception an answer that is not
a success becomes (``service_error``).

Records are read leniently: a field the service adds later is kept in ``raw`` and ignored
otherwise, so an older client keeps working against a newer service.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import field
from typing import Any, Literal

from taor._records import frozen
from taor.errors import (
    ServiceAuthError,
    ServiceBusyError,
    ServiceConflictError,
    ServiceError,
    ServiceNotFoundError,
)

ENDED = frozenset({"finished", "failed", "interrupted", "cancelled"})


@frozen
class Pending:
    """A permission request the run waits on: answer it with ``Client.answer``."""

    request_id: str
    tool: str
    summary: str
    diff: str | None = None


@frozen
class Run:
    """A run as the service shows it (``GET /runs/{id}``)."""

    id: str
    user: str
    status: str  # queued, running, awaiting_permission, finished, failed, interrupted, cancelled
    prompt: str
    model: str
    workspace: str
    created_at: datetime.datetime
    started_at: datetime.datetime | None = None
    finished_at: datetime.datetime | None = None
    usage: Mapping[str, Any] | None = None
    cost: float | None = None
    stop_reason: str | None = None
    error: str | None = None
    queue_position: int | None = None  # while queued: 1 is the next run a worker takes
    pending: tuple[Pending, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)  # every field as sent

    @property
    def ended(self) -> bool:
        """Whether the run has stopped (finished, failed, interrupted or cancelled)."""
        return self.status in ENDED

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Run:
        return cls(
            id=data["id"],
            user=data["user"],
            status=data["status"],
            prompt=data["prompt"],
            model=data["model"],
            workspace=data.get("workspace", ""),
            created_at=_time(data["created_at"]) or datetime.datetime.min,
            started_at=_time(data.get("started_at")),
            finished_at=_time(data.get("finished_at")),
            usage=data.get("usage"),
            cost=data.get("cost"),
            stop_reason=data.get("stop_reason"),
            error=data.get("error"),
            queue_position=data.get("queue_position"),
            pending=tuple(
                Pending(
                    request_id=p["request_id"],
                    tool=p["tool"],
                    summary=p.get("summary", ""),
                    diff=p.get("diff"),
                )
                for p in data.get("pending") or ()
            ),
            metadata=data.get("metadata") or {},
            raw=data,
        )


@frozen
class RunMoved:
    """The run was taken over by another worker (``worker``) after its event numbered
    ``after``: its worker died or was stopped. Not an event of the run (it has no number);
    ``Client.events`` hands it to its ``on_moved``."""

    worker: str
    after: int
    kind: Literal["moved"] = "moved"


@frozen
class RunPage:
    """A page of runs, newest first; ``next`` is the ``after`` of the next page (None: last)."""

    runs: tuple[Run, ...]
    next: str | None = None


def _time(value: str | None) -> datetime.datetime | None:
    return datetime.datetime.fromisoformat(value) if value else None


_BY_STATUS: Mapping[int, type[ServiceError]] = {
    401: ServiceAuthError,
    404: ServiceNotFoundError,
    409: ServiceConflictError,
    429: ServiceBusyError,
}


def service_error(status: int, body: bytes, headers: Mapping[str, str]) -> ServiceError:
    """The exception for an answer of ``status``: its class by the status, its message the
    service's ``detail`` (a 422's field errors as ``field: what is wrong``)."""
    cls = _BY_STATUS.get(status, ServiceError)
    return cls(_detail(status, body), status=status, retry_after=_retry_after(headers))


def _detail(status: int, body: bytes) -> str:
    import json

    try:
        detail = json.loads(body)["detail"]
    except (ValueError, KeyError, TypeError):
        text = body.decode("utf-8", "replace").strip()
        return " ".join(text.split())[:300] or f"HTTP {status} with no message"
    if isinstance(detail, list):  # FastAPI's validation errors: where, and what is wrong
        return "; ".join(_field_error(item) for item in detail) or "invalid request"
    return str(detail)


def _field_error(item: Any) -> str:
    if not isinstance(item, Mapping):
        return str(item)
    where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
    return f"{where}: {item.get('msg', 'invalid')}" if where else str(item.get("msg", "invalid"))


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:  # an HTTP date: not something this service sends
        return None
