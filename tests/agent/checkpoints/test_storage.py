"""The object store keeps each content once, by its sha256, written whole or not at all; the
index is appended a line per record and read back past a torn line or a newer kind."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from taor.agent.checkpoints.records import After, Before, Note
from taor.agent.checkpoints.storage import IndexFile, ObjectStore, digest


def test_identical_content_is_stored_once_under_its_sha256(tmp_path: Path) -> None:
    store = ObjectStore(tmp_path / "objects")
    data = b"\x00\x01binary\xff"
    sha = store.put(data)
    assert sha == digest(data) and store.put(data) == sha
    assert store.get(sha) == data and store.has(sha)
    assert [p.name for p in (tmp_path / "objects").rglob("*") if p.is_file()] == [sha]
    assert stat.S_IMODE(store.path(sha).stat().st_mode) == 0o600


def test_objects_are_linked_into_another_store(tmp_path: Path) -> None:
    one, two = ObjectStore(tmp_path / "one"), ObjectStore(tmp_path / "two")
    sha = one.put(b"shared")
    one.copy_into(two, [sha, "0" * 64])  # a missing object is passed over
    assert two.get(sha) == b"shared"
    assert two.path(sha).stat().st_ino == one.path(sha).stat().st_ino


def test_records_round_trip_and_unreadable_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "index.jsonl"
    records = [
        Before(turn=1, path="a.txt", existed=True, object="ab" * 32),
        Before(turn=1, path="b.txt", existed=True, reason="too large to save (20 MiB)"),
        After(turn=1, path="a.txt", exists=False),
        Note(turn=2, text="not checked"),
    ]
    index = IndexFile(path)
    for record in records[:2]:
        index.append(record)
    index.close()
    with path.open("a") as file:
        file.write(json.dumps({"kind": "rename", "turn": 1}) + "\n")  # a newer writer's
        file.write('{"kind": "after", "tu')  # torn by a crash
    again = IndexFile(path)
    for record in records[2:]:
        again.append(record)
    again.close()
    assert IndexFile(path).load() == records
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
