"""A proxy from the environment takes the request through httpx2, to a real CONNECT proxy on
loopback (in front of a loopback TLS server); a base URL the proxy variables do not cover
goes direct."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest

from taor import errors as e
from taor.llm import Message, Request, Timeouts, complete, connect
from taor.llm.adapters._fallback import proxy_applies
from taor.testing import FakeProviderServer, Reply

from .loopback import ConnectProxy, TlsFront, self_signed
from .support import ONCE

HI = Request(messages=(Message.user("hi"),))
PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxy_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sets the proxy variables it means; none come from the environment."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


async def ask(base_url: str) -> str:
    model = connect(
        "anthropic:claude-haiku-4-5", api_key="k", base_url=base_url, timeouts=Timeouts(idle=5)
    )
    try:
        return (await complete(model, HI, retry=ONCE)).message.text
    finally:
        await model.aclose()


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"])
@pytest.mark.parametrize("no_proxy", [None, "127.0.0.1"])
async def test_a_proxy_from_the_environment_carries_the_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, no_proxy: str | None
) -> None:
    cert, key = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    if no_proxy:
        monkeypatch.setenv("NO_PROXY", no_proxy)
    with FakeProviderServer([Reply(text="through")]) as server:
        port = int(server.url.rsplit(":", 1)[1])
        async with TlsFront(port, cert, key) as front, ConnectProxy() as proxy:
            monkeypatch.setenv(variable, proxy.url)
            assert await ask(front.url) == "through"
    tunnel = f"CONNECT {front.url.removeprefix('https://')}"
    assert proxy.targets == ([] if no_proxy else [tunnel])


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy"])
async def test_an_http_base_url_is_sent_to_its_proxy(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """The proxy here refuses to forward a plain request (it only tunnels): its 403 is the
    answer, and the request it was asked to forward shows the proxy was used."""
    async with ConnectProxy() as proxy:
        monkeypatch.setenv(variable, proxy.url)
        with pytest.raises(e.PermissionDeniedError):
            await ask("http://127.0.0.1:9")
    assert proxy.targets == ["POST http://127.0.0.1:9/v1/messages"]


async def test_a_proxy_for_another_scheme_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeProviderServer([Reply(text="direct")]) as server:
        async with ConnectProxy() as proxy:
            monkeypatch.setenv("HTTPS_PROXY", proxy.url)
            assert await ask(server.url) == "direct"
    assert proxy.targets == []


def test_which_variables_apply() -> None:
    assert proxy_applies("https://api.example", {"https_proxy": "http://p:1"})
    assert proxy_applies("http://api.example", {"ALL_PROXY": "socks5://p:1"})
    assert not proxy_applies("http://api.example", {"HTTPS_PROXY": "http://p:1"})
    assert not proxy_applies("https://api.example", {"HTTPS_PROXY": ""})


async def _through(transport: httpx2.AsyncBaseTransport) -> None:
    model = connect(
        "anthropic:claude-haiku-4-5",
        api_key="k",
        base_url="http://127.0.0.1:9",
        transport=transport,
    )
    try:
        await complete(model, HI, retry=ONCE)
    finally:
        await model.aclose()


async def test_an_injected_transports_failure_is_mapped_as_before() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)

    with pytest.raises(e.NetworkError) as caught:
        await _through(httpx2.MockTransport(refuse))
    assert "at http://127.0.0.1:9/v1/messages: connection refused" in str(caught.value)
    assert not caught.value.retryable


class _Breaking(httpx2.AsyncByteStream):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b"event: ping\ndata: {}\n\n"
        raise httpx2.ReadError("the peer reset the connection")


async def test_an_injected_transports_broken_stream_is_interrupted() -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"request-id": "req_1"}, stream=_Breaking())

    with pytest.raises(e.StreamInterruptedError, match="the peer reset") as caught:
        await _through(httpx2.MockTransport(answer))
    assert caught.value.request_id == "req_1"
