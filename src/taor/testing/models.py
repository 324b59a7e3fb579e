"""Model-level test doubles: ``ScriptedModel`` (a queue of steps) and ``FunctionModel``."""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from taor.llm.events import StreamEvent
from taor.llm.types import Request, Response
from taor.testing.script import Reply, reply_events


class ScriptExhaustedError(AssertionError):
    """The code under test made more model calls than the script has steps."""


class ScriptedModel:
    """Answers each call with the next step of its script and records every request.

    Steps: ``Reply`` objects, ``ProviderError`` instances (raised), or callables taking the
    ``Request`` and returning either. ``assert_done()`` checks every step was used."""

    def __init__(
        self,
        steps: Iterable[Any] = (),
        *,
        provider: str = "scripted",
        model_id: str = "scripted-model",
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._steps: deque[Any] = deque(steps)
        self._provider = provider
        self._model_id = model_id
        self._sleep = sleep
        self._ids = (f"call_{n}" for n in itertools.count(1))
        self.requests: list[Request] = []

    @property
    def provider(self) -> str:
        return self._provider

    @property
    def model_id(self) -> str:
        return self._model_id

    def push(self, *steps: Any) -> None:
        self._steps.extend(steps)

    @property
    def remaining(self) -> int:
        return len(self._steps)

    def assert_done(self) -> None:
        if self._steps:
            raise AssertionError(
                f"{len(self._steps)} scripted step(s) were never used: {list(self._steps)!r}"
            )

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        if not self._steps:
            raise ScriptExhaustedError(
                f"no scripted step left for model call #{len(self.requests)}"
            )
        step = await _resolve(self._steps.popleft(), request)
        async for event in _play(step, request, self._ids, self._sleep):
            yield event

    async def aclose(self) -> None:
        return None


class FunctionModel:
    """Computes each response from the request: ``fn(request)`` returns a ``Reply`` (or a
    ``Response``, or raises), and may be async."""

    def __init__(
        self,
        fn: Callable[[Request], Any],
        *,
        provider: str = "function",
        model_id: str = "function-model",
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._fn = fn
        self._provider = provider
        self._model_id = model_id
        self._sleep = sleep
        self._ids = (f"call_{n}" for n in itertools.count(1))
        self.requests: list[Request] = []

    @property
    def provider(self) -> str:
        return self._provider

    @property
    def model_id(self) -> str:
        return self._model_id

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        step = await _resolve(self._fn, request)
        async for event in _play(step, request, self._ids, self._sleep):
            yield event

    async def aclose(self) -> None:
        return None


async def _resolve(step: Any, request: Request) -> Any:
    while callable(step) and not isinstance(step, (Reply, Response, BaseException, type)):
        step = step(request)
        if inspect.isawaitable(step):
            step = await step
    return step


async def _play(
    step: Any, request: Request, ids: Any, sleep: Callable[[float], Awaitable[None]]
) -> AsyncIterator[StreamEvent]:
    if isinstance(step, BaseException):
        raise step
    if isinstance(step, Response):
        step = _reply_of(step)
    if not isinstance(step, Reply):
        raise TypeError(
            f"a scripted step must be a Reply, a Response or an exception, not {step!r}"
        )
    if step.delay:
        await sleep(step.delay)
    chars = len(request.system) + sum(len(m.text) for m in request.messages)
    for event in reply_events(step, call_ids=ids, input_chars=chars):
        yield event


def _reply_of(response: Response) -> Reply:
    from taor.testing.script import ToolCall

    calls = tuple(
        ToolCall(name=c.name, arguments=c.raw_arguments or dict(c.arguments), id=c.id)
        for c in response.tool_calls
    )
    return Reply(
        text=response.text,
        thinking=response.reasoning or "",
        tool_calls=calls,
        usage=response.usage,
        finish=response.finish_reason.reason,
        id=response.id,
    )
