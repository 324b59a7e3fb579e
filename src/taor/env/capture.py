"""Capturing a command's output: stdout and stderr apart (bytes), combined in arrival order
(text, decoded incrementally as UTF-8 with replacement), each in a bounded ``HeadTail``, and
handed to the output callback as it arrives."""

from __future__ import annotations

import asyncio
import codecs
import inspect

from taor.env.base import OutputCallback, StreamName
from taor.env.output_buffer import HeadTail, dropped_marker

_CHUNK = 1 << 16


class Capture:
    """The three bounded buffers and the output callback (whose first error is kept)."""

    def __init__(self, cap: int, on_output: OutputCallback | None) -> None:
        self.raw: dict[StreamName, HeadTail[bytes]] = {
            "stdout": HeadTail(b"", cap),
            "stderr": HeadTail(b"", cap),
        }
        self.combined: HeadTail[str] = HeadTail("", cap)
        self._on_output = on_output
        self.callback_error: BaseException | None = None

    async def pump(self, stream: asyncio.StreamReader, name: StreamName) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        raw = self.raw[name]
        while chunk := await stream.read(_CHUNK):
            raw.add(chunk)
            if (text := decoder.decode(chunk)) and self._keep(text):
                await self._emit(text, name)
        if (text := decoder.decode(b"", True)) and self._keep(text):
            await self._emit(text, name)

    def texts(self) -> tuple[str, str, str]:
        """stdout and stderr (their middles dropped in bytes) and the combined output (in
        characters), decoded. When one stream printed nothing and nothing was dropped, the
        combined output is the other's text (the same decoding): it is built once, not twice."""
        combined = self.combined.text(dropped_marker("characters"))
        out, err = self.raw["stdout"], self.raw["stderr"]
        if not (self.combined.dropped or out.dropped or err.dropped):
            if not err.added:
                return combined, "", combined
            if not out.added:
                return "", combined, combined
        marker = dropped_marker("bytes")
        return out.decoded(marker), err.decoded(marker), combined

    def _keep(self, text: str) -> bool:
        """Add ``text`` to the combined output; True when there is a callback to give it to."""
        self.combined.add(text)
        return self._on_output is not None

    async def _emit(self, text: str, name: StreamName) -> None:
        if self._on_output is None:
            return
        try:
            result = self._on_output(text, name)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # the command keeps running; the error is raised at the end
            self.callback_error, self._on_output = exc, None
