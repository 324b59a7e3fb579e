"""A small, fast Server-Sent Events parser over a byte stream (WHATWG framing: ``event:``,
multi-line ``data:``, ``id:``/``retry:`` ignored, ``:`` comments, CRLF or LF line ends)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SSEvent:
    event: str
    data: str


class SSEDecoder:
    """Incremental decoder: feed bytes, get the events completed so far."""

    __slots__ = ("_buffer", "_data", "_event")

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[SSEvent]:
        buffer = self._buffer + chunk if self._buffer else chunk
        if b"\r" in buffer:
            if buffer.endswith(b"\r"):  # a CRLF may be split across chunks
                self._buffer = buffer
                return []
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = buffer.split(b"\n")
        self._buffer = lines.pop()
        events: list[SSEvent] = []
        for line in lines:
            if not line:
                if self._data or self._event:
                    events.append(SSEvent(self._event or "message", "\n".join(self._data)))
                    self._event, self._data = "", []
            elif line.startswith(b"data:"):
                value = line[5:]
                self._data.append(
                    (value[1:] if value[:1] == b" " else value).decode("utf-8", "replace")
                )
            elif line.startswith(b"event:"):
                self._event = line[6:].strip().decode("utf-8", "replace")
        return events

    def flush(self) -> list[SSEvent]:
        """Events still pending when the stream ends without a trailing blank line."""
        events = self.feed(b"\n\n") if self._buffer or self._data else []
        self._buffer = b""
        return events
