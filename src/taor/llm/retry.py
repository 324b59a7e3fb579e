"""The one retry policy for model calls, and the one loop that applies it.

Only errors marked ``retryable`` are retried, with exponential backoff and jitter. A provider's
Retry-After (seconds or an HTTP date) replaces the backoff when it is within ``max_retry_after``;
beyond that the error is raised at once (waiting minutes in silence helps nobody). SDK-level
retries are switched off in every adapter, so this is the only retry in the stack.

The rule for a stream that breaks after part of it arrived: it is retried from the start like
any other failure. A model call has no side effects (no tool runs before its stream has ended),
so asking again is safe; what matters is that the consumer drops what it received.
``retry_stream`` therefore puts a ``RetryInfo`` between two attempts, with ``discarded`` set when
the failed attempt had delivered content, and everything received since the last ``RetryInfo``
is void. ``complete`` starts its assembler afresh; the session's model call tells its host with
the ``retry`` event's ``discarded_text``. Both go through ``retry_stream``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Literal, TypeVar

from taor._records import frozen
from taor.errors import ProviderError
from taor.llm.events import StreamEvent, StreamStart

T = TypeVar("T")


@frozen
class RetryInfo:
    """Between two attempts: which one failed, how long until the next, why, and whether the
    failed attempt had delivered content that the consumer must now discard."""

    kind: Literal["retry"] = "retry"
    attempt: int
    delay: float
    error: ProviderError
    discarded: bool = False


OnRetry = Callable[[RetryInfo], None]
Sleep = Callable[[float], Awaitable[None]]


@frozen
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

    def next_delay(self, attempt: int, error: BaseException) -> float | None:
        """Seconds to wait before retrying after the ``attempt``-th failure, or None: give up."""
        if attempt >= max(1, self.max_attempts) or not self.should_retry(error):
            return None
        return self.delay(attempt, error)


NO_RETRY = RetryPolicy(max_attempts=1)


async def call_with_retry(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    on_retry: OnRetry | None = None,
    sleep: Sleep | None = None,
) -> T:
    attempt = 0
    while True:
        attempt += 1
        try:
            return await fn()
        except ProviderError as error:
            if (delay := policy.next_delay(attempt, error)) is None:
                raise
            info = RetryInfo(attempt=attempt, delay=delay, error=error)
        if on_retry is not None:
            on_retry(info)
        await (sleep or asyncio.sleep)(delay)


async def retry_stream(
    open_stream: Callable[[], AsyncIterator[StreamEvent]],
    policy: RetryPolicy,
    sleep: Sleep | None = None,
) -> AsyncIterator[StreamEvent | RetryInfo]:
    """Events of ``open_stream()``, reopened on retryable errors, a ``RetryInfo`` before each
    new attempt (see the module docstring for what it asks of the consumer)."""
    attempt = 0
    while True:
        attempt += 1
        delivered = False
        try:
            async with aclosing(open_stream()) as stream:  # type: ignore[type-var]
                async for event in stream:
                    delivered = delivered or not isinstance(event, StreamStart)
                    yield event
            return
        except ProviderError as error:
            if (delay := policy.next_delay(attempt, error)) is None:
                raise
            info = RetryInfo(attempt=attempt, delay=delay, error=error, discarded=delivered)
        yield info
        await (sleep or asyncio.sleep)(delay)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header: delta-seconds or an HTTP date; None if unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # an HTTP date is rare: most servers send seconds

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
