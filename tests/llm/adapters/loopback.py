"""Loopback servers for the HTTP client's tests, in the test's own event loop: a server that
answers each request with scripted raw bytes (and counts the connections it accepted), a TLS
front with a self-signed certificate, and a CONNECT proxy."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Self

# How a scripted server answers one request: given its head and body, it writes to the stream
# (and may close it, stall, or leave the connection open for the next request).
Answer = Callable[[bytes, bytes, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    """A request's head and its content-length body; None when the client closed."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return head, await reader.readexactly(length)


class _Listener:
    """A loopback server whose connections are closed when the block ends."""

    scheme = "http"

    def __init__(self, context: ssl.SSLContext | None = None) -> None:
        self._context = context
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []
        self.url = ""

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0, ssl=self._context)
        self.url = f"{self.scheme}://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.close()
        await asyncio.sleep(0)  # the transports close


class ScriptedServer(_Listener):
    """Answers the n-th request with ``answers[n]`` (the last one once they run out)."""

    def __init__(self, *answers: Answer) -> None:
        super().__init__()
        self.answers = list(answers)
        self.accepted = 0
        self.heads: list[bytes] = []

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        while (request := await read_request(reader)) is not None:
            answer = self.answers[min(len(self.heads), len(self.answers) - 1)]
            self.heads.append(request[0])
            await answer(*request, writer)
            if writer.is_closing():
                return


def respond(
    body: bytes = b"hello", *, headers: dict[str, str] | None = None, chunked: bool = False
) -> Answer:
    """An answer: 200 with ``body``, in one chunk-encoded piece per byte when ``chunked``."""

    async def answer(head: bytes, request_body: bytes, writer: asyncio.StreamWriter) -> None:
        fields = {"content-type": "text/plain", **(headers or {})}
        if chunked:
            fields["transfer-encoding"] = "chunked"
            data = b"".join(b"%x\r\n%s\r\n" % (1, body[i : i + 1]) for i in range(len(body)))
            data += b"0\r\n\r\n"
        else:
            fields["content-length"] = str(len(body))
            data = body
        lines = "".join(f"{name}: {value}\r\n" for name, value in fields.items())
        writer.write(f"HTTP/1.1 200 OK\r\n{lines}\r\n".encode() + data)
        await writer.drain()

    return answer


def then_close(answer: Answer) -> Answer:
    """``answer``, then the connection closed (an idle connection the server drops)."""

    async def closing(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
        await answer(head, body, writer)
        writer.close()

    return closing


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key (the certificate is its own CA)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert),
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def _splice(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, port: int) -> None:
    upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
    await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))


class TlsFront(_Listener):
    """TLS on 127.0.0.1 in front of a plain server's ``port``, with a self-signed certificate."""

    scheme = "https"

    def __init__(self, port: int, cert: Path, key: Path) -> None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        super().__init__(context)
        self._port = port

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _splice(reader, writer, self._port)


class ConnectProxy(_Listener):
    """An HTTP proxy that serves ``CONNECT host:port`` (to loopback only), keeping the
    targets it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        method, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ")
        self.targets.append(f"{method} {target}")
        host, _, port = target.rpartition(":")
        if method != "CONNECT" or host != "127.0.0.1":
            writer.write(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")
            return
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await _splice(reader, writer, int(port))
