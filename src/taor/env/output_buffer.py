"""A head-and-tail buffer: memory stays bounded however much output a command prints."""

from __future__ import annotations

from collections import deque
from typing import AnyStr, Generic, Literal


def dropped_marker(unit: Literal["bytes", "characters"]) -> str:
    """The template of the note left where the middle was dropped (``{n}``: how many)."""
    return "\n[... {n} " + unit + " of output dropped here to bound memory ...]\n"


class HeadTail(Generic[AnyStr]):
    """Keeps the first ``cap`` and the last ``cap`` units (bytes or characters) added."""

    def __init__(self, empty: AnyStr, cap: int) -> None:
        self._empty: AnyStr = empty
        self._cap = cap
        self._head: list[AnyStr] = []  # chunks, joined once at the end (no quadratic copying)
        self._head_size = 0
        self._tail: deque[AnyStr] = deque()
        self._tail_size = 0
        self._dropped = 0

    def add(self, data: AnyStr) -> None:
        room = self._cap - self._head_size
        if room > 0:
            part = data if len(data) <= room else data[:room]
            self._head.append(part)
            self._head_size += len(part)
            data = data[len(part) :]
        if not data:
            return
        self._tail.append(data)
        self._tail_size += len(data)
        while self._tail and self._tail_size - len(self._tail[0]) >= self._cap:
            first = self._tail.popleft()
            self._tail_size -= len(first)
            self._dropped += len(first)

    @property
    def added(self) -> int:
        """Units added so far."""
        return self._head_size + self._tail_size + self._dropped

    @property
    def dropped(self) -> int:
        """Units dropped from the middle so far."""
        return self._dropped + max(0, self._tail_size - self._cap)

    def parts(self) -> tuple[AnyStr, AnyStr]:
        """The head and the tail (each at most ``cap``)."""
        tail = self._empty.join(self._tail)
        return self._empty.join(self._head), tail[max(0, len(tail) - self._cap) :]

    def text(self: HeadTail[str], marker: str) -> str:
        """Head and tail joined, with ``marker`` (formatted with ``n``) between when cut."""
        head, tail = self.parts()
        return head + marker.format(n=self.dropped) + tail if self.dropped else head + tail

    def decoded(self: HeadTail[bytes], marker: str) -> str:
        """Head and tail decoded as UTF-8 with replacement, ``marker`` between when cut."""
        head, tail = self.parts()
        if not self.dropped:
            return (head + tail).decode("utf-8", "replace")
        middle = marker.format(n=self.dropped)
        return head.decode("utf-8", "replace") + middle + tail.decode("utf-8", "replace")
