"""``MemoryEnvironment``: an in-memory filesystem with scripted commands and injected faults.

For tests and for hosts that simulate. Paths follow the same policy as ``LocalEnvironment``
(``resolve_lexically``: no symlinks exist here), results have the same shapes, and the errors
are the same classes with the same wording. Commands never run: ``script`` decides what they
return (see ``taor.env.memory.commands``). ``fail`` makes the Nth call of an operation raise or
return a given result, ``fail_tool`` the same for a tool called through a ``ToolRegistry``, and
every operation is recorded in ``calls`` (see ``taor.env.memory.faults``; the hooks are in
``taor.env.memory.hooks``)::

    env = MemoryEnvironment(files={"README.md": "hello\\n"})
    env.script("pytest -q", "3 passed\\n")
    env.script(re.compile(r"^git "), "", exit_code=1, stderr="not a repository\\n")
    env.fail("write", nth=2, error=EnvError("disk full"))
    env.fail_tool("read_file", result="(simulated contents)")
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Callable, Mapping, Sequence

from taor.env.base import (
    CommandResult,
    DirEntry,
    EnvError,
    FileStat,
    GrepMatch,
    OutputCallback,
    Spawned,
)
from taor.env.memory.commands import CommandScripts, replay_output
from taor.env.memory.faults import CallLog
from taor.env.memory.fs import MemoryTree, encode, read_lines, read_range
from taor.env.memory.hooks import MemoryHooks
from taor.env.memory.search import glob_files, grep_files
from taor.env.process import DEFAULT_TIMEOUT, MAX_TIMEOUT, clamp_timeout
from taor.errors import ConfigurationError


class MemoryEnvironment(MemoryHooks):
    """Files in dictionaries, commands scripted, every call recorded; nothing touches the host."""

    def __init__(
        self,
        *,
        root: str = "/workspace",
        allowed_roots: Sequence[str] = (),
        files: Mapping[str, str | bytes] | None = None,
        directories: Sequence[str] = (),
        clock: Callable[[], float] = time.time,
        platform: str = "linux",
        os_version: str = "MemoryOS 1.0",
        default_timeout: float = DEFAULT_TIMEOUT,
        max_timeout: float = MAX_TIMEOUT,
    ) -> None:
        roots = [posixpath.normpath(r) for r in (root, *allowed_roots)]
        if not all(posixpath.isabs(r) for r in roots):
            raise ConfigurationError("MemoryEnvironment roots must be absolute POSIX paths.")
        self.roots = roots
        self.tree = MemoryTree(roots, clock)
        self.commands = CommandScripts()
        self.log = CallLog()
        self._platform, self._os_version = platform, os_version
        self.default_timeout, self.max_timeout = default_timeout, max_timeout
        for directory in directories:
            self.make_dir(directory)
        for path, content in (files or {}).items():
            self.put(path, content)

    # lifecycle and facts

    async def initialize(self) -> None:
        self.log.call("initialize", {}, lambda: None)

    async def cleanup(self) -> None:
        """Cancel the commands whose (async) handlers are still running."""
        await self.log.intercept("cleanup", {}, self.commands.cancel_running)

    def working_directory(self) -> str:
        return self.log.call("working_directory", {}, lambda: self.roots[0])

    def platform(self) -> str:
        return self.log.call("platform", {}, lambda: self._platform)

    def os_version(self) -> str:
        return self.log.call("os_version", {}, lambda: self._os_version)

    # files

    async def read_text(self, path: str, *, offset: int = 0, limit: int | None = None) -> str:
        def read() -> str:
            return read_lines(self.tree.file(path), offset, limit)

        return self.log.call("read_text", {"path": path, "offset": offset, "limit": limit}, read)

    async def read_bytes(self, path: str, *, offset: int = 0, limit: int | None = None) -> bytes:
        def read() -> bytes:
            return read_range(self.tree.file(path), offset, limit)

        return self.log.call("read_bytes", {"path": path, "offset": offset, "limit": limit}, read)

    async def write(self, path: str, content: str | bytes) -> None:
        def write() -> None:
            resolved = self.tree.resolve(path)
            if resolved in self.tree.dirs:
                raise EnvError(f"{path!r} is a directory; give a file path to write.")
            self.tree.write(resolved, encode(content))

        self.log.call("write", {"path": path, "content": content}, write)

    async def remove(self, path: str) -> None:
        def remove() -> None:
            resolved = self.tree.existing(path)
            if resolved in self.tree.dirs:
                raise EnvError(f"{path!r} is a directory; remove deletes files only.")
            self.tree.remove(resolved)

        self.log.call("remove", {"path": path}, remove)

    async def exists(self, path: str) -> bool:
        return self.log.call(
            "exists", {"path": path}, lambda: self.tree.exists(self.tree.resolve(path))
        )

    async def stat(self, path: str) -> FileStat:
        return self.log.call("stat", {"path": path}, lambda: self.tree.stat(path))

    async def list_dir(self, path: str = ".", *, depth: int = 1) -> list[DirEntry]:
        def list_dir() -> list[DirEntry]:
            return self.tree.list_entries(self.tree.directory(path, "read it instead"), depth)

        return self.log.call("list_dir", {"path": path, "depth": depth}, list_dir)

    # commands

    async def run(
        self,
        command: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 (the command's limit, not the await's)
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        on_output: OutputCallback | None = None,
        output_file: str | None = None,  # scripted results are kept whole: nothing to spill
    ) -> CommandResult:
        async def run() -> CommandResult:
            directory = (
                self.roots[0] if cwd is None else self.tree.directory(cwd, "give a directory")
            )
            applied, requested = clamp_timeout(
                timeout, default=self.default_timeout, maximum=self.max_timeout
            )
            result = await self.commands.respond(
                command, directory, dict(env or {}), applied, requested
            )
            await replay_output(result, on_output)
            return result

        arguments = {"command": command, "timeout": timeout, "cwd": cwd, "env": env}
        return await self.log.intercept("run", arguments, run)

    async def spawn(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Spawned:
        """Not here: a memory environment runs no process."""
        raise EnvError(
            "MemoryEnvironment cannot spawn processes (it runs none); use LocalEnvironment or "
            "SandboxEnvironment for a long-lived process."
        )

    # search

    async def grep(
        self,
        pattern: str,
        path: str = ".",
        *,
        glob: str | None = None,
        ignore_case: bool = False,
        max_matches: int | None = None,
    ) -> list[GrepMatch]:
        def grep() -> list[GrepMatch]:
            start = self.tree.existing(path)
            return grep_files(
                self.tree,
                self.roots[0],
                start,
                pattern,
                glob=glob,
                ignore_case=ignore_case,
                max_matches=max_matches,
            )

        arguments = {"pattern": pattern, "path": path, "glob": glob, "ignore_case": ignore_case}
        return self.log.call("grep", {**arguments, "max_matches": max_matches}, grep)

    async def glob(self, pattern: str, path: str = ".") -> list[str]:
        def glob() -> list[str]:
            return glob_files(self.tree, self.roots[0], self.tree.existing(path), pattern)

        return self.log.call("glob", {"pattern": pattern, "path": path}, glob)


__all__ = ["MemoryEnvironment"]
