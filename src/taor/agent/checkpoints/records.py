"""What checkpoints hold and report: the records of the index, and the public views of them.

The index (``taor.agent.checkpoints.index``) is a list of small records, each tagged with the
turn (the N-th user input of the session) it belongs to:

- ``Before``: a file's state before its first change in the turn: it did not exist, or its
  content is the object ``object`` of the store, or it existed and its content could not be
  saved (``object`` None; ``reason`` says why): then it cannot be restored.
- ``After``: a file's state after a call or command that changed it (the last one counts):
  whether it exists and, when it was read, its content's object.
- ``Note``: something a reader of the checkpoint must know (changes that could not be checked).

A host sees ``Checkpoint`` (one per user input, with its ``FileChange`` list) and, after
``Session.rewind``, a ``RewindResult``.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from taor._records import frozen

FileState = Literal["changed", "created", "deleted"]


@frozen
class Before:
    kind: Literal["before"] = "before"
    turn: int
    path: str
    existed: bool
    object: str | None = None
    reason: str = ""

    @property
    def restorable(self) -> bool:
        return not self.existed or self.object is not None


@frozen
class After:
    kind: Literal["after"] = "after"
    turn: int
    path: str
    exists: bool
    object: str | None = None


@frozen
class Note:
    kind: Literal["note"] = "note"
    turn: int
    text: str


Record: TypeAlias = Before | After | Note


def encode(record: Record) -> dict[str, Any]:
    """The JSON object of a record (fields left at their default are left out)."""
    data: dict[str, Any] = {"kind": record.kind, "turn": record.turn}
    match record:
        case Before():
            data.update(path=record.path, existed=record.existed)
            data.update(
                {k: v for k, v in (("object", record.object), ("reason", record.reason)) if v}
            )
        case After():
            data.update(path=record.path, exists=record.exists)
            if record.object:
                data["object"] = record.object
        case Note():
            data["text"] = record.text
    return data


def decode(data: Any) -> Record | None:
    """The record of a JSON object; None for one this version does not know (a newer writer's)
    or cannot read."""
    if not isinstance(data, dict) or type(data.get("turn")) is not int:
        return None
    kind, turn = data.get("kind"), data["turn"]
    try:
        if kind == "before":
            return Before(
                turn=turn,
                path=str(data["path"]),
                existed=bool(data["existed"]),
                object=_object(data),
                reason=str(data.get("reason", "")),
            )
        if kind == "after":
            return After(
                turn=turn, path=str(data["path"]), exists=bool(data["exists"]), object=_object(data)
            )
        if kind == "note":
            return Note(turn=turn, text=str(data["text"]))
    except KeyError:
        return None
    return None


def _object(data: dict[str, Any]) -> str | None:
    value = data.get("object")
    return value if isinstance(value, str) and value else None


@frozen
class FileChange:
    """A file a turn changed: ``state`` says how (against the turn's start), ``restorable``
    whether its earlier state was saved (``reason`` says why not)."""

    path: str
    state: FileState
    restorable: bool = True
    reason: str = ""


@frozen
class Checkpoint:
    """The state before one user input: ``turn`` (1 for the session's first input), the first
    line of its prompt, when it was given, the files changed while it ran and ``notes`` on
    changes that could not be checked."""

    turn: int
    prompt: str
    time: float
    files: tuple[FileChange, ...] = ()
    notes: tuple[str, ...] = ()


@frozen
class RewindResult:
    """What ``Session.rewind`` did. ``restored``: files written back; ``removed``: files created
    since, deleted; ``unrestorable``: files it could not put back, each with why (their
    earlier content was never saved, or writing failed). With the conversation rewound,
    ``session_id`` is the fork's id, ``forked_from`` the original's and ``transcript`` the
    fork's file (None for a session without one); ``notes``: changes that were not tracked
    in the turns undone."""

    turn: int
    files: bool
    conversation: bool
    restored: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unrestorable: tuple[FileChange, ...] = ()
    session_id: str = ""
    forked_from: str | None = None
    transcript: str | None = None
    notes: tuple[str, ...] = ()
