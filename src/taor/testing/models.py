"""Model-level test doubles: ``ScriptedModel`` (a queue of steps) and ``FunctionModel``."""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from taor.errors import TaorError
from taor.llm.events import StreamEvent
from taor.llm.response import Response
from taor.llm.types import Request
from taor.testing.script import Reply, ToolCall, reply_events


class ScriptExhaustedError(TaorError, AssertionError):
    """The code under test made more model calls than the script has steps."""


class _TestModel:
    """What both doubles share: identity, the recorded requests, call ids and the sleep."""

    def __init__(
        self, provider: str, model_id: str, sleep: Callable[[float], Awaitable[None]]
    ) -> None:
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

    async def _play(self, step: Any, request: Request) -> AsyncIterator[StreamEvent]:
        step = await _resolve(step, request)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, Response):
            step = _reply_of(step)
        if not isinstance(step, Reply):
            raise TypeError(
                f"a scripted step must be a Reply, a Response or an exception, not {step!r}"
            )
        if step.delay:
            await self._sleep(step.delay)
        chars = len(request.system) + sum(len(m.text) for m in request.messages)
        for event in reply_events(step, call_ids=self._ids, input_chars=chars):
            yield event

    async def aclose(self) -> None:
        return None


class ScriptedModel(_TestModel):
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
        super().__init__(provider, model_id, sleep)
        self._steps: deque[Any] = deque(steps)

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
        async for event in self._play(self._steps.popleft(), request):
            yield event


class FunctionModel(_TestModel):
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
        super().__init__(provider, model_id, sleep)
        self._fn = fn

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        async for event in self._play(self._fn, request):
            yield event


async def _resolve(step: Any, request: Request) -> Any:
    while callable(step) and not isinstance(step, (Reply, Response, BaseException, type)):
        step = step(request)
        if inspect.isawaitable(step):
            step = await step
    return step


def _reply_of(response: Response) -> Reply:
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
