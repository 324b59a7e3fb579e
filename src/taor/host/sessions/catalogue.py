"""The catalogue of a project's sessions: one row per transcript, newest first, from each
transcript's summary (``taor.agent.record.summary``: its head and tail, never the whole file).
A file that cannot be read is a row that says so."""

from __future__ import annotations

from pathlib import Path

from taor._records import frozen
from taor.agent.record.summary import TranscriptSummary, summarize
from taor.errors import TranscriptError
from taor.host.sessions.paths import session_id


@frozen
class Row:
    """A session, or (``summary`` None) a file in the folder that is not a readable one."""

    path: Path
    summary: TranscriptSummary | None
    started: float
    problem: str = ""

    @property
    def session_id(self) -> str:
        return self.summary.session_id if self.summary else session_id(self.path)


def rows(folder: Path) -> list[Row]:
    """The sessions in ``folder``, newest first (the first is the one ``--continue`` takes)."""
    found = [_row(p) for p in folder.glob("*.jsonl") if p.is_file()] if folder.is_dir() else []
    return sorted(found, key=lambda row: (row.started, row.path.name), reverse=True)


def _row(path: Path) -> Row:
    try:
        summary = summarize(path)
        return Row(path=path, summary=summary, started=summary.created)
    except TranscriptError as error:
        problem = str(error).removeprefix(str(path)).lstrip(":0123456789 ")
    try:
        started = path.stat().st_mtime
    except OSError:
        started = 0.0
    return Row(path=path, summary=None, started=started, problem=problem)
