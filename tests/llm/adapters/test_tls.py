"""Each adapter builds its TLS context in a thread of its own from construction, once, and
every client it makes (its RawClient, against the fake server) uses that one: the first
request does not wait for a CA bundle to load."""

from __future__ import annotations

import asyncio
import os
import threading

import httpcore2
import pytest

from taor.llm import Message, Request, Timeouts, complete, connect
from taor.testing import FakeProviderServer, Reply

from .support import ONCE

MODELS = {
    "anthropic": "anthropic:claude-haiku-4-5",
    "openai": "openai:gpt-5.1",
    "openai-compat": "openai-compat:qwen2.5-coder",
    "gemini": "gemini:gemini-2.5-pro",
}


@pytest.fixture
def contexts_built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that build a default TLS context (loading the CA bundle),
    one entry per context: httpx2 builds every ``verify=True`` context through
    ``httpcore2.default_ssl_context``."""
    built: list[str] = []
    real = httpcore2.default_ssl_context

    def spy(*args: object, **kwargs: object) -> object:
        built.append(threading.current_thread().name)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(httpcore2, "default_ssl_context", spy)
    return built


@pytest.mark.parametrize("provider", list(MODELS))
async def test_the_first_request_does_not_build_a_tls_context(
    provider: str, contexts_built: list[str]
) -> None:
    with FakeProviderServer([Reply(text="one"), Reply(text="two")]) as server:
        model = connect(
            MODELS[provider],
            api_key="test-key",
            base_url=server.base_url(provider),
            timeouts=Timeouts(idle=5),
        )
        try:
            for _ in range(2):
                request = Request(messages=(Message.user("hi"),))
                response = await complete(model, request, retry=ONCE)
                assert response.message.text in ("one", "two")
        finally:
            await model.aclose()
    assert contexts_built == ["taor-tls"]


def test_a_child_forked_before_the_context_is_built_builds_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The building thread is not in a forked child: the child builds the context itself
    when it first sends (the thread here is held until the child has sent)."""
    built = threading.Event()
    real = httpcore2.default_ssl_context

    def held(*args: object, **kwargs: object) -> object:
        if threading.current_thread().name == "taor-tls":
            built.wait(30)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(httpcore2, "default_ssl_context", held)
    with FakeProviderServer([Reply(text="from the child")]) as server:
        model = connect("anthropic:claude-haiku-4-5", api_key="k", base_url=server.url)
        pid = os.fork()
        if pid == 0:  # the child: one request, its outcome as the exit code
            code = 1
            try:
                response = asyncio.run(complete(model, Request(messages=(Message.user("hi"),))))
                code = 0 if response.message.text == "from the child" else 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        built.set()
        asyncio.run(model.aclose())
    assert os.waitstatus_to_exitcode(status) == 0
