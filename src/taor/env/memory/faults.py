"""The call log of ``MemoryEnvironment``: every operation recorded, faults injected on the Nth call.

An operation is a method name of the environment (``"write"``, ``"read_text"``, ``"run"``, ...)
or any name a caller routes through ``CallLog.intercept``: ``ToolRegistry`` routes every tool
call as ``"tool:<name>"`` (e.g. ``"tool:read_file"``) through ``MemoryEnvironment.intercept_tool``.
Calls are counted per operation, from 1 at the call after the fault was registered (so
``fail("write")`` hits the next write). A fault either raises its ``error`` or returns its
``result`` instead of doing the operation; ``nth=None`` applies it to every later call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field, replace
from typing import TypeVar, cast

from taor._records import frozen
from taor.errors import ConfigurationError

T = TypeVar("T")
NO_RESULT: object = object()
"""The default of ``result=``: no result given (``None`` is a valid result)."""


@frozen
class Fault:
    """Make call ``nth`` (1-based; None: every call) of ``operation`` raise or return.

    ``after`` is how many calls of ``operation`` had been made when the fault was registered.
    """

    operation: str
    nth: int | None = 1
    after: int = 0
    error: BaseException | type[BaseException] | None = None
    result: object = NO_RESULT

    def __post_init__(self) -> None:
        if (self.error is None) == (self.result is NO_RESULT):
            raise ConfigurationError("A fault needs exactly one of error= or result=.")
        if self.nth is not None and self.nth < 1:
            raise ConfigurationError("nth counts calls from 1.")

    def applies_to(self, operation: str, count: int) -> bool:
        """True when this fault hits call number ``count`` of ``operation``."""
        if operation != self.operation or count <= self.after:
            return False
        return self.nth is None or count - self.after == self.nth

    def trigger(self) -> object:
        """Raise the error, or return the result."""
        if self.error is not None:
            raise self.error
        return self.result


@frozen
class Call:
    """One recorded operation: its arguments and what came of it (a result or an error)."""

    operation: str
    arguments: Mapping[str, object] = field(default_factory=dict)
    result: object = None
    error: BaseException | None = None
    injected: bool = False

    @property
    def outcome(self) -> object:
        """The error when the call raised, else the result."""
        return self.error if self.error is not None else self.result


class CallLog:
    """Records calls in ``calls`` and applies the faults registered with ``fail``."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self._faults: list[Fault] = []
        self._counts: Counter[str] = Counter()

    def fail(
        self,
        operation: str,
        *,
        nth: int | None = 1,
        error: BaseException | type[BaseException] | None = None,
        result: object = NO_RESULT,
    ) -> Fault:
        """Make the ``nth`` call of ``operation`` from now raise ``error`` or return ``result``."""
        after = self._counts[operation]
        fault = Fault(operation=operation, nth=nth, error=error, result=result, after=after)
        self._faults.append(fault)
        return fault

    def calls_of(self, operation: str) -> list[Call]:
        """The recorded calls of one operation, in order."""
        return [call for call in self.calls if call.operation == operation]

    def _next_fault(self, operation: str) -> Fault | None:
        self._counts[operation] += 1
        count = self._counts[operation]
        return next((f for f in self._faults if f.applies_to(operation, count)), None)

    def _finish(self, call: Call, error: BaseException | None, result: object) -> None:
        self.calls.append(replace(call, result=result, error=error))

    def call(self, operation: str, arguments: Mapping[str, object], action: Callable[[], T]) -> T:
        """Do a synchronous ``action`` as call of ``operation``: faults applied, call recorded."""
        fault = self._next_fault(operation)
        pending = Call(operation=operation, arguments=dict(arguments), injected=fault is not None)
        try:
            value = cast(T, fault.trigger()) if fault is not None else action()
        except BaseException as exc:
            self._finish(pending, exc, None)
            raise
        self._finish(pending, None, value)
        return value

    async def intercept(
        self, operation: str, arguments: Mapping[str, object], action: Callable[[], Awaitable[T]]
    ) -> T:
        """Await ``action`` as a call of ``operation``: faults applied, call (and error) recorded."""
        fault = self._next_fault(operation)
        pending = Call(operation=operation, arguments=dict(arguments), injected=fault is not None)
        try:
            value = cast(T, fault.trigger()) if fault is not None else await action()
        except BaseException as exc:
            self._finish(pending, exc, None)
            raise
        self._finish(pending, None, value)
        return value
