"""Starting a recorded session and reopening one from its JSONL transcript.

Reopening repairs what a crash can leave behind: an assistant turn whose tool calls never got
results (the process died mid-round) gets ``interrupted`` results (or, for a call that ended
before a permission question, the result recorded with it), written to the file as well, so the
session continues from a valid transcript and the file stays readable by anyone. A round left
waiting for a permission answer is not repaired: it is ``parked``, for the session to ask again
(``taor.agent.record.parking``).
``mark_last_event`` records the number of a closing session's last event, so that the session
numbers on from it when it is reopened.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from taor._records import frozen
from taor.agent.record.parking import ParkedRound, answered_round_results, parked_round
from taor.agent.record.store import JsonlTranscriptStore, TranscriptHeader, TranscriptStore
from taor.agent.record.transcript import problems, repair
from taor.agent.record.turns import NoticeTurn, ToolResultsTurn, Turn
from taor.errors import TranscriptError
from taor.llm.types import ToolResultPart


@frozen
class Reopened:
    store: JsonlTranscriptStore
    header: TranscriptHeader
    turns: list[Turn]
    notes: tuple[str, ...]  # what was skipped or repaired, for a warning
    last_seq: int = 0  # the highest event number recorded
    parked: ParkedRound | None = None  # a round left waiting for a permission answer
    # The results the repair gave calls that had none (``interrupted``, or recorded before a
    # question), for the session to end those calls for whoever follows its events.
    settled: tuple[ToolResultPart, ...] = ()


def transcript_name(session_id: str) -> str:
    """``<start>-<id>.jsonl``, the start in UTC to the nanosecond and of fixed width, so that
    names sort by start, also for sessions started in the same second. Names stamped to the
    second (``20250101T120000-<id>``) still sort among them: before every later second's."""
    now = time.time_ns()
    seconds, nanoseconds = divmod(now, 1_000_000_000)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds))
    return f"{stamp}.{nanoseconds:09d}-{session_id}.jsonl"


def create_store(
    path: str | os.PathLike[str],
    *,
    session_id: str,
    provider: str,
    model: str,
    cwd: str = "",
    metadata: Mapping[str, Any] | None = None,
) -> JsonlTranscriptStore:
    store = JsonlTranscriptStore(path)
    header = TranscriptHeader(
        session_id=session_id, provider=provider, model=model, cwd=cwd, metadata=metadata or {}
    )
    store.create(header)
    return store


def reopen(path: str | os.PathLike[str]) -> Reopened:
    store = JsonlTranscriptStore(path)
    loaded = store.open()
    turns = list(loaded.turns)
    notes = list(loaded.skipped)
    parked = parked_round(turns)
    found = problems(turns if parked is None else turns[: parked.index])
    settled: tuple[ToolResultPart, ...] = ()
    if found:
        parked = None
        answered = answered_round_results(turns)  # what it recorded, not "stopped" for all
        fixed = repair([*turns, answered] if answered else turns, "stopped")
        if fixed[: len(turns)] == turns:
            for turn in fixed[len(turns) :]:
                store.append_sync(turn)
        else:
            store.append_sync(NoticeTurn(text="repaired on load: " + "; ".join(found)))
        notes.append("repaired: " + "; ".join(found))
        settled = _results_added(turns, fixed)
        turns = fixed
    return Reopened(
        store=store,
        header=loaded.header,
        turns=turns,
        notes=tuple(notes),
        last_seq=loaded.last_seq,
        parked=parked,
        settled=settled,
    )


def _results_added(before: Sequence[Turn], after: Sequence[Turn]) -> tuple[ToolResultPart, ...]:
    """The results ``after`` has for calls that had none in ``before``."""
    had = {r.call_id for t in before if isinstance(t, ToolResultsTurn) for r in t.results}
    return tuple(
        result
        for turn in after
        if isinstance(turn, ToolResultsTurn)
        for result in turn.results
        if result.call_id not in had
    )


async def mark_last_event(store: TranscriptStore | None, seq: int) -> None:
    """Record ``seq`` as the number of the session's last event (a mark: see
    ``taor.agent.record.turns``); a store already closed is left as it is."""
    if store is None:
        return
    with contextlib.suppress(TranscriptError):
        await store.append(NoticeTurn(text="", seq=seq))
