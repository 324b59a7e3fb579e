"""How a connection fails, through a real adapter against loopback servers, as the taor error
each failure is: a refused connection, a server that never answers (TLS) or stalls, one that
closes before or during its answer, a request the server will not read."""

from __future__ import annotations

import asyncio
import socket
import struct
import threading

import pytest

from taor import errors as e
from taor.llm import Message, Request, Timeouts, complete, connect
from taor.llm.adapters._client import HttpClient
from taor.llm.adapters._error_map import map_exception
from taor.llm.adapters._tls import default_context
from taor.llm.adapters._wire import HttpTimeouts, WriteError, WriteTimeout

from .loopback import ScriptedServer, respond
from .support import ONCE

HI = Request(messages=(Message.user("hi"),))
SSE_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"


async def ask(base_url: str, idle: float = 5, connect_timeout: float = 5) -> None:
    timeouts = Timeouts(idle=idle, connect=connect_timeout)
    model = connect("openai-compat:m", api_key="k", base_url=base_url, timeouts=timeouts)
    try:
        await complete(model, HI, retry=ONCE)
    finally:
        await model.aclose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_a_refused_loopback_connection_fails_at_once_naming_the_url(host: str) -> None:
    url = f"http://{host}:{free_port()}/v1"
    with pytest.raises(e.NetworkError) as caught:
        await ask(url)
    assert f"at {url}/chat/completions" in str(caught.value)
    assert "connection refused (is the server running?)" in str(caught.value)
    assert not caught.value.retryable


async def stall(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(30)


async def stall_mid_body(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
    writer.write(SSE_HEAD + b"transfer-encoding: chunked\r\n\r\n5\r\ndata:\r\n")
    await asyncio.sleep(30)


@pytest.mark.parametrize("answer", [stall, stall_mid_body])
async def test_a_server_that_stalls_is_an_idle_timeout(answer: object) -> None:
    async with ScriptedServer(answer) as server:  # type: ignore[arg-type]
        with pytest.raises(e.IdleTimeoutError, match=r"Read timed out after 0\.2 s"):
            await ask(server.url + "/v1", idle=0.2)


async def test_a_tls_handshake_that_never_ends_is_a_connect_timeout() -> None:
    async with ScriptedServer(stall) as server:  # accepts, never answers the handshake
        with pytest.raises(e.NetworkError, match="connection timed out"):
            await ask(f"https://127.0.0.1:{server.port}/v1", connect_timeout=0.2)


async def close_before_head(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
    writer.close()


async def close_mid_body(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
    writer.write(SSE_HEAD + b"content-length: 1000\r\n\r\ndata: {")
    await writer.drain()
    writer.close()


async def test_a_server_that_closes_before_answering_is_a_network_error() -> None:
    async with ScriptedServer(close_before_head) as server:
        with pytest.raises(e.NetworkError, match="the server broke the response") as caught:
            await ask(server.url + "/v1")
        assert f"at {server.url}/v1/chat/completions" in str(caught.value)


async def reset_mid_body(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
    writer.write(SSE_HEAD + b"content-length: 1000\r\n\r\ndata: {")
    await writer.drain()
    await asyncio.sleep(0.05)  # the client is reading the body
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()  # with no lingering: a reset, not an orderly close


@pytest.mark.parametrize("answer", [close_mid_body, reset_mid_body])
async def test_a_server_that_closes_mid_stream_interrupts_it(answer: object) -> None:
    async with ScriptedServer(answer) as server:  # type: ignore[arg-type]
        with pytest.raises(e.StreamInterruptedError, match="the connection broke"):
            await ask(server.url + "/v1")


BIG = b"x" * (64 << 20)  # more than loopback's socket buffers hold


async def test_a_request_the_server_does_not_read_is_a_write_timeout() -> None:
    async def never_read(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await asyncio.sleep(30)
        finally:
            writer.close()

    server = await asyncio.start_server(never_read, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    timeouts = HttpTimeouts(connect=5, read=5, write=0.2)
    http = HttpClient(
        f"http://127.0.0.1:{port}", headers={}, timeouts=timeouts, tls=default_context
    )
    with pytest.raises(WriteTimeout) as caught:
        await http.post("v1", content=BIG, headers={})
    server.close()
    await asyncio.sleep(0)
    assert isinstance(map_exception("p", caught.value), e.IdleTimeoutError)


async def test_a_server_that_drops_the_request_is_a_write_error() -> None:
    async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.transport.abort()  # a reset

    server = await asyncio.start_server(drop, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    timeouts = HttpTimeouts(connect=5, read=5, write=5)
    http = HttpClient(
        f"http://127.0.0.1:{port}", headers={}, timeouts=timeouts, tls=default_context
    )
    with pytest.raises(WriteError) as caught:
        await http.post("v1", content=BIG, headers={})
    server.close()
    error = map_exception("p", caught.value)
    assert type(error) is e.NetworkError and f"127.0.0.1:{port}/v1" in str(error)


async def test_a_connection_closed_since_the_loop_last_looked_is_not_reused() -> None:
    """The server's close is in the kernel, not yet read by the event loop, when the next
    request picks a connection: the connection is seen dead and a new one is made."""
    listener = socket.create_server(("127.0.0.1", 0))
    first_done, closed = threading.Event(), threading.Event()
    answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"

    def serve() -> None:
        for n in range(2):
            conn, _ = listener.accept()
            conn.recv(65536)
            conn.sendall(answer)
            if n == 0:
                first_done.wait(10)
                conn.close()
                closed.set()
            else:
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    http = HttpClient(
        url, headers={}, timeouts=HttpTimeouts(connect=5, read=5, write=5), tls=default_context
    )
    first = await http.post("v1", content=b"", headers={})
    assert await first.aread() == b"ok"
    first_done.set()
    closed.wait(10)  # blocking: the loop does not run before the next request picks
    second = await http.post("v1", content=b"", headers={})
    assert await second.aread() == b"ok"
    await http.aclose()
    thread.join(10)
    listener.close()


async def test_an_interim_response_is_skipped() -> None:
    async def interim(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        await respond(b"done")(head, body, writer)

    async with ScriptedServer(interim) as server:
        timeouts = HttpTimeouts(connect=5, read=5, write=5)
        http = HttpClient(server.url, headers={}, timeouts=timeouts, tls=default_context)
        response = await http.post("v1", content=b"", headers={})
        assert (response.status_code, await response.aread()) == (200, b"done")
        await http.aclose()
