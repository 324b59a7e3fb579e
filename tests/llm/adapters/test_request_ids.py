"""Every ``ProviderError`` carries the provider's request id, through each adapter
against the fake server: HTTP errors, in-stream error events and broken streams alike."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest

from taor import errors as e
from taor.llm import Message, Model, Request, Timeouts, complete, connect
from taor.testing import (
    FakeProviderServer,
    Fault,
    HttpError,
    Reply,
    disconnect,
    error_event,
    rate_limited,
    server_error,
)

from .support import ONCE

MODELS = {
    "anthropic": "anthropic:claude-haiku-4-5",
    "openai": "openai:gpt-5.1",
    "openai-compat": "openai-compat:qwen2.5-coder",
    "gemini": "gemini:gemini-2.5-pro",
}
WITH_HEADER = ("anthropic", "openai", "openai-compat")
HEADER = {"anthropic": "request-id", "openai": "x-request-id", "openai-compat": "x-request-id"}


@contextlib.asynccontextmanager
async def opened(provider: str, server: FakeProviderServer) -> AsyncIterator[Model]:
    model = connect(
        MODELS[provider],
        api_key="test-key",
        base_url=server.base_url(provider),
        timeouts=Timeouts(idle=2),
    )
    try:
        yield model
    finally:
        await model.aclose()


def ask() -> Request:
    return Request(messages=(Message.user("hi"),))


async def failure(model: Model) -> e.ProviderError:
    with pytest.raises(e.ProviderError) as caught:
        await complete(model, ask(), retry=ONCE)
    return caught.value


@pytest.mark.parametrize("provider", WITH_HEADER)
@pytest.mark.parametrize(
    "step", [rate_limited(1), server_error(), disconnect(after=3), error_event(after=2)]
)
async def test_errors_carry_the_request_id_from_the_headers(
    provider: str, fake_server: FakeProviderServer, step: HttpError | Fault
) -> None:
    fake_server.push(step)
    async with opened(provider, fake_server) as model:
        error = await failure(model)
    sent = fake_server.requests[-1]
    assert sent.request_id and sent.request_id.startswith("req_fake")
    assert error.request_id == sent.request_id
    assert f"request id {sent.request_id}" in str(error)


@pytest.mark.parametrize("provider", WITH_HEADER)
async def test_a_header_set_by_the_server_is_the_one_reported(
    provider: str, fake_server: FakeProviderServer
) -> None:
    fake_server.push(HttpError(status=400, headers={HEADER[provider]: "req_from_upstream"}))
    async with opened(provider, fake_server) as model:
        error = await failure(model)
    assert isinstance(error, e.InvalidRequestError)
    assert error.request_id == "req_from_upstream"


async def test_gemini_errors_in_a_stream_carry_its_response_id(
    fake_server: FakeProviderServer,
) -> None:
    reply = Reply(text="a long answer that breaks", chunk=4, id="SVV8aY6uBqe6qtsP")
    fake_server.push(Fault(what="error_event", after=2, reply=reply), server_error())
    async with opened("gemini", fake_server) as model:
        error = await failure(model)
        assert isinstance(error, e.OverloadedError)
        assert error.request_id == "SVV8aY6uBqe6qtsP" and "SVV8aY6uBqe6qtsP" in str(error)
        assert (await failure(model)).request_id is None  # no stream, no header: none given


def test_str_without_a_request_id_is_unchanged() -> None:
    error = e.RateLimitError("slow down", provider="openai", status=429)
    assert str(error) == "openai RateLimitError (HTTP 429): slow down"
    error.request_id = "req_1"
    assert str(error) == "openai RateLimitError (HTTP 429, request id req_1): slow down"
