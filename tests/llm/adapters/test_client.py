"""taor's HTTP/1.1 client against loopback servers: the request it sends (the bytes httpx2's
client sends), keep-alive reuse, a connection the server closes, content-length, chunked and
compressed bodies."""

from __future__ import annotations

import asyncio
import gzip
import zlib

import httpx2
import pytest

from taor.llm.adapters._client import HttpClient, Response
from taor.llm.adapters._wire import DecodingError, HttpTimeouts

from .loopback import ScriptedServer, respond, then_close

TIMEOUTS = HttpTimeouts(connect=5, read=5, write=5)
HEADERS = {"accept": "application/json", "user-agent": "taor/test", "x-api-key": "k"}


def no_tls() -> object:
    raise AssertionError("an http URL needs no TLS context")


def client(url: str) -> HttpClient:
    return HttpClient(url, headers=HEADERS, timeouts=TIMEOUTS, tls=no_tls)  # type: ignore[arg-type]


async def post(http: HttpClient, path: str = "v1/messages") -> tuple[Response, bytes]:
    response = await http.post(path, content=b'{"a":1}', headers={"content-type": "x/y"})
    return response, await response.aread()


async def test_the_request_is_the_one_httpx2_sends() -> None:
    async with ScriptedServer(respond()) as server:
        http = client(server.url + "/base")
        await post(http, "/v1/models/m:stream?alt=sse")
        await http.aclose()
        async with httpx2.AsyncClient(base_url=server.url + "/base", headers=HEADERS) as httpx:
            request = httpx.build_request(
                "POST",
                "v1/models/m:stream?alt=sse",
                content=b'{"a":1}',
                headers={"content-type": "x/y"},
            )
            await (await httpx.send(request)).aread()
    ours, theirs = server.heads
    assert ours == theirs
    assert ours.startswith(b"POST /base/v1/models/m:stream?alt=sse HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n" in ours


async def test_two_requests_share_one_connection() -> None:
    async with ScriptedServer(respond(b"one"), respond(b"two")) as server:
        http = client(server.url)
        bodies = [(await post(http))[1], (await post(http))[1]]
        await http.aclose()
    assert bodies == [b"one", b"two"]
    assert server.accepted == 1


async def test_a_connection_the_server_closed_while_idle_is_replaced() -> None:
    async with ScriptedServer(then_close(respond(b"one")), respond(b"two")) as server:
        http = client(server.url)
        assert (await post(http))[1] == b"one"
        await asyncio.sleep(0.05)  # the server's close reaches the client
        assert (await post(http))[1] == b"two"
        await http.aclose()
    assert server.accepted == 2


@pytest.mark.parametrize("close", ["server", "client"])
async def test_a_connection_either_side_said_close_is_not_reused(close: str) -> None:
    headers = {"connection": "close"} if close == "server" else {}
    async with ScriptedServer(respond(b"one", headers=headers)) as server:
        http = client(server.url)
        extra = {"connection": "close"} if close == "client" else {}
        first = await http.post("v1", content=b"", headers=extra)
        assert await first.aread() == b"one"
        assert (await post(http))[1] == b"one"
        await http.aclose()
    assert server.accepted == 2


async def test_a_response_closed_before_its_end_closes_its_connection() -> None:
    async with ScriptedServer(respond(b"a long body", chunked=True)) as server:
        http = client(server.url)
        response = await http.post("v1", content=b"", headers={})
        async for _ in response.aiter_bytes():
            break
        await response.aclose()
        assert (await post(http))[1] == b"a long body"
        await http.aclose()
    assert server.accepted == 2


@pytest.mark.parametrize("chunked", [False, True])
async def test_content_length_and_chunked_bodies(chunked: bool) -> None:
    async with ScriptedServer(respond(b"data: one\n\n", chunked=chunked)) as server:
        http = client(server.url)
        response = await http.post("v1", content=b"", headers={})
        chunks = [chunk async for chunk in response.aiter_bytes()]
        await http.aclose()
    assert b"".join(chunks) == b"data: one\n\n"
    assert len(chunks) == (11 if chunked else 1)
    assert response.status_code == 200
    assert response.headers.get("Content-Type") == "text/plain"


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


@pytest.mark.parametrize(
    ("encoding", "encode", "chunked"),
    [
        ("gzip", gzip.compress, False),
        ("gzip", gzip.compress, True),  # a byte at a time
        ("deflate", zlib.compress, True),
        ("deflate", _raw_deflate, False),  # told from zlib's by its first piece, as httpx2 does
        ("gzip, deflate", lambda data: zlib.compress(gzip.compress(data)), True),
        ("br", lambda data: data, False),  # not asked for, not known: passed on as it came
    ],
)
async def test_compressed_bodies_are_decoded(encoding: str, encode: object, chunked: bool) -> None:
    body = b"data: " + b"x" * 5000 + b"\n\n"
    assert callable(encode)
    answer = respond(encode(body), headers={"content-encoding": encoding}, chunked=chunked)
    async with ScriptedServer(answer) as server:
        http = client(server.url)
        assert (await post(http))[1] == body
        await http.aclose()


async def test_a_body_that_does_not_decode_raises() -> None:
    answer = respond(b"not gzip at all", headers={"content-encoding": "gzip"})
    async with ScriptedServer(answer) as server:
        http = client(server.url)
        response = await http.post("v1", content=b"", headers={})
        with pytest.raises(DecodingError, match="gzip body that does not decode"):
            await response.aread()
        await response.aclose()
        await http.aclose()


async def test_repeated_response_headers_are_joined() -> None:
    answer = respond(headers={"x-a": "1", "X-A": "2"})
    async with ScriptedServer(answer) as server:
        http = client(server.url)
        response, _ = await post(http)
        await http.aclose()
    assert response.headers.get("x-a") == "1, 2"
