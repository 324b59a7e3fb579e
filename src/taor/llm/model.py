"""The seam between taor and a model: the ``Model`` protocol, timeouts, and ``complete``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Protocol, runtime_checkable

from taor._records import frozen
from taor.llm.assembler import Assembler
from taor.llm.events import StreamEvent
from taor.llm.response import Response
from taor.llm.retry import OnRetry, RetryInfo, RetryPolicy, Sleep, retry_stream
from taor.llm.types import Request


@runtime_checkable
class Model(Protocol):
    """Anything that streams a response to a request: the provider adapters and the test
    doubles in ``taor.testing``. ``provider`` is the family (``anthropic``, ``openai``,
    ``openai-compat``, ``gemini``, ...); ``model_id`` is used when a request names none."""

    @property
    def provider(self) -> str: ...

    @property
    def model_id(self) -> str: ...

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...


@frozen
class Timeouts:
    """Timeouts that suit reasoning models: a short connect timeout and an idle timeout (the
    longest silence allowed between two bytes of a stream), never a whole-request deadline."""

    connect: float = 10.0
    idle: float = 180.0
    write: float = 60.0


async def complete(
    model: Model,
    request: Request,
    *,
    retry: RetryPolicy | None = None,
    on_retry: OnRetry | None = None,
    sleep: Sleep | None = None,
) -> Response:
    """Stream ``request`` through ``model`` with the retry policy and assemble the response
    (afresh after a retry: what a broken attempt delivered is dropped)."""
    assembler = Assembler(model.provider)
    items = retry_stream(lambda: model.stream(request), retry or RetryPolicy(), sleep)
    async with aclosing(items):  # type: ignore[type-var]
        async for item in items:
            if isinstance(item, RetryInfo):
                assembler = Assembler(model.provider)
                if on_retry is not None:
                    on_retry(item)
            else:
                assembler.feed(item)
    return assembler.response()
