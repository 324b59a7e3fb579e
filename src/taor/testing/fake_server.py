"""``FakeProviderServer``: a real HTTP server on 127.0.0.1 that speaks the providers' wire formats.

It serves Anthropic ``/v1/messages``, OpenAI ``/v1/responses``, Chat Completions
``/v1/chat/completions`` and Gemini ``/v1beta/models/{model}:(stream)generateContent``, answering
each request with the next step of its script (see ``taor.testing.script``), and records every
request. Streams use chunked transfer encoding, so a scripted disconnect is a real broken stream.

Every answer carries a request id in the header the provider uses (``request-id`` for Anthropic,
``x-request-id`` for OpenAI and Chat Completions; Gemini sends none), recorded as the request's
``request_id``; each recorded request also has the wall-clock time its request line arrived
(``received_ns``, from ``time.time_ns()``), to time a client process from its start.

Usage is reported with a prefix-cache simulation (``taor.testing.prompt_cache``).
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from taor.testing.prompt_cache import PrefixCache
from taor.testing.recorded import RecordedRequest
from taor.testing.script import Fault, HttpError, Reply
from taor.testing.wire import ReplyContext, WireFormat, all_wires, received_request


class FakeProviderServer:
    """Start with ``with FakeProviderServer(steps) as server:`` (or ``start()``/``stop()``).

    ``default`` answers every request once the script is used up (typically a callable that
    computes the reply from the request); ``record=False`` keeps no requests, for long runs."""

    def __init__(
        self,
        steps: Iterable[Any] = (),
        *,
        default: Any = None,
        record: bool = True,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self._steps: deque[Any] = deque(steps)
        self._default = default
        self._record = record
        self.wires = all_wires()
        self._lock = threading.Lock()
        self._cache = PrefixCache()
        self._counter = 0
        self.requests: list[RecordedRequest] = []
        self._closing = threading.Event()
        self._httpd = _Server((host, port), type("Handler", (_Handler,), {"fake": self}))
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def base_url(self, provider: str) -> str:
        """What to pass as ``base_url`` to taor (or to the provider's SDK)."""
        return self.url + "/v1" if provider in ("openai", "openai-compat") else self.url

    def push(self, *steps: Any) -> None:
        with self._lock:
            self._steps.extend(steps)

    @property
    def remaining(self) -> int:
        return len(self._steps)

    def assert_done(self) -> None:
        if self._steps:
            raise AssertionError(f"{len(self._steps)} scripted step(s) were never used")

    def start(self) -> FakeProviderServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, args=(0.05,), name="fake-provider", daemon=True
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def stop(self) -> None:
        self._closing.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FakeProviderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeProviderServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        self.stop()

    def _next_step(self, request: RecordedRequest) -> Any:
        with self._lock:
            if self._record:
                self.requests.append(request)
            step = self._steps.popleft() if self._steps else self._default
        while callable(step) and not isinstance(step, (Reply, HttpError, Fault)):
            step = step(request)
        return step

    def _call_id(self) -> str:
        with self._lock:
            self._counter += 1
            return f"toolu_fake{self._counter:06d}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)  # a client hanging up is routine


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else each reused connection waits ~40 ms for delayed ACKs
    fake: FakeProviderServer
    _answer_headers: dict[str, str]  # sent with whatever answers the current request
    _received_ns: int  # when the current request's first line arrived (time.time_ns())

    def parse_request(self) -> bool:  # called as soon as the request line has been read
        self._received_ns = time.time_ns()
        return super().parse_request()

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:  # a liveness probe
        self._answer_headers = {}
        self._send_json(200, {"ok": True})

    def do_POST(self) -> None:
        self._answer_headers = {}
        parts = urlsplit(self.path)
        wire = next((w for w in self.fake.wires if w.matches(parts.path)), None)
        if wire is None:
            self._send_json(
                404, {"error": {"message": f"FakeProviderServer: no route {parts.path}"}}
            )
            return
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        request = received_request(
            wire, self.path, self.headers.items(), body, received_ns=self._received_ns
        )
        if wire.request_id_header and request.request_id:
            self._answer_headers = {wire.request_id_header: request.request_id}
        step = self.fake._next_step(request)
        if step is None:
            exhausted = HttpError(status=400, message="FakeProviderServer: the script is exhausted")
            self._send_error(wire, exhausted)
        elif isinstance(step, HttpError):
            self._send_error(wire, step)
        elif isinstance(step, Fault):
            self._send_reply(wire, request, step.reply, step)
        elif isinstance(step, Reply):
            self._send_reply(wire, request, step, None)
        else:
            raise TypeError(f"FakeProviderServer: not a server step: {step!r}")

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in {**self._answer_headers, **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, wire: WireFormat, error: HttpError) -> None:
        headers = dict(error.headers)
        if error.retry_after is not None:
            headers["retry-after"] = error.retry_after
        self._send_json(error.status, wire.error_body(error), headers)

    def _send_reply(
        self, wire: WireFormat, request: RecordedRequest, reply: Reply, fault: Fault | None
    ) -> None:
        if reply.delay:
            self._sleep(reply.delay)
        if fault is not None and fault.what == "disconnect" and fault.after == 0:
            self._abort()
            return
        ctx = ReplyContext(
            request=request,
            usage=self.fake._cache.usage(request, reply),
            call_id=self.fake._call_id,
        )
        if not wire.is_stream(request):
            self._send_json(200, wire.body(reply, ctx))
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        for name, value in self._answer_headers.items():
            self.send_header(name, value)
        self.end_headers()
        for n, frame in enumerate(wire.frames(reply, ctx)):
            if fault is not None and n == fault.after and not self._apply(wire, fault):
                return
            self._chunk(frame)
        self._chunk(b"")

    def _apply(self, wire: WireFormat, fault: Fault) -> bool:
        """Inject the fault; False when the stream must end here."""
        if fault.what == "disconnect":
            self._abort()
            return False
        if fault.what == "stall":
            self._sleep(fault.seconds)
        elif fault.what == "malformed":
            self._chunk(b"data: {this is not json\n\n")
        elif fault.what == "error_event":
            self._chunk(wire.error_frame(fault.error_type, fault.message))
            self._chunk(b"")
            return False
        return True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _abort(self) -> None:
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.fake._closing.is_set():
            time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
