"""``RepeatNotes``: a tool result that says so when a call repeats an earlier one to no effect.

A small model at temperature 0 re-reads a file it has just read, or re-sends an edit that just
failed, word for word, until a guard stops it. The loop detector warns after a few repeats; this
says it at the first, in the result the model is reading: the same call gave the same result as
before, so nothing has changed and it should do something else or answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import field, replace
from typing import Any

from taor._records import frozen
from taor.llm.types import TextPart
from taor.tools.base import ToolOutput

NOTE = (
    "\n(You made this same call before and got this same result: nothing has changed. Do not "
    "call it again; do the next step, or reply with your answer if the task is done.)"
)


@frozen
class RepeatNotes:
    """Remembers the calls of one tool in one session (arguments and result, hashed)."""

    _seen: set[int] = field(default_factory=set, repr=False, compare=False)

    def after(self, arguments: Mapping[str, Any], output: ToolOutput) -> ToolOutput:
        """``output``, with the note appended when this exact call and result were seen."""
        key = hash(
            (json.dumps(arguments, sort_keys=True, default=str), output.is_error, output.text)
        )
        if key not in self._seen:
            self._seen.add(key)
            return output
        return replace(output, content=(*output.content, TextPart(text=NOTE)))
