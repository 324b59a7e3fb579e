"""Where a session's checkpoints go: beside a store that is a file (it declares its ``path``),
else in the session's scratch folder."""

from __future__ import annotations

from pathlib import Path

from taor.agent.checkpoints.log import folder_for
from taor.agent.record.store import FileTranscriptStore, JsonlTranscriptStore
from taor.agent.record.turns import Turn


class MemoryStore:
    """A store kept nowhere on disk."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []

    async def append(self, turn: Turn) -> None:
        self.turns.append(turn)

    async def close(self) -> None:
        pass


class OneFileStore(MemoryStore):
    """Another store that is one file: it says where."""

    @property
    def path(self) -> Path:
        return Path("/data/run-7.log")


def test_a_jsonl_store_keeps_its_checkpoints_beside_its_file(tmp_path: Path) -> None:
    store = JsonlTranscriptStore(tmp_path / "s.jsonl")
    assert isinstance(store, FileTranscriptStore)
    assert folder_for(store, tmp_path / "scratch", "s") == tmp_path / "s.checkpoints"


def test_any_store_that_declares_its_file_gets_them_beside_it(tmp_path: Path) -> None:
    assert folder_for(OneFileStore(), tmp_path, "s") == Path("/data/run-7.checkpoints")


def test_a_store_with_no_file_puts_them_in_the_scratch_folder(tmp_path: Path) -> None:
    assert not isinstance(MemoryStore(), FileTranscriptStore)
    assert folder_for(MemoryStore(), tmp_path, "s") == tmp_path / "checkpoints" / "s"
    assert folder_for(None, tmp_path, "s") == tmp_path / "checkpoints" / "s"
