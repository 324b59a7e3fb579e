"""What a list of sessions needs from a JSONL transcript, without reading all of it.

``summarize(path)`` reads the header (line 1), the first user input (the next lines) and,
from the end of the file backwards, the last assistant turn, whose ``session_calls`` and
``session_cost`` are the session's totals so far: a few kilobytes whatever the file's size.
A transcript written before those totals were recorded is read whole instead. A torn last
line is passed over; a file that is not a transcript is a ``TranscriptError``.

``recorded_totals(turns)`` gives the same totals from turns in memory (a resumed session
counts on from them).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from taor._records import frozen
from taor.agent.record.codec import turn_from_json
from taor.agent.record.store_load import load, parse_header
from taor.agent.record.turns import AssistantTurn, Turn, UserTurn
from taor.errors import TranscriptError

_BLOCK = 64 * 1024
_HEAD_LINES = 16  # the first user input is line 2 unless something unusual came first
_ASSISTANT = b'{"kind":"assistant"'
_USER = b'{"kind":"user"'


@frozen
class TranscriptSummary:
    """One session at a glance: ``model`` is the latest response's (the header's before any);
    ``cost`` is None when a response could not be priced."""

    path: Path
    session_id: str
    created: float
    cwd: str
    provider: str
    model: str
    first_prompt: str
    model_calls: int
    cost: float | None


def summarize(path: str | os.PathLike[str]) -> TranscriptSummary:
    path = Path(path)
    try:
        with path.open("rb") as file:
            header = parse_header(path, file.readline())
            first = _first_prompt(file)
            last = _last_assistant(file, file.seek(0, os.SEEK_END))
    except OSError as error:
        raise TranscriptError(f"{path}: cannot read it ({error.strerror})") from None
    if last is not None and last.session_calls:
        calls, cost = last.session_calls, last.session_cost
    elif last is None:
        calls, cost = 0, 0.0
    else:  # written before the totals were recorded
        calls, cost = recorded_totals(load(path).turns)
    return TranscriptSummary(
        path=path,
        session_id=header.session_id,
        created=header.created,
        cwd=header.cwd,
        provider=last.provider if last and last.provider else header.provider,
        model=last.model if last and last.model else header.model,
        first_prompt=first,
        model_calls=calls,
        cost=cost,
    )


def recorded_totals(turns: Sequence[Turn]) -> tuple[int, float | None]:
    """The model calls and cost of the session the turns record: the last assistant turn's
    totals, or (when it has none) the count of responses and the sum of their costs."""
    replies = [turn for turn in turns if isinstance(turn, AssistantTurn)]
    if replies and replies[-1].session_calls:
        return replies[-1].session_calls, replies[-1].session_cost
    costs = [turn.cost for turn in replies if not turn.partial]
    total = None if None in costs else sum(cost for cost in costs if cost is not None)
    return len(replies), total


def _first_prompt(file: BinaryIO) -> str:
    for _ in range(_HEAD_LINES):
        line = file.readline()
        if not line:
            break
        if line.startswith(_USER):
            turn = _decode(line)
            if isinstance(turn, UserTurn):
                return turn.text
    return ""


def _last_assistant(file: BinaryIO, end: int) -> AssistantTurn | None:
    """The last assistant turn that decodes, read from the end in blocks."""
    rest = b""  # the start of a line whose beginning is in the blocks not read yet
    while end > 0:
        start = max(0, end - _BLOCK)
        file.seek(start)
        lines = (file.read(end - start) + rest).split(b"\n")
        rest, end = (b"", 0) if start == 0 else (lines.pop(0), start)
        for line in reversed(lines):
            if line.startswith(_ASSISTANT):
                turn = _decode(line)
                if isinstance(turn, AssistantTurn):
                    return turn
    return None


def _decode(line: bytes) -> Turn | None:
    """The turn on ``line``; None for a torn or damaged one."""
    try:
        return turn_from_json(json.loads(line))
    except (ValueError, TranscriptError):
        return None
