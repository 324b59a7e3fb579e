"""The records of a session's checkpoints, folded per turn: for each file its first ``Before``
and last ``After``, and the turn's notes. It answers what a turn changed (``changes``) and what
rewinding to a turn must put back (``targets``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from taor.agent.checkpoints.records import After, Before, FileChange, FileState, Note, Record


@dataclass(kw_only=True, slots=True)
class TurnFiles:
    before: dict[str, Before] = field(default_factory=dict)  # the first per path
    after: dict[str, After] = field(default_factory=dict)  # the last per path
    notes: list[str] = field(default_factory=list)


class Index:
    def __init__(self, records: Iterable[Record] = ()) -> None:
        self.records: list[Record] = []
        self.turns: dict[int, TurnFiles] = {}
        for record in records:
            self.add(record)

    def add(self, record: Record) -> None:
        self.records.append(record)
        files = self.turns.setdefault(record.turn, TurnFiles())
        match record:
            case Before():
                files.before.setdefault(record.path, record)
            case After():
                files.after[record.path] = record
            case Note():
                if record.text not in files.notes:
                    files.notes.append(record.text)

    def has_before(self, turn: int, path: str) -> bool:
        files = self.turns.get(turn)
        return files is not None and path in files.before

    def last_after(self, turn: int, path: str) -> After | None:
        files = self.turns.get(turn)
        return None if files is None else files.after.get(path)

    def changes(self, turn: int) -> tuple[FileChange, ...]:
        """The files ``turn`` changed, by path; a file it created and deleted again, or wrote
        back as it was, is left out."""
        files = self.turns.get(turn)
        if files is None:
            return ()
        found = []
        for path in sorted(files.before):
            before = files.before[path]
            state = _state(before, files.after.get(path))
            if state is not None:
                found.append(
                    FileChange(
                        path=path, state=state, restorable=before.restorable, reason=before.reason
                    )
                )
        return tuple(found)

    def notes(self, turn: int) -> tuple[str, ...]:
        files = self.turns.get(turn)
        return tuple(files.notes) if files is not None else ()

    def targets(self, turn: int) -> dict[str, Before]:
        """For each file changed in ``turn`` or later, its state before the first of them."""
        found: dict[str, Before] = {}
        for number in sorted(t for t in self.turns if t >= turn):
            for path, before in self.turns[number].before.items():
                found.setdefault(path, before)
        return found

    def below(self, turn: int) -> list[Record]:
        """The records of the turns before ``turn`` (what a fork at ``turn`` keeps)."""
        return [record for record in self.records if record.turn < turn]


def _state(before: Before, after: After | None) -> FileState | None:
    exists = True if after is None else after.exists
    if not before.existed:
        return "created" if exists else None
    if not exists:
        return "deleted"
    if after is not None and before.object is not None and before.object == after.object:
        return None
    return "changed"
