"""Streamed text cut into finished markdown blocks, so each can be rendered as markdown as soon
as it is complete while the rest is still arriving.

A block ends at a blank line outside a code fence, or with the line that closes a fence. What
is left (the block still being written) is ``pending``; ``finish`` hands it over at the end of
the response.
"""

from __future__ import annotations

FENCES = ("```", "~~~")


class BlockSplitter:
    def __init__(self) -> None:
        self.pending = ""

    def feed(self, delta: str) -> list[str]:
        """Add ``delta``; return the blocks it completed, in order."""
        self.pending += delta
        blocks: list[str] = []
        while (cut := self._boundary()) is not None:
            block, self.pending = self.pending[:cut], self.pending[cut:]
            self.pending = self.pending.lstrip("\n")
            if block.strip():
                blocks.append(block.rstrip("\n"))
        return blocks

    def finish(self) -> str:
        """The unfinished block (possibly empty), and a fresh start."""
        rest, self.pending = self.pending.strip("\n"), ""
        return rest

    def _boundary(self) -> int | None:
        """Where the first finished block ends in ``pending`` (only whole lines count)."""
        fence: str | None = None
        offset = 0
        has_text = False
        for line in self.pending.splitlines(keepends=True):
            offset += len(line)
            if not line.endswith("\n"):
                return None  # the line is still being written
            stripped = line.strip()
            opener = next((f for f in FENCES if stripped.startswith(f)), None)
            if fence is None and opener is not None:
                fence, has_text = opener, True
            elif fence is not None:
                if stripped.startswith(fence) and stripped.strip(fence[0]) == "":
                    return offset  # the fence closed: the code block is done
            elif not stripped:
                if has_text:
                    return offset
            else:
                has_text = True
        return None
