"""Each adapter builds its TLS context in a thread of its own from construction, once, and
every client it makes (the real SDK's, against the fake server) uses that one: the first
request does not wait for a CA bundle to load."""

from __future__ import annotations

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
