"""Each adapter with an https base URL builds its TLS context in a thread of its own from
construction, once, and every connection it makes uses that one: the first request does not
wait for a CA bundle to load. An http base URL builds none. The TLS is real: a loopback TLS
server with a self-signed certificate, trusted through ``SSL_CERT_FILE`` (as httpx2 reads it)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from taor import errors as e
from taor.llm import Message, Request, Timeouts, complete, connect
from taor.llm.adapters import _tls
from taor.testing import FakeProviderServer, Reply

from .loopback import TlsFront, self_signed
from .support import ONCE

MODELS = {
    "anthropic": "anthropic:claude-haiku-4-5",
    "openai": "openai:gpt-5.1",
    "openai-compat": "openai-compat:qwen2.5-coder",
    "gemini": "gemini:gemini-2.5-pro",
}
PATHS = {"openai": "/v1", "openai-compat": "/v1"}
HI = Request(messages=(Message.user("hi"),))


def port_of(server: FakeProviderServer) -> int:
    return int(server.url.rsplit(":", 1)[1])


@pytest.fixture
def contexts_built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that build a TLS context (loading the CA bundle), one entry
    per context."""
    built: list[str] = []
    real = _tls.default_context

    def spy() -> object:
        built.append(threading.current_thread().name)
        return real()

    monkeypatch.setattr(_tls, "default_context", spy)
    return built


@pytest.fixture
def trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, trusted by ``SSL_CERT_FILE``."""
    cert, key = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    return cert, key


async def two_requests(model_name: str, base_url: str) -> list[str]:
    model = connect(model_name, api_key="test-key", base_url=base_url, timeouts=Timeouts(idle=5))
    try:
        return [(await complete(model, HI, retry=ONCE)).message.text for _ in range(2)]
    finally:
        await model.aclose()


@pytest.mark.parametrize("provider", list(MODELS))
async def test_an_https_adapter_builds_one_context_ahead(
    provider: str, contexts_built: list[str], trusted: tuple[Path, Path]
) -> None:
    with FakeProviderServer([Reply(text="one"), Reply(text="two")]) as server:
        async with TlsFront(port_of(server), *trusted) as front:
            texts = await two_requests(MODELS[provider], front.url + PATHS.get(provider, ""))
    assert texts == ["one", "two"]
    assert contexts_built == ["taor-tls"]


@pytest.mark.parametrize("provider", list(MODELS))
async def test_an_http_adapter_builds_no_context(provider: str, contexts_built: list[str]) -> None:
    with FakeProviderServer([Reply(text="one"), Reply(text="two")]) as server:
        assert await two_requests(MODELS[provider], server.base_url(provider)) == ["one", "two"]
    assert contexts_built == []


async def test_a_certificate_not_trusted_is_refused(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)  # not in SSL_CERT_FILE
    with FakeProviderServer([Reply(text="never")]) as server:
        async with TlsFront(port_of(server), cert, key) as front:
            with pytest.raises(e.NetworkError, match="CERTIFICATE_VERIFY_FAILED"):
                await two_requests(MODELS["anthropic"], front.url)


@pytest.mark.parametrize("variable", [None, "SSL_CERT_DIR"])
def test_the_default_context_trusts_what_httpx2s_trusts(
    monkeypatch: pytest.MonkeyPatch, variable: str | None
) -> None:
    import httpcore2

    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    if variable:
        monkeypatch.setenv(variable, "/etc/ssl/certs")
    ours, theirs = _tls.default_context(), httpcore2.default_ssl_context()
    assert ours.cert_store_stats() == theirs.cert_store_stats()
    assert ours.get_ca_certs() == theirs.get_ca_certs()
    assert (ours.verify_mode, ours.check_hostname) == (theirs.verify_mode, theirs.check_hostname)


async def test_a_bad_ssl_cert_file_fails_the_first_request_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    model = connect("anthropic:claude-haiku-4-5", api_key="k", base_url="https://127.0.0.1:9")
    try:
        with pytest.raises(e.ProviderError, match="No such file"):
            await complete(model, HI, retry=ONCE)
    finally:
        await model.aclose()


async def test_a_child_forked_before_the_context_is_built_builds_its_own(
    monkeypatch: pytest.MonkeyPatch, trusted: tuple[Path, Path]
) -> None:
    """The building thread is not in a forked child: the child builds the context itself
    when it first sends (the thread here is held until the child has sent)."""
    built = threading.Event()
    real = _tls.default_context

    def held() -> object:
        if threading.current_thread().name == "taor-tls":
            built.wait(30)
        return real()

    monkeypatch.setattr(_tls, "default_context", held)
    with FakeProviderServer([Reply(text="from the child")]) as server:
        async with TlsFront(port_of(server), *trusted) as front:
            model = connect("anthropic:claude-haiku-4-5", api_key="k", base_url=front.url)
            pid = os.fork()
            if pid == 0:  # the child: one request, its outcome as the exit code
                code = 1
                try:
                    response = asyncio.run(complete(model, HI))
                    code = 0 if response.message.text == "from the child" else 1
                finally:
                    os._exit(code)
            _, status = await asyncio.to_thread(os.waitpid, pid, 0)
            built.set()
            await model.aclose()
    assert os.waitstatus_to_exitcode(status) == 0
