"""Every file change of a session as one unified diff: each file its checkpoints name, from its
state before the session's first change of it (the object store's copy, or absent) to what it
holds now (read through the environment). ``Session.diff()`` returns it.

Files that cannot be shown as text are named in ``notes`` rather than left out: a binary or
very large file, and a file whose earlier content was never saved.
"""

from __future__ import annotations

from taor._records import frozen
from taor.agent.checkpoints.log import CheckpointLog
from taor.tools.diff import MAX_BYTES, Texts, read_texts, unified_diff


@frozen
class SessionDiff:
    """``diff``: the unified diff of the text files changed; ``files``: every file changed
    (the diff's and the noted ones), in path order; ``notes``: the files the diff leaves out,
    each with why."""

    diff: str = ""
    files: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


async def session_diff(log: CheckpointLog, since: int = 1) -> SessionDiff:
    """The changes from before input ``since`` (the first by default) to now."""
    targets = log.index.targets(since)
    if not targets:
        return SessionDiff()
    before: Texts = {}
    notes: list[str] = []
    for path, state in sorted(targets.items()):
        if not state.existed:
            before[path] = None
        elif state.object is None:
            notes.append(f"{path}: its earlier content was not saved ({state.reason})")
        else:
            text = _text(log.objects.get(state.object))
            if text is None:
                notes.append(f"{path}: binary or too large to show")
            else:
                before[path] = text
    now = await read_texts(log.environment, list(before))
    for path in before:
        if path not in now:
            notes.append(f"{path}: binary or too large to show")
    changed = unified_diff(before, now)
    files = [p for p in sorted(targets) if p not in before or p not in now or now[p] != before[p]]
    return SessionDiff(diff=changed, files=tuple(files), notes=tuple(notes))


def _text(data: bytes) -> str | None:
    if len(data) > MAX_BYTES or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
