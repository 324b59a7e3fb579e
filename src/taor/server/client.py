"""``Client``: the taor service from Python, over HTTP and SSE (httpx2).

    async with Client("http://127.0.0.1:8765", token) as client:
        run = await client.create_run("fix the failing test", model="anthropic:claude-sonnet-4-5")
        async for event in client.events(run.id):  # taor.agent.events, typed
            ...

Every method but ``events`` is one request. ``events`` follows a run's SSE stream as the same
typed events a ``Session`` yields (decoded by the library's codec), reconnecting by itself
with ``Last-Event-ID`` when the connection drops or the service ends the stream early (a
client that fell behind, a restart), with nothing lost and nothing twice; it ends when the
run's stream has ended for good (the run has ended and every event of it was read). That a
run moved to another worker (a service spread over machines) is told to ``on_moved``, not
mixed into the events: they stay exactly what a ``Session`` yields, so a host's ``match`` over
them needs no case a ``Session`` never sends. An answer that is not a success raises a
``ServiceError`` (``ServiceAuthError`` 401, ``ServiceNotFoundError`` 404,
``ServiceConflictError`` 409, ``ServiceBusyError`` 429 with its ``retry_after``); a service
that cannot be reached raises one without a status.

``session`` gives a ``SessionLike`` whose cycles are runs of the service
(``taor.server.remote``): a host moves from a ``Session`` to the service by changing the line
that makes it. The token goes in the ``Authorization`` header only, never in a URL.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import httpx2

from taor.agent.events import Event
from taor.agent.record.codec import event_from_json
from taor.errors import ServiceError
from taor.server.client_views import Run, RunMoved, RunPage, service_error

if TYPE_CHECKING:
    from taor.build.events import BuildStreamEvent
    from taor.server.remote import RemoteSession

E = TypeVar("E")
OnMoved = Callable[[RunMoved], object]  # told when another worker takes a run over

MAX_EVENT = 64 << 20  # one event's JSON: a tool's whole output can be large


class Client:
    """The service at ``url`` as the user of ``token``. ``reconnect_for``: how long ``events``
    keeps trying to reach a service that has gone away before it raises."""

    def __init__(
        self, url: str, token: str, *, timeout: float = 30.0, reconnect_for: float = 60.0
    ) -> None:
        self.url = url.rstrip("/")
        self.reconnect_for = reconnect_for
        self._http = httpx2.AsyncClient(
            base_url=self.url,
            headers={"authorization": f"Bearer {token}"},
            timeout=httpx2.Timeout(timeout, read=max(timeout, 60.0)),  # SSE: heartbeats 15 s
        )

    def __repr__(self) -> str:
        return f"Client({self.url!r})"  # never the token

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- runs ---

    async def create_run(
        self,
        prompt: str,
        *,
        model: str | None = None,
        workspace: Mapping[str, Any] | None = None,
        limits: Mapping[str, Any] | None = None,
        permission_mode: str | None = None,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
    ) -> Run:
        """Start a run (queued until a worker takes it). ``workspace``: ``{"kind": "empty"}``
        and the other kinds the service offers; ``limits``: ``max_turns``,
        ``max_budget_usd``, ``max_wall``; ``permission_mode``: default, plan, accept_edits or
        bypass; ``allow``/``deny``: permission rules such as ``shell(git *)``."""
        body: dict[str, Any] = {"prompt": prompt, "allow": list(allow), "deny": list(deny)}
        given = {
            "model": model,
            "workspace": workspace,
            "limits": limits,
            "permission_mode": permission_mode,
            "metadata": metadata,
        }
        body.update({name: value for name, value in given.items() if value is not None})
        return Run.of(await self._call("POST", "/runs", json=body))

    async def create_build(
        self,
        brief: str,
        qna: str,
        plan: str,
        *,
        max_tool_calls: int | None = None,
        **run: Any,
    ) -> Run:
        """Start a build run (``taor.build``) from an idea brief, the interview's answers and
        a build plan; ``run``: ``create_run``'s keywords (model, workspace, limits, ...). Its
        events, with the narration, phases and milestones: ``build_events``."""
        build: dict[str, Any] = {"brief": brief, "qna": qna, "plan": plan}
        if max_tool_calls is not None:
            build["max_tool_calls"] = max_tool_calls
        body: dict[str, Any] = {"kind": "build", "build": build}
        body.update({name: value for name, value in run.items() if value is not None})
        return Run.of(await self._call("POST", "/runs", json=body))

    async def get(self, run_id: str) -> Run:
        return Run.of(await self._call("GET", f"/runs/{run_id}"))

    async def list(
        self,
        *,
        status: str | None = None,
        user: str | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> RunPage:
        """Runs the token may see, newest first; ``after=page.next`` for the next page."""
        given = {"status": status, "user": user, "after": after, "limit": limit}
        params = {name: value for name, value in given.items() if value is not None}
        page = await self._call("GET", "/runs", params=params)
        return RunPage(runs=tuple(Run.of(run) for run in page["runs"]), next=page.get("next"))

    async def steer(self, run_id: str, text: str) -> None:
        """A message for the model after the run's current tool round."""
        await self._call("POST", f"/runs/{run_id}/steer", json={"text": text})

    async def follow_up(self, run_id: str, text: str) -> None:
        """An input to run once the run's current one ends."""
        await self._call("POST", f"/runs/{run_id}/follow_up", json={"text": text})

    async def interrupt(self, run_id: str) -> None:
        """Stop what the run is doing now."""
        await self._call("POST", f"/runs/{run_id}/interrupt")

    async def cancel(self, run_id: str) -> None:
        """Take a queued run out of the queue, or stop a running one for good."""
        await self._call("POST", f"/runs/{run_id}/cancel")

    async def answer(self, run_id: str, request_id: str, decision: str, message: str = "") -> None:
        """Answer a permission request: ``allow``, ``allow_always`` or ``deny`` (``message``:
        why, for the model)."""
        body = {"decision": decision, "message": message}
        await self._call("POST", f"/runs/{run_id}/permissions/{request_id}", json=body)

    async def delete(self, run_id: str) -> None:
        """Delete a run that has ended, with its events and workspace."""
        await self._call("DELETE", f"/runs/{run_id}")

    def session(self, **run: Any) -> RemoteSession:
        """A ``SessionLike`` over this service: each ``submit`` is a run made with ``run``
        (``create_run``'s keywords: model, workspace, limits, ...); see ``RemoteSession``."""
        from taor.server.remote import RemoteSession

        return RemoteSession(self, **run)

    # --- events ---

    def events(
        self, run_id: str, after: int = 0, *, on_moved: OnMoved | None = None
    ) -> AsyncIterator[Event]:
        """The run's events numbered above ``after``, in order, each once, as they happen;
        ends when the run has ended and its last event has been yielded. (A build run's own
        events, its narration, are left out: ``build_events`` has them.)

        ``on_moved`` is called with a ``RunMoved`` when another worker takes the run over (a
        service spread over machines), between the events it comes between, once per move;
        the events themselves go on as before, none lost or repeated."""
        return self._follow(run_id, after, _session_event, on_moved)

    def build_events(
        self, run_id: str, after: int = 0, *, on_moved: OnMoved | None = None
    ) -> AsyncIterator[BuildStreamEvent]:
        """``events`` with a build run's own: ``narration``, ``phase``, ``section_summary``,
        ``build_report`` (``taor.build.events``)."""
        from taor.build.events import decode

        return self._follow(run_id, after, decode, on_moved)

    async def _follow(
        self,
        run_id: str,
        after: int,
        decode: Callable[[Any], E | None],
        on_moved: OnMoved | None,
    ) -> AsyncIterator[E]:
        last = after
        ended = False  # seen ended before the stream now read was opened: it reads all
        waited, pause = 0.0, 0.02
        told: set[RunMoved] = set()  # a stream resumed right at a notice sends it again
        while True:
            try:
                async for item in self._stream(run_id, last):
                    if isinstance(item, _End):  # the run has ended and this is all of it
                        return
                    if isinstance(item, RunMoved):
                        if on_moved is not None and item not in told:
                            told.add(item)
                            on_moved(item)
                        continue
                    seq, data = item
                    last, waited, pause = seq, 0.0, 0.02
                    if (event := decode(data)) is not None:
                        yield event
                if ended:
                    return
                # Ended without ``end``: the service dropped the stream (this client fell
                # behind, or it stops), or it sends no ``end`` (an older one).
                ended = (await self.get(run_id)).ended
                if ended:
                    continue  # one more stream, from the log: what came after the last seen
            except (httpx2.TransportError, _Unreachable) as error:
                if waited >= self.reconnect_for:
                    raise ServiceError(f"lost the service at {self.url}: {error}") from None
            await asyncio.sleep(pause)  # not started yet, or the service is coming back
            waited += pause
            pause = min(pause * 2, 0.5)

    async def _stream(
        self, run_id: str, after: int
    ) -> AsyncIterator[tuple[int, Any] | RunMoved | _End]:
        headers = {"last-event-id": str(after)} if after else {}
        url = f"/runs/{run_id}/events"
        async with self._http.sse(url, headers=headers, max_event_size=MAX_EVENT) as source:
            response = source.response
            if response.status_code != 200:
                raise service_error(response.status_code, await response.aread(), response.headers)
            async for message in source:
                if message.event == "end":
                    yield _END
                    return
                if message.event == "moved":  # a notice, not an event: it has no number
                    if (moved := _moved(message.data)) is not None:
                        yield moved
                    continue
                seq = int(message.id) if message.id.isdigit() else 0
                if seq > after:  # a number already seen is never yielded again
                    after = seq
                    yield seq, json.loads(message.data)

    async def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = await self._http.request(method, path, **kwargs)
        except httpx2.TransportError as error:
            raise _Unreachable(f"cannot reach the service at {self.url}: {error}") from None
        if response.is_success:
            return response.json() if response.content else None
        raise service_error(response.status_code, response.content, response.headers)


def _moved(data: str) -> RunMoved | None:
    """The notice a ``moved`` SSE message carries; None when it is not one (ignored)."""
    try:
        fields = json.loads(data)
        return RunMoved(worker=str(fields["worker"]), after=int(fields["after"]))
    except (ValueError, KeyError, TypeError):
        return None


def _session_event(data: Any) -> Event | None:
    """A session's event; None for a build's own (``taor.build.events``)."""
    if isinstance(data, dict) and data.get("kind") in _BUILD_KINDS:
        return None
    return event_from_json(data)


_BUILD_KINDS = frozenset({"narration", "phase", "section_summary", "build_report"})


class _End:
    """The stream's word that the run has ended and nothing more will come."""


_END = _End()


class _Unreachable(ServiceError):
    """The service did not answer (refused, reset, timed out): no status."""
