"""``CheckpointLog``: one session's checkpoints as they are made.

The log knows the current turn (the N-th user input; the session tells it when an input is
recorded) and, for each file a call is about to change, saves its state before the turn's first
change of it (``save_before``), then its state after each call that changed it
(``save_after``). Files are read through the session's environment, by a *key*: the path
relative to the workspace root (absolute outside it), so a subagent working in a subfolder
records the same file under the same key as its parent.

Contents go to the object store once each. ``known`` remembers, per key, the size and time of
the content last read and its object: a file seen before and not touched since is not read
again, and a command that changes it later (outside git) can still be undone.

Nothing is created on disk until something is recorded: ``directory`` (beside the transcript,
or a scratch folder) is asked for on first use.
"""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from taor._records import frozen
from taor.agent.checkpoints.index import Index
from taor.agent.checkpoints.records import After, Before, Checkpoint, Note, Record
from taor.agent.checkpoints.storage import IndexFile, ObjectStore
from taor.agent.record.store import FileTranscriptStore, TranscriptStore
from taor.agent.record.turns import UserTurn
from taor.env.base import EnvError, Environment, PathNotFoundError

MAX_FILE = 16 << 20  # bytes: a bigger file is not saved (it is reported as not restorable)
_BIG = 1 << 20  # bytes: stored from a worker thread


@dataclass(frozen=True, slots=True)
class Stat:
    size: int
    mtime: float

    def same(self, other: Stat | None) -> bool:
        return (
            other is not None and self.size == other.size and abs(self.mtime - other.mtime) < 1e-6
        )


@dataclass(kw_only=True, slots=True)
class Budget:
    """How much one command's check may read: ``files`` contents, ``size`` bytes in all."""

    files: int = 200
    size: int = 32 << 20

    def take(self, size: int) -> bool:
        if self.files < 1 or size > self.size:
            return False
        self.files, self.size = self.files - 1, self.size - size
        return True


@frozen
class Seen:
    """A file as looked at: absent, or present with its object (None: not saved, ``reason``)."""

    exists: bool
    sha: str | None = None
    reason: str = ""
    stat: Stat | None = None


class Watch:
    """Kept around one tool call: ``start`` before it runs, ``finish`` after it ended or
    stopped. This one watches nothing; ``taor.agent.checkpoints.watch`` has the others."""

    async def start(self) -> None:
        pass

    async def finish(self) -> None:
        pass


class CheckpointLog:
    def __init__(
        self, environment: Environment, directory: Callable[[], Path], *, turn: int = 0
    ) -> None:
        self.environment = environment  # the session's (a subagent's calls use its parent's)
        self.turn = turn
        self.known: dict[str, tuple[Stat, str]] = {}
        self.plain = False  # the workspace was last seen outside git (pictures skip asking)
        self._directory = directory
        self._index: Index | None = None
        self._file: IndexFile | None = None
        self._objects: ObjectStore | None = None

    # --- the store, opened on first use ---

    @property
    def directory(self) -> Path:
        return self._directory()

    @property
    def index(self) -> Index:
        if self._index is None:
            self._file = IndexFile(self.directory / "index.jsonl")
            self._index = Index(self._file.load())
        return self._index

    @property
    def objects(self) -> ObjectStore:
        if self._objects is None:
            self._objects = ObjectStore(self.directory / "objects")
        return self._objects

    def record(self, record: Record) -> None:
        index = self.index
        assert self._file is not None
        self._file.append(record)  # on disk before the change it describes is made
        index.add(record)

    def note(self, text: str) -> None:
        if self.turn and text not in self.index.notes(self.turn):
            self.record(Note(turn=self.turn, text=text))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    # --- turns ---

    def start_turn(self, turn: int) -> None:
        self.turn = turn

    def checkpoints(self, history: Iterable[object]) -> list[Checkpoint]:
        """One checkpoint per user input of ``history``, in order."""
        inputs = [turn for turn in history if isinstance(turn, UserTurn)]
        index = self.index
        return [
            Checkpoint(
                turn=number,
                prompt=_first_line(user.text),
                time=user.timestamp,
                files=index.changes(number),
                notes=index.notes(number),
            )
            for number, user in enumerate(inputs, start=1)
        ]

    # --- files ---

    def key(self, path: str, cwd: str) -> str:
        """The key of ``path`` as a caller working in ``cwd`` names it."""
        root = posixpath.normpath(self.environment.working_directory())
        absolute = posixpath.normpath(posixpath.join(cwd, path))
        if absolute == root:
            return "."
        prefix = root.rstrip("/") + "/"
        return absolute[len(prefix) :] if absolute.startswith(prefix) else absolute

    def tracked(self, key: str) -> bool:
        """True when the current turn already holds the file's earlier state."""
        return self.index.has_before(self.turn, key)

    async def save_before(self, keys: Sequence[str]) -> None:
        """Save each file's state unless the turn holds it already."""
        if not self.turn:
            return
        for key in keys:
            if not self.tracked(key) and (seen := await self.look(key)) is not None:
                self.before(key, seen)

    async def save_after(self, keys: Iterable[str], budget: Budget | None = None) -> None:
        """Record each tracked file's state now (when it differs from the last recorded)."""
        for key in keys:
            if self.turn and self.tracked(key):
                seen = await self.look(key, budget)
                if seen is not None:
                    self.after(key, seen)

    def before(self, key: str, seen: Seen) -> None:
        self.record(
            Before(
                turn=self.turn, path=key, existed=seen.exists, object=seen.sha, reason=seen.reason
            )
        )

    def after(self, key: str, seen: Seen) -> None:
        last = self.index.last_after(self.turn, key)
        if last is None or (last.exists, last.object) != (seen.exists, seen.sha):
            self.record(After(turn=self.turn, path=key, exists=seen.exists, object=seen.sha))

    async def look(self, key: str, budget: Budget | None = None) -> Seen | None:
        """The file's state, its content saved (unless that would overdraw ``budget``); None
        for what is not a file this log can follow (a directory, a path the environment
        refuses)."""
        try:
            info = await self.environment.stat(key)
        except PathNotFoundError:
            return Seen(exists=False)
        except EnvError:
            return None
        if info.is_dir:
            return None
        stat = Stat(info.size, info.mtime)
        known = self.known.get(key)
        if known is not None and known[0].same(stat) and self.objects.has(known[1]):
            return Seen(exists=True, sha=known[1], stat=stat)
        if info.size > MAX_FILE:
            return Seen(exists=True, reason=f"too large to save ({info.size >> 20} MiB)", stat=stat)
        if budget is not None and not budget.take(info.size):
            return Seen(exists=True, reason="not saved (too many files at once)", stat=stat)
        try:
            data = await self.environment.read_bytes(key)
        except EnvError as error:
            return Seen(exists=True, reason=f"could not be read: {error}", stat=stat)
        sha = await self.store(data)
        self.known[key] = (stat, sha)
        return Seen(exists=True, sha=sha, stat=stat)

    async def store(self, data: bytes) -> str:
        if len(data) > _BIG:
            return await asyncio.to_thread(self.objects.put, data)
        return self.objects.put(data)


def folder_for(store: TranscriptStore | None, scratch: Path, session_id: str) -> Path:
    """Where a session keeps its checkpoints: beside its transcript file
    (``<name>.checkpoints/``, kept with it), else in its scratch folder (removed at close)."""
    if isinstance(store, FileTranscriptStore):
        return beside(store.path)
    return scratch / "checkpoints" / session_id


def beside(transcript: Path) -> Path:
    """The checkpoint folder of the session recorded in ``transcript``."""
    return transcript.with_name(f"{transcript.stem}.checkpoints")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(an image)" if not text else ""
