"""What a shell command changed: pictures before and after it, compared, recorded.

Before the command, a picture (``taor.agent.checkpoints.picture``). In a git work tree the
files that differ from the commit (modified, untracked) are also read and saved then, since a
command may change them and git does not hold their content; a file git holds clean is not
read: should the command change it, its content comes from the commit afterwards. Outside
git only sizes and times are taken, so a file changed by a command is restorable when the
session saw it last as it was (it wrote or read it), and reported as not restorable otherwise.
A file the command created is always restorable (by deleting it).

After the command, a second picture, compared with the first: each changed file the turn does
not hold yet gets its earlier state recorded, and every changed file its state now. Whatever
cannot be checked (no picture, a scan cut at its cap, too many files) becomes a note on the
turn: nothing is silently ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from taor.agent.checkpoints.log import Budget, CheckpointLog, Seen, Stat, Watch
from taor.agent.checkpoints.picture import (
    GitPicture,
    Mode,
    NoPicture,
    Picture,
    ScanPicture,
    base_content,
    stat_of,
    take,
)
from taor.env.base import EnvError, PathNotFoundError

MAX_DIRTY = 2000  # files differing from git's commit that a picture follows
MAX_CHANGES = 2000  # changed files one command records
Change = tuple[str, Seen | None]  # a changed file and its earlier state (None: in the commit)


class CommandWatch(Watch):
    """Around one command: ``start`` before it runs, ``finish`` after it ended (or stopped)."""

    def __init__(self, log: CheckpointLog, command: str) -> None:
        self.log = log
        self.label = _label(command)
        self.spill = log.directory / "tmp"
        self.before: Picture = NoPicture(why="not taken")
        self.saved: dict[str, Seen] = {}

    async def start(self) -> None:
        mode: Mode = "plain" if self.log.plain else "auto"
        self.before = await take(self.log.environment, self.spill, mode)
        self.log.plain = isinstance(self.before, ScanPicture)
        if isinstance(self.before, GitPicture):
            await self._save_dirty(self.before.dirty)

    async def finish(self) -> None:
        before, log = self.before, self.log
        if isinstance(before, NoPicture):
            log.note(f"Changes made by {self.label} were not checked: {before.why}.")
            return
        mode: Mode = "git" if isinstance(before, GitPicture) else "plain"
        base = (before.head or "-") if isinstance(before, GitPicture) else ""
        after = await take(log.environment, self.spill, mode, base)
        if isinstance(before, GitPicture) and isinstance(after, GitPicture):
            await self._record(await self._git_changes(before, after), base)
        elif isinstance(before, ScanPicture) and isinstance(after, ScanPicture):
            await self._record(self._scan_changes(before, after), "")
        else:
            why = after.why if isinstance(after, NoPicture) else "the workspace changed kind"
            log.note(f"Changes made by {self.label} were not checked: {why}.")

    async def _save_dirty(self, keys: Iterable[str]) -> None:
        ordered = sorted(keys)
        if len(ordered) > MAX_DIRTY:
            self.log.note(
                f"{len(ordered)} files differ from git's commit: changes {self.label} made "
                f"to all but {MAX_DIRTY} of them were not checked."
            )
        budget = Budget()
        looks = await asyncio.gather(*(self.log.look(key, budget) for key in ordered[:MAX_DIRTY]))
        self.saved = {key: seen for key, seen in zip(ordered, looks, strict=False) if seen}

    async def _git_changes(self, before: GitPicture, after: GitPicture) -> list[Change]:
        changes: list[Change] = [(key, None) for key in after.dirty - before.dirty]
        saved = sorted(self.saved.items())  # clean before: as the commit has it (None)
        stats = await asyncio.gather(*(self._stat(key) for key, _ in saved))
        for (key, earlier), now in zip(saved, stats, strict=True):
            if not isinstance(now, str) and not _same(earlier, now):
                changes.append((key, earlier))
        return sorted(changes, key=lambda change: change[0])

    def _scan_changes(self, before: ScanPicture, after: ScanPicture) -> list[Change]:
        changes: list[Change] = []
        old_files, new_files = before.files, after.files
        for key in old_files.keys() ^ new_files.keys() | {
            k for k, raw in old_files.items() if new_files.get(k, raw) != raw
        }:
            old = old_files.get(key)
            if old is None and not before.capped:
                changes.append((key, Seen(exists=False)))
            elif old is not None and (key in new_files or not after.capped):
                changes.append((key, self._as_known(key, stat_of(old))))
        if before.capped or after.capped:
            self.log.note(
                f"Only the first {len(old_files)} files were compared around {self.label}; "
                "changes to others were not checked."
            )
        return sorted(changes, key=lambda change: change[0])

    def _as_known(self, key: str, stat: Stat | None) -> Seen:
        known = self.log.known.get(key)
        if (
            stat is not None
            and known is not None
            and known[0].same(stat)
            and self.log.objects.has(known[1])
        ):
            return Seen(exists=True, sha=known[1], stat=stat)
        return Seen(
            exists=True, reason=f"changed by {self.label}; its earlier content was not saved"
        )

    async def _record(self, changes: list[Change], base: str) -> None:
        log = self.log
        if len(changes) > MAX_CHANGES:
            log.note(f"{self.label} changed {len(changes)} files; only {MAX_CHANGES} are recorded.")
            changes = changes[:MAX_CHANGES]
        fresh = [(key, earlier) for key, earlier in changes if not log.tracked(key)]
        committed = await self._from_commit(base, [key for key, e in fresh if e is None])
        for key, earlier in fresh:
            log.before(key, earlier or committed[key])
        await log.save_after([key for key, _ in changes], Budget())

    async def _from_commit(self, base: str, keys: list[str]) -> dict[str, Seen]:
        """The earlier state of files that were clean: as commit ``base`` has them."""
        if not keys or base == "-":
            return {key: Seen(exists=False) for key in keys}
        asked = keys[: Budget().files]
        contents = await base_content(self.log.environment, self.spill, base, asked) or {}
        why = f"changed by {self.label}; git's copy (commit {base[:12]}) was not saved"
        found: dict[str, Seen] = {}
        for key in keys:
            if key not in contents:
                found[key] = Seen(exists=True, reason=why)
            elif (data := contents[key]) is None:
                found[key] = Seen(exists=False)
            else:
                found[key] = Seen(exists=True, sha=await self.log.store(data))
        return found

    async def _stat(self, key: str) -> Stat | str | None:
        """The file's size and time now; None when it is gone; "other" for a directory or a
        path that cannot be looked at."""
        try:
            info = await self.log.environment.stat(key)
        except PathNotFoundError:
            return None
        except EnvError:
            return "other"
        return "other" if info.is_dir else Stat(info.size, info.mtime)


def _same(earlier: Seen, now: Stat | None) -> bool:
    if not earlier.exists:
        return now is None
    return earlier.stat is not None and earlier.stat.same(now)


def _label(command: str) -> str:
    lines = command.strip().splitlines() or ["a command"]
    cut = len(lines) > 1 or len(lines[0]) > 60
    return f"`{lines[0][:60]}{'…' if cut else ''}`"
