"""A run's events as SSE: one per taor event, ``id`` its number, ``event`` its kind, ``data``
its JSON (the library's codec), resumed after ``Last-Event-ID``, with a heartbeat comment on an
idle stream. A client that falls too far behind is ended early and comes back from its last id.

Between them, a run spread over machines may send ``event: moved`` with no ``id`` (so it
changes no client's Last-Event-ID and numbers nothing): ``{"kind": "moved", "worker": NAME,
"after": N}``, the worker that took the run over after the event numbered N. A stream that
ends because the run has ended, its last event sent, says so last: ``event: end`` (no ``id``,
data ``{"kind": "end"}``), sent only when the run's row says it ended too; a client needs no
other request to know it has everything. A stream that ends without it (a client ended early, the
service stopping, a dropped connection) is followed again from the last id.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from taor.server.auth import CurrentUser
from taor.server.seams import Moved
from taor.server.service import Service
from taor.server.store.runs import ENDED
from taor.server.store.tokens import SERVICE
from taor.server.views import record_of, service_of

router = APIRouter()


@router.get("/{run_id}/events")
async def events(
    run_id: str,
    request: Request,
    user: CurrentUser,
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventSourceResponse:
    """The run's events as SSE, from after ``Last-Event-ID`` (from the start without it): one
    per event, ``id`` its number, ``event`` its kind, ``data`` its JSON; and, with no ``id``,
    ``moved`` when another worker took the run over. The stream ends with ``end`` when the
    run's last event is sent, or early without it (a client that fell behind): come back with
    the last id seen."""
    service = service_of(request)
    await record_of(service, run_id, user)
    after = int(last_event_id) if last_event_id and last_event_id.isdigit() else 0
    return EventSourceResponse(
        _sse(service, run_id, after),
        ping=service.config.heartbeat,
        headers={"X-Accel-Buffering": "no"},
    )


async def _sse(service: Service, run_id: str, after: int) -> AsyncIterator[ServerSentEvent]:
    async for item in service.feeds.follow(run_id, after):
        if isinstance(item, Moved):  # no id: the client's Last-Event-ID stays its last event's
            data = {"kind": item.kind, "worker": item.worker, "after": item.after}
            yield ServerSentEvent(event=item.kind, data=json.dumps(data))
            continue
        if item.seq < 0:  # dropped: too far behind; the client comes back from its last id
            return
        yield ServerSentEvent(id=str(item.seq), event=item.kind, data=item.data)
    if await _ended(service, run_id):
        yield ServerSentEvent(event="end", data=END)


async def _ended(service: Service, run_id: str) -> bool:
    """Whether the run's row says it ended: only then does ``end`` promise the whole run. Its
    stream can end a moment sooner (a worker stopped at once; a worker whose database is out
    of reach writes the row later); the client then asks again, as after any early end."""
    try:
        record = await service.runs.get(run_id, SERVICE)
    except Exception:  # (the database out of reach: the client's next request is told)
        return False
    return record is not None and record.status in ENDED


END = json.dumps({"kind": "end"})
