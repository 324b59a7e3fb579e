"""Capturing a command's output: stdout and stderr apart (bytes), combined in arrival order
(text, decoded incrementally as UTF-8 with replacement), each in a bounded ``HeadTail``, and
handed to the output callback as it arrives.

With a ``spill`` path, the combined output is also kept whole on disk once it no longer fits
its buffer: at the moment the buffer would first drop something, everything so far (still all
in memory) is written to a new file at that path (mode 0600, its directory created 0700), and
every later piece is appended. Output that fits creates no file."""

from __future__ import annotations

import asyncio
import codecs
import inspect
import os
from pathlib import Path
from typing import IO

from taor.env.base import OutputCallback, StreamName
from taor.env.output_buffer import HeadTail, dropped_marker

_CHUNK = 1 << 16


class Capture:
    """The three bounded buffers and the output callback (whose first error is kept)."""

    def __init__(
        self, cap: int, on_output: OutputCallback | None, spill: str | None = None
    ) -> None:
        self.raw: dict[StreamName, HeadTail[bytes]] = {
            "stdout": HeadTail(b"", cap),
            "stderr": HeadTail(b"", cap),
        }
        self.combined: HeadTail[str] = HeadTail("", cap)
        self._on_output = on_output
        self.callback_error: BaseException | None = None
        self._cap = cap
        self._spill_path = spill
        self._spill: IO[str] | None = None
        self.spilled: str | None = None  # the path, once the whole output is there

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

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()

    def _keep(self, text: str) -> bool:
        """Add ``text`` to the combined output; True when there is a callback to give it to."""
        if self._spill_path is not None and self.combined.added + len(text) > 2 * self._cap:
            self._write_spill(self._spill_path, text)
        self.combined.add(text)
        return self._on_output is not None

    def _write_spill(self, path: str, text: str) -> None:
        if self._spill is None:
            head, tail = self.combined.parts()  # nothing dropped yet: this is all of it
            self._spill = _create(Path(path))
            self._spill.write(head + tail)
            self.spilled = path
        self._spill.write(text)

    async def _emit(self, text: str, name: StreamName) -> None:
        if self._on_output is None:
            return
        try:
            result = self._on_output(text, name)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # the command keeps running; the error is raised at the end
            self.callback_error, self._on_output = exc, None


def _create(path: Path) -> IO[str]:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    return open(fd, "w", encoding="utf-8", errors="replace", newline="")
