from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anthropic
import httpx2
import pytest

from taor.errors import ConfigurationError
from taor.testing.cassette import RecordingTransport, ReplayTransport, load_cassette

EVENTS = [
    b"event: ping\ndata: {}\n\n",
    b'event: delta\ndata: {"text": "hi"}\n\n',
    b"data: [DONE]\n\n",
]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path.startswith("/json"):
            self._send_json({"hello": "world"})
        else:
            self._send_events()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        self._send_json({"echo": json.loads(body)})

    def _send_json(self, data: object) -> None:
        body = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("x-request-token", "server-secret-999")
        self.end_headers()
        self.wfile.write(body)

    def _send_events(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for event in EVENTS:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
            time.sleep(0.05)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server:
    def __init__(self) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,), daemon=True)
        self._thread.start()
        self._running = True

    def stop(self) -> None:
        if self._running:
            self._running = False
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join()


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server()
    yield srv
    srv.stop()


async def _get_stream(client: httpx2.AsyncClient, url: str) -> list[bytes]:
    async with client.stream("GET", url) as response:
        return [chunk async for chunk in response.aiter_raw()]


async def test_record_then_replay_with_the_server_stopped(tmp_path: Path, server: _Server) -> None:
    path = tmp_path / "cassette.jsonl"
    secret_url = f"{server.url}/json?key=url-secret-123&page=2"
    async with httpx2.AsyncClient(transport=RecordingTransport(path)) as client:
        live = await client.get(secret_url, headers={"x-api-key": "sk-secret-456"})
        live_chunks = await _get_stream(client, f"{server.url}/events")

    assert live.json()["hello"] == "world"
    assert b"".join(live_chunks) == b"".join(EVENTS)
    assert len(live_chunks) >= 2, "the server sends its events apart"
    text = path.read_text(encoding="utf-8")
    for secret in ("url-secret-123", "sk-secret-456", "server-secret-999"):
        assert secret not in text
    first, second = load_cassette(path)
    assert dict(first.request_headers)["x-api-key"] == "REDACTED"
    assert dict(first.response_headers)["x-request-token"] == "REDACTED"
    assert first.url.endswith("/json?key=REDACTED&page=2")
    assert second.chunks == tuple(live_chunks)

    server.stop()
    async with httpx2.AsyncClient(transport=ReplayTransport(path)) as client:
        replayed = await client.get(secret_url)
        replayed_chunks = await _get_stream(client, f"{server.url}/events")
    assert replayed.status_code == 200
    assert replayed.content == live.content
    assert replayed.headers["content-type"] == "application/json"
    assert replayed_chunks == live_chunks


async def test_request_matching_ignores_order_and_json_key_order(
    tmp_path: Path, server: _Server
) -> None:
    path = tmp_path / "cassette.jsonl"
    async with httpx2.AsyncClient(transport=RecordingTransport(path)) as client:
        for n in (1, 2):
            await client.post(f"{server.url}/echo", json={"n": n, "tag": "x"})
    server.stop()

    async with httpx2.AsyncClient(transport=ReplayTransport(path, match="request")) as client:
        second = await client.post(f"{server.url}/echo", content=b'{"tag": "x", "n": 2}')
        first = await client.post(f"{server.url}/echo", json={"n": 1, "tag": "x"})
        with pytest.raises(ConfigurationError, match="no exchange for POST /echo"):
            await client.post(f"{server.url}/echo", json={"n": 3})
    assert second.json() == {"echo": {"n": 2, "tag": "x"}}
    assert first.json() == {"echo": {"n": 1, "tag": "x"}}


def _write_cassette(path: Path, *records: dict[str, object]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


async def test_sequence_mismatch_names_expected_and_actual(tmp_path: Path) -> None:
    path = tmp_path / "cassette.jsonl"
    _write_cassette(
        path, {"method": "GET", "url": "http://127.0.0.1:9/a", "response": {"status": 204}}
    )
    async with httpx2.AsyncClient(transport=ReplayTransport(path)) as client:
        with pytest.raises(ConfigurationError, match="expected GET /a, got POST /b"):
            await client.post("http://127.0.0.1:9/b")


async def test_sequence_exhaustion(tmp_path: Path) -> None:
    path = tmp_path / "cassette.jsonl"
    _write_cassette(
        path, {"method": "GET", "url": "http://127.0.0.1:9/a", "response": {"status": 204}}
    )
    async with httpx2.AsyncClient(transport=ReplayTransport(path)) as client:
        assert (await client.get("http://127.0.0.1:9/a")).status_code == 204
        with pytest.raises(ConfigurationError, match=r"exhausted after 1 exchanges.*GET /a"):
            await client.get("http://127.0.0.1:9/a")


def test_load_cassette_skips_a_torn_last_line_and_rejects_others(tmp_path: Path) -> None:
    path = tmp_path / "cassette.jsonl"
    good = json.dumps({"method": "get", "url": "http://h/x", "response": {"status": 200}})
    path.write_text(good + "\n" + '{"method": "GE', encoding="utf-8")
    assert [e.method for e in load_cassette(path)] == ["GET"]
    path.write_text('{"broken\n' + good + "\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"cassette\.jsonl:1: bad exchange"):
        load_cassette(path)


def test_binary_bodies_and_chunk_sizes_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cassette.jsonl"
    body = bytes(range(250, 256)) + b"tail"
    import base64

    record = {
        "method": "GET",
        "url": "http://h/bin",
        "response": {
            "status": 200,
            "body": base64.b64encode(body).decode(),
            "body_encoding": "base64",
            "chunks": [4, 2],
        },
    }
    _write_cassette(path, record)
    (exchange,) = load_cassette(path)
    assert exchange.chunks == (body[:4], body[4:6], body[6:])
    assert exchange.response_body == body


MESSAGE = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-haiku-4-5",
    "content": [{"type": "text", "text": "Hello from the cassette"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 12, "output_tokens": 5},
}


async def test_anthropic_sdk_runs_over_the_replay_transport(tmp_path: Path) -> None:
    path = tmp_path / "anthropic.jsonl"
    response = {"status": 200, "headers": {"content-type": "application/json"}, "body": MESSAGE}
    _write_cassette(
        path, {"method": "POST", "url": "http://127.0.0.1:9/v1/messages", "response": response}
    )
    http_client = httpx2.AsyncClient(transport=ReplayTransport(path))
    async with (
        http_client,
        anthropic.AsyncAnthropic(
            api_key="sk-test", base_url="http://127.0.0.1:9", http_client=http_client, max_retries=0
        ) as client,
    ):
        message = await client.messages.create(
            model="claude-haiku-4-5",
            max_tokens=64,
            messages=[{"role": "user", "content": "Hi"}],
        )
    assert message.id == "msg_01"
    assert message.content[0].type == "text"
    assert message.content[0].text == "Hello from the cassette"
    assert message.usage.output_tokens == 5
