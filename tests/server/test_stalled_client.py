"""A client that follows a run's events and then stops reading (a stalled browser tab, a
process stopped with SIGSTOP) never slows the run nor makes the service hold more than a bounded
number of its events: the run ends while the client reads nothing, and the client, reading
again, gets its events in order (those it fell behind on from disk) and, if it was dropped,
resumes by ``Last-Event-ID`` with nothing lost and nothing twice."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from taor.testing import FakeProviderServer, text

from .conftest import Served, serve
from .test_runs_api import create, sse, until

pytestmark = pytest.mark.slow

DELTAS = 3000  # far more events than a follower's queue (1000) and the buffers (~64 KiB) hold


@pytest.fixture
async def tight(tmp_path: Path) -> AsyncIterator[Served]:
    """The service with each connection's send buffer at its smallest."""
    with FakeProviderServer([]) as model:
        async with serve(tmp_path / "data", model, send_buffer=4096) as served:
            yield served


def stalled_follower(url: str, token: str, run_id: str) -> socket.socket:
    """A connection that asks for the run's events and reads none of them (yet): a plain
    socket, since an asyncio stream would read ahead into its own buffer."""
    parts = urlsplit(url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(60)
    sock.connect((parts.hostname, parts.port))
    sock.sendall(
        f"GET /runs/{run_id}/events HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    return sock


def ids_until_closed(sock: socket.socket) -> list[int]:
    """The ``id`` of every SSE event the stalled connection was sent, read to its end (which
    is not the run's: the stream was ended early, so it does not say ``end``)."""
    body = b""
    while chunk := sock.recv(1 << 16):
        body += chunk
    lines = body.decode().splitlines()
    assert "event: end" not in lines
    return [int(line[3:]) for line in lines if line.startswith("id:")]


async def test_a_client_that_stops_reading_neither_slows_the_run_nor_loses_events(
    tight: Served,
) -> None:
    tight.model.push(text("word " * (DELTAS * 4), chunk=20))
    async with tight.client(tight.admin) as client:
        run = await create(client, "talk")
        await until(client, run["id"], "running", "finished")
        stalled = stalled_follower(tight.url, tight.admin, run["id"])
        try:
            done = await until(client, run["id"], "finished", "failed")  # while it reads nothing
            assert done["status"] == "finished"
            everything = [int(e["id"]) for e in await sse(client, run["id"])]
            assert len(everything) > DELTAS
            received = await asyncio.to_thread(ids_until_closed, stalled)  # what it was owed
        finally:
            stalled.close()
        assert received == everything[: len(received)]  # in order, none twice
        rest = await sse(client, run["id"], last=received[-1])  # back from its last id
        assert received + [int(e["id"]) for e in rest] == everything
