"""``taor.server.Client`` against the real service under uvicorn, its model the fake provider
server: every method, typed events equal to what the service stored, reconnection after a
dropped connection and after a restart of the service, each error status as its own
exception, and a host that drives a ``Session`` and ``Client.session`` alike."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from taor.agent.events import Event, PermissionRequest, ProcessingEnd, SessionEnd
from taor.agent.record.codec import to_json
from taor.errors import (
    ServiceAuthError,
    ServiceBusyError,
    ServiceConflictError,
    ServiceError,
    ServiceNotFoundError,
    SessionError,
    UnknownIdError,
)
from taor.server import Client, RemoteSession, Run
from taor.server.app import create_app
from taor.server.config import ServiceConfig
from taor.server.service import Service
from taor.testing import FakeProviderServer, ToolCall, text, tool_calls

from .conftest import Served
from .proxy import Proxy

WRITE = ToolCall(name="write_file", arguments={"path": "out.txt", "content": "made\n"})


async def until(client: Client, run_id: str, *statuses: str) -> Run:
    for _ in range(500):
        run = await client.get(run_id)
        if run.status in statuses:
            return run
        await asyncio.sleep(0.02)
    raise AssertionError(f"run {run_id} stayed {run.status}")


async def stored(service: Service, run_id: str) -> list[dict[str, Any]]:
    await service.writer.flush(run_id)
    return [json.loads(event.data) for event in await service.events.since(run_id, 0, 100_000)]


async def test_a_run_is_made_read_listed_followed_and_deleted(served: Served) -> None:
    served.model.push(text("Hello from the model."))
    async with Client(served.url, served.admin) as client:
        run = await client.create_run(
            "hello",
            model="openai-compat:m",
            limits={"max_turns": 5},
            permission_mode="default",
            allow=["read_file"],
            deny=["shell(rm *)"],
            metadata={"ticket": 7},
        )
        assert run.status in ("queued", "running") and run.user == "admin"
        assert run.metadata == {"ticket": 7} and run.prompt == "hello"
        events = [event async for event in client.events(run.id)]
        done = await client.get(run.id)
        assert done.status == "finished" and done.ended and done.stop_reason == "completed"
        assert [to_json(event) for event in events] == await stored(served.service, run.id)
        ended = [event for event in events if isinstance(event, ProcessingEnd)]
        assert [event.text for event in ended] == ["Hello from the model."]
        assert isinstance(events[-1], SessionEnd)
        later = [event.seq async for event in client.events(run.id, after=events[2].seq)]
        assert later == [event.seq for event in events[3:]]
        page = await client.list(status="finished", limit=1)
        assert [r.id for r in page.runs] == [run.id] and page.next == run.id
        assert (await client.list(after=page.next)).runs == ()
        await client.delete(run.id)
        with pytest.raises(ServiceNotFoundError):
            await client.get(run.id)


async def test_commands_reach_the_run_and_a_permission_is_answered(served: Served) -> None:
    served.model.push(tool_calls(WRITE), text("Written."), text("And the follow-up."))
    async with Client(served.url, served.admin) as client:
        run = await client.create_run("write the file")
        asking = await until(client, run.id, "awaiting_permission")
        [pending] = asking.pending
        assert pending.tool == "write_file" and "out.txt" in pending.summary
        await client.steer(run.id, "also say thanks")
        await client.follow_up(run.id, "and then this")
        await client.answer(run.id, pending.request_id, "allow")
        events = [event async for event in client.events(run.id)]
    kinds = [event.kind for event in events]
    assert {"steering_queued", "follow_up_queued", "permission_decision"} <= set(kinds)
    assert (Path(asking.workspace) / "out.txt").read_text() == "made\n"
    assert "also say thanks" in served.model.requests[1].body.decode()


async def test_interrupt_and_cancel_stop_a_run(served: Served) -> None:
    served.model.push(tool_calls(WRITE), tool_calls(WRITE))
    async with Client(served.url, served.admin) as client:
        first = await client.create_run("one")
        await until(client, first.id, "awaiting_permission")
        await client.interrupt(first.id)
        assert (await until(client, first.id, "interrupted", "finished")).status == "interrupted"
        second = await client.create_run("two")
        await until(client, second.id, "awaiting_permission")
        await client.cancel(second.id)
        assert (await until(client, second.id, "cancelled")).status == "cancelled"
        with pytest.raises(ServiceConflictError, match="cancelled"):
            await client.cancel(second.id)


async def test_each_refusal_is_its_own_error(served: Served) -> None:
    served.model.push(text("Done."))
    async with Client(served.url, "not-a-token") as stranger:
        with pytest.raises(ServiceAuthError) as refused:
            await stranger.list()
        assert refused.value.status == 401 and "not-a-token" not in str(refused.value)
    async with Client(served.url, served.admin) as client:
        with pytest.raises(ServiceNotFoundError):
            await client.steer("run_nope", "x")
        with pytest.raises(ServiceNotFoundError):
            [event async for event in client.events("run_nope")]
        with pytest.raises(ServiceError) as invalid:
            await client.create_run("x", limits={"max_turns": 0})
        assert invalid.value.status == 422 and "limits.max_turns" in invalid.value.message
        with pytest.raises(ServiceError) as large:
            await client.create_run("x" * 100_000)
        assert large.value.status == 413
        run = await client.create_run("hello")
        await until(client, run.id, "finished")
        with pytest.raises(ServiceConflictError, match="finished") as late:
            await client.steer(run.id, "too late")
        assert late.value.status == 409
    async with Client("http://127.0.0.1:9", served.admin) as nowhere:
        with pytest.raises(ServiceError) as unreachable:
            await nowhere.get("run_x")
        assert unreachable.value.status is None


async def test_a_busy_service_is_told_apart_with_its_retry_after() -> None:
    async def busy(scope: Any, receive: Any, send: Any) -> None:
        body = b'{"detail":"ann has 4 live runs, the most allowed"}'
        headers = [(b"content-type", b"application/json"), (b"retry-after", b"12")]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async with serving_at(busy, free_port()) as url, Client(url, "t") as client:
        with pytest.raises(ServiceBusyError) as full:
            await client.create_run("x")
    assert full.value.retry_after == 12 and "4 live runs" in str(full.value)


async def test_events_reconnect_after_a_dropped_connection(served: Served) -> None:
    served.model.push(tool_calls(WRITE), text("Written."))
    proxy = Proxy(served.url)
    async with proxy.running() as url, Client(url, served.admin) as client:
        run = await client.create_run("write the file")
        seen: list[Event] = []
        async for event in client.events(run.id):
            seen.append(event)
            if isinstance(event, PermissionRequest):
                proxy.cut()  # the stream drops while the run waits
                async with Client(served.url, served.admin) as direct:
                    await direct.answer(run.id, event.request_id, "allow")
    assert proxy.connections >= 2  # the stream was cut, and taken up again on a new one
    assert [to_json(event) for event in seen] == await stored(served.service, run.id)


async def test_events_end_at_the_streams_end_with_no_other_request(served: Served) -> None:
    served.model.push(text("Hello."))
    proxy = Proxy(served.url)
    async with proxy.running() as url, Client(url, served.admin) as client:
        run = await client.create_run("hi")
        live = [event async for event in client.events(run.id)]  # followed as it happens
        assert (await client.get(run.id)).ended  # the stream's end came after the run's
        again = [event async for event in client.events(run.id)]  # read back when ended
    events = f"GET /runs/{run.id}/events"
    assert proxy.requests == ["POST /runs", events, f"GET /runs/{run.id}", events]
    assert isinstance(live[-1], SessionEnd) and [e.seq for e in again] == [e.seq for e in live]


@contextlib.asynccontextmanager
async def serving_at(app: Any, port: int) -> AsyncIterator[str]:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_events_go_on_across_a_restart_of_the_service(tmp_path: Path) -> None:
    """The service stops while the run waits (the run is then ``interrupted``); the client
    keeps trying, reaches the service started again on the same data, and ends with every
    event, each once."""
    port = free_port()
    with FakeProviderServer([tool_calls(WRITE)]) as model:
        config = ServiceConfig(
            data_dir=tmp_path / "data",
            default_model="openai-compat:m",
            base_url=model.url,
            sandbox=False,
        )
        first = await Service.open(config)
        token = first.first_token or ""
        client = Client(f"http://127.0.0.1:{port}", token)
        seen: list[Event] = []
        async with serving_at(create_app(first), port):
            run = await client.create_run("write the file")
            events = client.events(run.id)
            async for event in events:
                seen.append(event)
                if isinstance(event, PermissionRequest):
                    break
        await first.close()
        following = asyncio.create_task(collect(client.events(run.id, after=seen[-1].seq)))
        await asyncio.sleep(0.2)  # it finds nobody there, and tries again
        again = await Service.open(config)
        try:
            async with serving_at(create_app(again), port):
                seen += await following
                assert (await client.get(run.id)).status == "interrupted"
                assert [to_json(e) for e in seen] == await stored(again, run.id)
        finally:
            await client.aclose()
            await again.close()


async def collect(events: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in events]


async def host(session: Any) -> list[str]:
    """What a front end does with a session: submit, answer each permission request, read to
    the end, close; the same code for a local and a remote one."""
    seen: list[str] = []
    await session.start()
    async for event in session.submit("write the file"):
        seen.append(event.kind)
        if isinstance(event, PermissionRequest):
            assert session.state == "awaiting_permission"
            session.decide(event.request_id, "allow")
        if isinstance(event, ProcessingEnd):
            assert event.stop_reason == "completed"
    await session.close()
    assert session.state == "closed"
    return seen


async def test_one_line_moves_a_host_from_a_session_to_the_service(
    served: Served, tmp_path: Path
) -> None:
    from taor.agent.config import PermissionConfig, SessionConfig
    from taor.agent.session import Session
    from taor.env.local import LocalEnvironment
    from taor.llm.connect import connect

    served.model.push(tool_calls(WRITE), text("Written."), tool_calls(WRITE), text("Written."))
    here = tmp_path / "here"
    here.mkdir()
    model = connect("openai-compat:m", base_url=served.model.url)
    config = SessionConfig(permissions=PermissionConfig(interactive=True))
    local = await host(Session(model, environment=LocalEnvironment(str(here)), config=config))
    async with Client(served.url, served.admin) as client:
        session = client.session(model="openai-compat:m")
        remote = await host(session)
        done = await client.get(session.id)
    await model.aclose()
    assert remote == local and "permission_request" in local, (remote, local)
    assert (here / "out.txt").read_text() == (Path(done.workspace) / "out.txt").read_text()


async def test_a_remote_session_refuses_what_the_service_cannot_do(served: Served) -> None:
    served.model.push(tool_calls(WRITE), text("Written.", delay=5.0))
    async with Client(served.url, served.admin) as client:
        session = client.session()
        with pytest.raises(SessionError, match="submit"):
            session.steer("no run yet")
        with pytest.raises(SessionError, match="compact"):
            session.compact()
        with pytest.raises(ServiceError):  # an answer sent in the background, refused
            await answer_late(session, client)
        await session.close()
        assert (await until(client, session.id, "cancelled", "finished")).status == "cancelled"


async def test_a_remote_session_runs_to_a_result(served: Served) -> None:
    served.model.push(text("Hi there."))
    async with Client(served.url, served.admin) as client:
        session = client.session(limits={"max_turns": 3})
        result = await session.run("hello")
        await session.close()
    assert result.text == "Hi there." and result.stop_reason == "completed"
    assert result.turns == 1 and result.tool_calls == 0


async def test_a_remote_session_takes_commands_as_data(
    served: Served,
) -> None:
    from taor.agent.commands import Answer, Steer

    served.model.push(tool_calls(WRITE), text("Written."))
    async with Client(served.url, served.admin) as client:
        session = client.session(metadata={"from": "a host"})
        everything = asyncio.create_task(collect(session.events()))  # from before the run
        async for event in session.submit("write the file"):
            if isinstance(event, PermissionRequest):
                await session.apply(Steer(text="keep it short"))
                await session.apply(Answer(request_id=event.request_id, decision="allow"))
        run = await client.get(session.id)
        assert run.metadata == {"from": "a host"}
        kinds = [event.kind for event in await everything]
        assert kinds[0] == "session_start" and "steering_queued" in kinds
        await session.close()
    assert "keep it short" in served.model.requests[1].body.decode()


async def answer_late(session: RemoteSession, client: Client) -> None:
    """Read the run; at its permission request, check what is refused at once, then answer
    it after someone else did (the service refuses that one)."""
    async for event in session.submit("write the file"):
        if isinstance(event, PermissionRequest):
            with pytest.raises(UnknownIdError):
                session.decide("perm_unknown", "allow")
            with pytest.raises(SessionError, match="decision"):
                session.decide(event.request_id, "maybe")
            await client.answer(session.id, event.request_id, "deny")  # someone else
            session.decide(event.request_id, "allow")  # too late


def test_the_client_needs_none_of_the_servers_libraries() -> None:
    code = (
        "import sys; from taor.server import Client, RemoteSession, Run; "
        "print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {name.split(".")[0] for name in done.stdout.split()}
    assert not loaded & {"fastapi", "uvicorn", "sqlalchemy", "starlette", "sse_starlette"}
    import taor.server

    assert sorted(taor.server.__all__) == [
        "Client",
        "Pending",
        "RemoteSession",
        "Run",
        "RunMoved",
        "RunPage",
    ]


async def test_a_remote_session_goes_on_after_its_run_ended(served: Served) -> None:
    served.model.push(text("First answer."), text("Second answer."))
    async with Client(served.url, served.admin) as client:
        session = client.session()
        first = await session.run("one")
        await until(client, session.id, "finished")
        second = await session.run("two")  # the ended run is continued with it
        await session.close()
        done = await until(client, session.id, "finished")
    assert (first.text, second.text) == ("First answer.", "Second answer.")
    sent = served.model.requests[-1].json["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"][-2:] == ["one", "two"]
    assert done.id == session.id
