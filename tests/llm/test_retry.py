import email.utils
import time
from collections.abc import AsyncIterator

import pytest

from taor.errors import (
    AuthenticationError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from taor.llm import (
    Finish,
    FinishReason,
    Message,
    Request,
    RetryInfo,
    RetryPolicy,
    StreamStart,
    TextDelta,
    complete,
)
from taor.llm.retry import call_with_retry, parse_retry_after, retry_stream


async def test_retries_retryable_errors_with_backoff(no_sleep) -> None:
    calls = 0
    seen: list[RetryInfo] = []

    async def flaky() -> str:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise ServerError("boom", provider="x")
        return "ok"

    policy = RetryPolicy(base_delay=1.0, multiplier=2.0, jitter=0.0)
    assert await call_with_retry(flaky, policy, seen.append, no_sleep) == "ok"
    assert no_sleep.delays == [1.0, 2.0]
    assert [(i.attempt, i.delay) for i in seen] == [(1, 1.0), (2, 2.0)]
    assert isinstance(seen[0].error, ServerError)


async def test_retry_after_replaces_backoff(no_sleep) -> None:
    errors = [RateLimitError("slow down", retry_after=7.5)]

    async def fn() -> str:
        if errors:
            raise errors.pop()
        return "ok"

    assert await call_with_retry(fn, RetryPolicy(), None, no_sleep) == "ok"
    assert no_sleep.delays == [7.5]


async def test_retry_after_beyond_cap_raises_at_once(no_sleep) -> None:
    async def fn() -> str:
        raise RateLimitError("come back tomorrow", retry_after=3600)

    with pytest.raises(RateLimitError):
        await call_with_retry(fn, RetryPolicy(max_retry_after=60), None, no_sleep)
    assert no_sleep.delays == []


async def test_non_retryable_errors_raise_at_once(no_sleep) -> None:
    calls = 0

    async def fn() -> str:
        nonlocal calls
        calls += 1
        raise AuthenticationError("bad key")

    with pytest.raises(AuthenticationError):
        await call_with_retry(fn, RetryPolicy(), None, no_sleep)
    assert calls == 1


async def test_gives_up_after_max_attempts(no_sleep) -> None:
    async def fn() -> str:
        raise ServerError("down")

    with pytest.raises(ServerError):
        await call_with_retry(fn, RetryPolicy(max_attempts=3, jitter=0), None, no_sleep)
    assert len(no_sleep.delays) == 2


def test_jitter_stays_within_bounds() -> None:
    policy = RetryPolicy(base_delay=2.0, multiplier=2.0, max_delay=30.0, jitter=0.25)
    for attempt, base in [(1, 2.0), (2, 4.0), (5, 30.0)]:
        for _ in range(50):
            assert base * 0.75 <= policy.delay(attempt, None) <= base * 1.25


def _stream_factory(plan: list[str]):
    """Each call opens a stream that fails per the next plan item."""
    opened = 0

    def open_stream() -> AsyncIterator:
        nonlocal opened
        mode = plan[opened]
        opened += 1

        async def gen():
            yield StreamStart(id=f"s{opened}")
            if mode == "fail_early":
                raise ServerError("before content")
            yield TextDelta(index=0, text="hello")
            if mode == "fail_late":
                raise StreamInterruptedError("after content")
            yield Finish(reason=FinishReason(reason="stop"))

        return gen()

    return open_stream, lambda: opened


async def test_stream_retried_before_content(no_sleep) -> None:
    open_stream, opened = _stream_factory(["fail_early", "fail_early", "ok"])
    items = [e async for e in retry_stream(open_stream, RetryPolicy(jitter=0), no_sleep)]
    assert opened() == 3
    kinds = [e.kind for e in items]
    assert kinds == ["start", "retry", "start", "retry", "start", "text_delta", "finish"]
    assert [e.discarded for e in items if isinstance(e, RetryInfo)] == [False, False]


async def test_stream_retried_after_content_marks_it_discarded(no_sleep) -> None:
    """The one rule: a stream broken after content is retried from the start, and the retry
    says the content before it is void."""
    open_stream, opened = _stream_factory(["fail_late", "ok"])
    items = [e async for e in retry_stream(open_stream, RetryPolicy(jitter=0), no_sleep)]
    assert opened() == 2
    assert [e.kind for e in items] == [
        "start",
        "text_delta",
        "retry",
        "start",
        "text_delta",
        "finish",
    ]
    retry = items[2]
    assert isinstance(retry, RetryInfo)
    assert retry.discarded and isinstance(retry.error, StreamInterruptedError)


async def test_complete_drops_what_a_broken_attempt_delivered(no_sleep) -> None:
    plan = iter(["fail_late", "ok"])

    class Flaky:
        provider = "test"
        model_id = "m"

        def stream(self, request: Request) -> AsyncIterator:
            mode = next(plan)

            async def gen():
                yield StreamStart()
                yield TextDelta(index=0, text="partial " if mode == "fail_late" else "whole")
                if mode == "fail_late":
                    raise StreamInterruptedError("cut")
                yield Finish(reason=FinishReason(reason="stop"))

            return gen()

        async def aclose(self) -> None:
            pass

    seen: list[RetryInfo] = []
    request = Request(messages=(Message.user("hi"),))
    response = await complete(
        Flaky(), request, retry=RetryPolicy(), on_retry=seen.append, sleep=no_sleep
    )
    assert response.text == "whole"
    assert [info.discarded for info in seen] == [True]


async def test_stream_gives_up_after_max_attempts(no_sleep) -> None:
    open_stream, opened = _stream_factory(["fail_late", "fail_late", "fail_late"])
    received = []

    async def consume() -> None:
        async for event in retry_stream(open_stream, RetryPolicy(max_attempts=3), no_sleep):
            received.append(event.kind)

    with pytest.raises(StreamInterruptedError):
        await consume()
    assert opened() == 3
    assert received.count("retry") == 2


def test_parse_retry_after() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= parse_retry_after(date, now) <= 31
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now) == 0.0
