"""The one retry policy for model calls, on tenacity.

Only errors marked ``retryable`` are retried, with exponential backoff and jitter. A provider's
Retry-After (seconds or an HTTP date) replaces the backoff when it is within ``max_retry_after``;
beyond that the error is raised at once (waiting minutes in silence helps nobody). SDK-level
retries are switched off in every adapter, so this is the only retry in the stack.

A stream is retried only while nothing of it has reached the consumer: ``stream_with_retry``
holds back the ``start`` event until the first real event arrives, and from then on an error
propagates unretried.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from taor.errors import ProviderError
from taor.llm.events import StreamEvent, StreamStart

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True, slots=True)
class RetryInfo:
    """Reported before each retry: which attempt failed, how long until the next, and why."""

    attempt: int
    delay: float
    error: ProviderError


OnRetry = Callable[[RetryInfo], None]
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, kw_only=True, slots=True)
class RetryPolicy:
    max_attempts: int = 5
    base_delay: float = 1.0
    multiplier: float = 2.0
    max_delay: float = 30.0
    jitter: float = 0.25
    max_retry_after: float = 120.0

    def should_retry(self, error: BaseException) -> bool:
        if not isinstance(error, ProviderError) or not error.retryable:
            return False
        return error.retry_after is None or error.retry_after <= self.max_retry_after

    def delay(self, attempt: int, error: BaseException | None) -> float:
        """Seconds to wait after the ``attempt``-th (1-based) failed attempt."""
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            return max(0.0, float(retry_after))
        backoff = min(self.max_delay, self.base_delay * self.multiplier ** (attempt - 1))
        return backoff * (1 + random.uniform(-self.jitter, self.jitter))

    def retrying(
        self, on_retry: OnRetry | None = None, sleep: Sleep | None = None
    ) -> AsyncRetrying:
        def wait(state: RetryCallState) -> float:
            error = state.outcome.exception() if state.outcome else None
            return self.delay(state.attempt_number, error)

        def report(state: RetryCallState) -> None:
            error = state.outcome.exception() if state.outcome else None
            if on_retry is not None and isinstance(error, ProviderError):
                delay = state.next_action.sleep if state.next_action else 0.0
                on_retry(RetryInfo(attempt=state.attempt_number, delay=delay, error=error))

        return AsyncRetrying(
            stop=stop_after_attempt(max(1, self.max_attempts)),
            wait=wait,
            retry=retry_if_exception(self.should_retry),
            before_sleep=report,
            reraise=True,
            sleep=sleep or asyncio.sleep,
        )


NO_RETRY = RetryPolicy(max_attempts=1)


async def call_with_retry(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    on_retry: OnRetry | None = None,
    sleep: Sleep | None = None,
) -> T:
    async for attempt in policy.retrying(on_retry, sleep):
        with attempt:
            return await fn()
    raise AssertionError("unreachable: tenacity reraises the last error")


async def stream_with_retry(
    open_stream: Callable[[], AsyncIterator[StreamEvent]],
    policy: RetryPolicy,
    on_retry: OnRetry | None = None,
    sleep: Sleep | None = None,
) -> AsyncIterator[StreamEvent]:
    """Events of ``open_stream()``, reopened on retryable errors until the first real event."""
    stream: AsyncIterator[StreamEvent] | None = None
    held: list[StreamEvent] = []
    async for attempt in policy.retrying(on_retry, sleep):
        with attempt:
            stream, held = await _open_until_content(open_stream)
    assert stream is not None
    async with aclosing(stream):  # type: ignore[type-var]
        for event in held:
            yield event
        async for event in stream:
            yield event


async def _open_until_content(
    open_stream: Callable[[], AsyncIterator[StreamEvent]],
) -> tuple[AsyncIterator[StreamEvent], list[StreamEvent]]:
    stream = open_stream()
    held: list[StreamEvent] = []
    try:
        async for event in stream:
            held.append(event)
            if not isinstance(event, StreamStart):
                break
    except BaseException:
        await stream.aclose()  # type: ignore[attr-defined]
        raise
    return stream, held


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header: delta-seconds or an HTTP date; None if unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
