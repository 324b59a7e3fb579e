"""What ``grep`` and ``glob`` hand back: a capped list of entries, cut for the model."""

from __future__ import annotations

from typing import Any

from taor.tools.base import ToolOutput
from taor.tools.truncation import Limits, truncate


def capped(entries: list[str], total: int, limit: int, what: str, hint: str) -> str:
    """The first ``limit`` entries, one a line, with a note when ``total`` is larger."""
    text = "\n".join(entries[:limit])
    if total > limit:
        text += f"\n[Showing {limit} of {total} {what}. {hint}]"
    return text


def cut_output(text: str, limits: Limits, metadata: dict[str, Any]) -> ToolOutput:
    """``text`` truncated for the model; the whole of it in ``metadata`` when anything was cut."""
    cut = truncate(text, limits)
    if cut.truncated:
        metadata.update(full_output=text, omitted_chars=cut.omitted_chars)
        metadata.update(omitted_lines=cut.omitted_lines)
    return ToolOutput.of(cut.text, metadata=metadata)
