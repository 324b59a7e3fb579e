"""Going back to the state before turn N: the files, and the conversation as a fork.

Files: each file changed in turn N or later is put back as it was before the first of those
turns changed it: written back, or deleted when it did not exist then. A file whose earlier
content was never saved is reported, never skipped in silence, and so is a write that fails.
A file that is already as it was is left alone.

Conversation: the history up to turn N (not included) becomes a new session, with a new id:
a new transcript file beside the original (named as the command names its sessions) holding
those turns, its header naming the original and the turn, and a checkpoint folder holding the
checkpoints of those turns (objects hard-linked). The original transcript and its checkpoints
are left as they were. A session without a transcript forks in memory.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from taor._records import frozen
from taor.agent.checkpoints.log import CheckpointLog
from taor.agent.checkpoints.records import Before, FileChange, FileState, Note, RewindResult
from taor.agent.context.ledger import UsageLedger
from taor.agent.policy.loop_detection import LoopDetector
from taor.agent.record.persist import create_store, transcript_name
from taor.agent.record.store import JsonlTranscriptStore, TranscriptStore
from taor.agent.record.summary import recorded_totals
from taor.agent.record.transcript import Transcript
from taor.agent.record.turns import Turn, UserTurn
from taor.env.base import EnvError, Environment
from taor.errors import SessionError
from taor.llm.catalog import Catalog
from taor.llm.model import Model


class Rewound(Protocol):
    """What a rewind reads, and what a fork replaces: the session's id, record, ledgers and
    checkpoints (``Runtime`` meets it)."""

    session_id: str
    store: TranscriptStore | None
    transcript: Transcript
    usage: UsageLedger
    before: tuple[int, float | None]
    model_calls: int
    compaction_floor: int
    checkpoints: CheckpointLog

    @property
    def model(self) -> Model: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def environment(self) -> Environment: ...
    @property
    def loops(self) -> LoopDetector: ...

    def checkpoint_dir(self) -> Path: ...


@frozen
class Restored:
    restored: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unrestorable: tuple[FileChange, ...] = ()


async def rewind_session(
    rt: Rewound, turn: int, *, files: bool, conversation: bool
) -> RewindResult:
    """Rewind an idle session's files and/or conversation to before user input ``turn``."""
    inputs = sum(isinstance(item, UserTurn) for item in rt.transcript.turns)
    if type(turn) is not int or not 1 <= turn <= inputs:
        raise SessionError(f"there is no turn {turn!r}: turns go from 1 to {inputs}")
    if conversation and rt.store is not None and not isinstance(rt.store, JsonlTranscriptStore):
        raise SessionError(
            "rewinding the conversation forks the transcript, and this session's store is not "
            "a JSONL file: rewind the files alone (conversation=False)"
        )
    log = rt.checkpoints
    notes = tuple(note for number in range(turn, inputs + 1) for note in log.index.notes(number))
    done = await restore_files(log, turn) if files else Restored()
    old_id, path = rt.session_id, None
    if conversation:
        path = await fork_conversation(rt, turn)
    return RewindResult(
        turn=turn,
        files=files,
        conversation=conversation,
        restored=done.restored,
        removed=done.removed,
        unrestorable=done.unrestorable,
        session_id=rt.session_id,
        forked_from=old_id if conversation else None,
        transcript=str(path) if path is not None else None,
        notes=notes,
    )


def history_before(turns: list[Turn], turn: int) -> list[Turn]:
    """The turns before the ``turn``-th user input."""
    count = 0
    for position, item in enumerate(turns):
        if isinstance(item, UserTurn):
            count += 1
            if count == turn:
                return turns[:position]
    raise SessionError(f"there is no turn {turn}: the session has {count} user inputs")


async def restore_files(log: CheckpointLog, turn: int) -> Restored:
    restored: list[str] = []
    removed: list[str] = []
    failed: list[FileChange] = []
    for path, before in sorted(log.index.targets(turn).items()):
        try:
            done = await _restore(log, path, before)
        except (EnvError, OSError) as error:
            failed.append(
                FileChange(path=path, state="changed", restorable=False, reason=str(error))
            )
            continue
        if isinstance(done, FileChange):
            failed.append(done)
        elif done == "written":
            restored.append(path)
        elif done == "removed":
            removed.append(path)
    return Restored(restored=tuple(restored), removed=tuple(removed), unrestorable=tuple(failed))


async def _restore(log: CheckpointLog, path: str, before: Before) -> str | FileChange:
    """``written``, ``removed``, ``kept`` (already as it was), or why it cannot be restored."""
    now = await log.look(path)
    if now is None:
        return FileChange(path=path, state="changed", restorable=False, reason="not a file now")
    if not before.restorable:
        state: FileState = "changed" if now.exists else "deleted"
        return FileChange(path=path, state=state, restorable=False, reason=before.reason)
    if not before.existed:
        if now.exists:
            await log.environment.remove(path)
            return "removed"
        return "kept"
    assert before.object is not None
    if now.exists and now.sha == before.object:
        return "kept"
    await log.environment.write(path, log.objects.get(before.object))
    return "written"


async def fork_conversation(rt: Rewound, turn: int) -> Path | None:
    """Make the session a fork whose history ends before ``turn``; the fork's file."""
    store = rt.store
    assert store is None or isinstance(store, JsonlTranscriptStore)
    history = history_before(list(rt.transcript.turns), turn)
    new_id, old_id = uuid.uuid4().hex, rt.session_id
    fork = None
    if store is not None:
        path = store.path.with_name(transcript_name(new_id))
        fork = create_store(
            path,
            session_id=new_id,
            provider=rt.model.provider,
            model=rt.model.model_id,
            cwd=rt.environment.working_directory(),
            metadata={"forked_from": old_id, "rewound_to_turn": turn},
        )
        for item in history:
            fork.append_sync(item)
        await store.close()
    _become(rt, new_id, history, fork)
    rt.checkpoints = fork_log(rt.checkpoints, rt.checkpoint_dir, turn)
    return fork.path if fork is not None else None


def _become(
    rt: Rewound, session_id: str, history: list[Turn], store: JsonlTranscriptStore | None
) -> None:
    rt.session_id, rt.store = session_id, store
    rt.transcript = Transcript(history)
    rt.usage = UsageLedger(rt.catalog, rt.model.provider, rt.model.model_id)
    rt.before = recorded_totals(history)
    rt.model_calls, rt.compaction_floor = 0, 0
    rt.loops.reset()


def fork_log(log: CheckpointLog, folder: Callable[[], Path], turn: int) -> CheckpointLog:
    """A log for the fork (kept in ``folder()``): the records of the turns before ``turn``,
    their objects linked."""
    forked = CheckpointLog(log.environment, folder, turn=turn - 1)
    records = log.index.below(turn)
    shas = {r.object for r in records if not isinstance(r, Note) and r.object}
    log.objects.copy_into(forked.objects, (sha for sha in shas if sha))
    for record in records:
        forked.record(record)
    forked.known = dict(log.known)
    log.close()
    return forked
