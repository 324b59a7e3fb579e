"""``taor sessions show ID``: a transcript for people. A header (id, model, start, directory,
model calls and cost), then each turn: the user's input after ``>``, the model's text as it
is, each tool call on one line (its summary) with its result folded to a few lines under it,
steering, and notices (interrupts, compactions, limits, repairs) in brackets. After an input
that changed files, the files it changed, by the input's number (what ``--rewind N`` takes)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from taor.agent.checkpoints.index import Index
from taor.agent.checkpoints.log import beside
from taor.agent.checkpoints.records import FileChange
from taor.agent.checkpoints.storage import IndexFile
from taor.agent.loop.call_summary import summarize_call
from taor.agent.record.store import LoadedTranscript
from taor.agent.record.summary import recorded_totals
from taor.agent.record.turns import (
    AssistantTurn,
    NoticeTurn,
    SteeringTurn,
    ToolResultsTurn,
    Turn,
    UserTurn,
)
from taor.llm.types import ServerToolPart, TextPart, ToolCallPart, ToolResultPart

RESULT_LINES = 4  # of a tool's result, under its call
INDENT = "    "
_STEERING = {
    "user": "steering",
    "loop_detection": "loop detection",
    "hook": "hook",
    "limit": "limit",
    "check": "answer check",
}


def render(loaded: LoadedTranscript, path: Path, width: int) -> list[str]:
    changes = _checkpoints(path)
    return [
        *_header(loaded, path),
        *_turns(loaded.turns, width, changes),
        *_skipped(loaded.skipped),
    ]


def _checkpoints(path: Path) -> Index:
    return Index(IndexFile(beside(path) / "index.jsonl").load())


def _changed(index: Index, number: int) -> Iterator[str]:
    """The files input ``number`` changed, when it changed any."""
    files = index.changes(number)
    if files:
        yield f"[input {number} changed {', '.join(map(_change, files))}]"


def _change(change: FileChange) -> str:
    notes: list[str] = [change.state] if change.state != "changed" else []
    if not change.restorable:
        notes.append("not restorable")
    return f"{change.path} ({', '.join(notes)})" if notes else change.path


def _header(loaded: LoadedTranscript, path: Path) -> list[str]:
    h = loaded.header
    calls, cost = recorded_totals(loaded.turns)
    models = [t for t in loaded.turns if isinstance(t, AssistantTurn) and t.model]
    model = f"{models[-1].provider}:{models[-1].model}" if models else f"{h.provider}:{h.model}"
    spent = "price not known (a model without prices)" if cost is None else f"${cost:.4f}"
    return [
        f"session  {h.session_id}",
        f"model    {model}",
        f"started  {time.strftime('%Y-%m-%d %H:%M:%S %Z', time.localtime(h.created))}",
        f"cwd      {h.cwd or '(not recorded)'}",
        f"usage    {calls} model call{'s' * (calls != 1)}, {spent}",
        f"file     {path}",
    ]


def _turns(turns: Sequence[Turn], width: int, changes: Index) -> Iterator[str]:
    results = {r.call_id: r for t in turns if isinstance(t, ToolResultsTurn) for r in t.results}
    shown: set[str] = set()
    number = 0
    for turn in turns:
        if isinstance(turn, UserTurn):
            yield from _changed(changes, number)
            number += 1
            yield ""
            yield from (f"> {line}" for line in (turn.text or "(an image)").splitlines())
        elif isinstance(turn, AssistantTurn):
            yield from _assistant(turn, results, shown, width)
        elif isinstance(turn, ToolResultsTurn):  # results are shown under their calls
            for result in turn.results:
                if result.call_id not in shown:
                    yield from _result(result, width)
        elif isinstance(turn, SteeringTurn):
            yield f"[{_STEERING.get(turn.source, turn.source)}] {_one_line(turn.text)}"
        elif isinstance(turn, NoticeTurn):
            yield f"[{turn.text}]"
    yield from _changed(changes, number)


def _assistant(
    turn: AssistantTurn, results: dict[str, ToolResultPart], shown: set[str], width: int
) -> Iterator[str]:
    for part in turn.message.parts:
        if isinstance(part, TextPart) and part.text.strip():
            yield part.text.strip()
        elif isinstance(part, ToolCallPart):
            yield "- " + summarize_call(part.name, part.arguments, limit=max(width - 2, 20))
            if part.id in results:
                shown.add(part.id)
                yield from _result(results[part.id], width)
        elif isinstance(part, ServerToolPart):
            what = "result" if part.is_result else "call"
            yield f"- {part.block_type} ({part.provider} server tool {what})"
    if turn.partial:
        yield f"[cut off: {turn.finish}]"


def _result(result: ToolResultPart, width: int) -> Iterator[str]:
    lines = result.text.strip().splitlines() or ["(no output)"]
    if result.is_error:
        lines[0] = f"error: {lines[0]}"
    room = max(width - len(INDENT), 20)
    for line in lines[:RESULT_LINES]:
        yield INDENT + (line if len(line) <= room else line[: room - 1] + "…")
    if len(lines) > RESULT_LINES:
        more = len(lines) - RESULT_LINES
        yield f"{INDENT}… {more} more line{'s' * (more != 1)}"


def _skipped(skipped: Sequence[str]) -> list[str]:
    return ["", *(f"[{note}]" for note in skipped)] if skipped else []


def _one_line(text: str) -> str:
    return " ".join(text.split())
