"""Reading a JSONL transcript back (``taor.agent.record.store`` writes it): the header, the turns, and
what was skipped. Only a torn last line is skipped; anything else that cannot be read is a
``TranscriptError`` that names the line and what to do about it. A mark (the number of a
closed session's last event, ``taor.agent.record.turns.is_mark``) is not a turn: it only raises
``last_seq``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from taor._records import frozen
from taor.agent.record.codec import from_json, turn_from_json
from taor.agent.record.turns import Turn, is_mark
from taor.errors import TranscriptError

VERSION = 1


@frozen
class TranscriptHeader:
    kind: Literal["header"] = "header"
    version: int = VERSION
    session_id: str
    created: float = field(default_factory=time.time)
    provider: str = ""
    model: str = ""
    cwd: str = ""  # the working directory the session started in
    metadata: Mapping[str, Any] = field(default_factory=dict)


@frozen
class LoadedTranscript:
    """A transcript as read back; ``skipped`` says what was left out (a torn last line);
    ``last_seq`` is the highest event number it records (0 when none)."""

    header: TranscriptHeader
    turns: tuple[Turn, ...]
    skipped: tuple[str, ...] = ()
    last_seq: int = 0


def load(path: str | os.PathLike[str]) -> LoadedTranscript:
    """Read a transcript without changing it."""
    return read_transcript(Path(path))[0]


def read_transcript(path: Path) -> tuple[LoadedTranscript, int]:
    """The transcript and where the next record goes: after the last good line and its newline
    (one byte past the end of the file when that line lacks its newline)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such transcript") from None
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()  # the empty piece after the final newline is not a line
    header = parse_header(path, lines[0])
    end, turns, skipped, last_seq = len(lines[0]) + 1, [], [], 0
    last = max((i for i, line in enumerate(lines) if line.strip()), default=0)
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            end += len(line) + 1
            continue
        try:
            record = json.loads(line)
        except ValueError:
            if number - 1 < last:
                raise _damaged(path, number, "it is not valid JSON") from None
            skipped.append(f"{path}:{number}: skipped a torn last record ({len(line)} bytes)")
            break
        turn = _turn(path, number, record)
        last_seq = max(last_seq, turn.seq or 0)
        if not is_mark(turn):
            turns.append(turn)
        end += len(line) + 1
    loaded = LoadedTranscript(
        header=header, turns=tuple(turns), skipped=tuple(skipped), last_seq=last_seq
    )
    return loaded, end


def parse_header(path: Path, line: bytes) -> TranscriptHeader:
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not isinstance(record, dict) or record.get("kind") != "header":
        raise TranscriptError(
            f"{path}:1: not a taor transcript (no header record; it may have been cut off while "
            "being created): start a new session"
        )
    version = record.get("version")
    if type(version) is int and version > VERSION:
        raise TranscriptError(
            f"{path}: transcript format version {version} was written by a newer taor; this one "
            f"reads version {VERSION}: upgrade taor to continue this session"
        )
    try:
        return from_json(TranscriptHeader, record)
    except TranscriptError as exc:
        raise TranscriptError(f"{path}:1: bad header: {exc}") from None


def _turn(path: Path, number: int, record: object) -> Turn:
    try:
        return turn_from_json(record)
    except TranscriptError as exc:
        raise _damaged(path, number, str(exc)) from None


def _damaged(path: Path, number: int, problem: str) -> TranscriptError:
    return TranscriptError(
        f"{path}:{number}: damaged record ({problem}); records after it cannot be trusted. "
        f"Repair or delete line {number}, or keep only lines 1-{number - 1} "
        f"(head -n {number - 1}) to continue from before it"
    )
