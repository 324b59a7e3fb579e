"""The environment a subagent gets: the parent's, shared, optionally scoped to a subdirectory.

``SharedEnvironment`` delegates everything to the parent's environment except its lifecycle:
the parent initialized it and cleans it up, so a child's ``initialize`` and ``cleanup`` do
nothing (a child closing must not kill the parent's commands). A child's own running commands
still stop when it closes: cancelling a call kills its process group (``Environment.run``).

``ScopedEnvironment`` also moves the workspace root to ``subdir``: relative paths start there,
``working_directory()`` names it, commands run there unless given a ``cwd``, and paths that
leave it (``..`` climbing out, absolute paths elsewhere) are refused with ``PathPolicyError``.
Every path goes to the parent's environment as an absolute path under the subdirectory, so the
parent's own policy (symlinks leading out of the workspace) still applies. Paths that come back
(grep matches, glob results, ``stat``) are shown relative to the subdirectory. As for the
parent, the path policy confines file operations, not what a shell command does.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Mapping, Sequence

from taor.env.base import (
    Capabilities,
    CommandResult,
    DirEntry,
    Environment,
    FileStat,
    GrepMatch,
    OutputCallback,
    Spawned,
    capabilities,
)
from taor.env.paths import relative_display, resolve_lexically


class SharedEnvironment:
    """The parent's environment with the parent keeping its lifecycle."""

    def __init__(self, inner: Environment) -> None:
        self.inner = inner

    @property
    def capabilities(self) -> Capabilities:
        """The parent's: commands run through it (in the scoped directory for a scoped view)."""
        return capabilities(self.inner)

    async def initialize(self) -> None:
        """Nothing: the parent's session initialized the environment."""

    async def cleanup(self) -> None:
        """Nothing: the parent's session cleans the environment up when it closes."""

    def working_directory(self) -> str:
        return self.inner.working_directory()

    def platform(self) -> str:
        return self.inner.platform()

    def os_version(self) -> str:
        return self.inner.os_version()

    def _path(self, path: str) -> str:
        return path

    def _shown(self, path: str) -> str:
        return path

    async def read_text(self, path: str, *, offset: int = 0, limit: int | None = None) -> str:
        return await self.inner.read_text(self._path(path), offset=offset, limit=limit)

    async def read_bytes(self, path: str, *, offset: int = 0, limit: int | None = None) -> bytes:
        return await self.inner.read_bytes(self._path(path), offset=offset, limit=limit)

    async def write(self, path: str, content: str | bytes) -> None:
        await self.inner.write(self._path(path), content)

    async def remove(self, path: str) -> None:
        await self.inner.remove(self._path(path))

    async def exists(self, path: str) -> bool:
        return await self.inner.exists(self._path(path))

    async def stat(self, path: str) -> FileStat:
        found = await self.inner.stat(self._path(path))
        return dataclasses.replace(found, path=self._shown(found.path))

    async def list_dir(self, path: str = ".", *, depth: int = 1) -> list[DirEntry]:
        return await self.inner.list_dir(self._path(path), depth=depth)

    async def run(
        self,
        command: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 (the command's limit, not the await's)
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        on_output: OutputCallback | None = None,
        output_file: str | None = None,
    ) -> CommandResult:
        return await self.inner.run(
            command,
            timeout=timeout,
            cwd=self._cwd(cwd),
            env=env,
            on_output=on_output,
            output_file=output_file,
        )

    async def spawn(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Spawned:
        return await self.inner.spawn(argv, cwd=self._cwd(cwd), env=env)

    def _cwd(self, cwd: str | None) -> str | None:
        return cwd

    async def grep(
        self,
        pattern: str,
        path: str = ".",
        *,
        glob: str | None = None,
        ignore_case: bool = False,
        max_matches: int | None = None,
    ) -> list[GrepMatch]:
        matches = await self.inner.grep(
            pattern,
            self._path(path),
            glob=glob,
            ignore_case=ignore_case,
            max_matches=max_matches,
        )
        return [dataclasses.replace(m, path=self._shown(m.path)) for m in matches]

    async def glob(self, pattern: str, path: str = ".") -> list[str]:
        return [self._shown(p) for p in await self.inner.glob(pattern, self._path(path))]


class ScopedEnvironment(SharedEnvironment):
    """The parent's environment with its workspace root moved down to ``subdir``."""

    def __init__(self, inner: Environment, subdir: str) -> None:
        super().__init__(inner)
        self._parent_root = posixpath.normpath(inner.working_directory())
        self.root = resolve_lexically(subdir, [self._parent_root])

    def working_directory(self) -> str:
        return self.root

    def _path(self, path: str) -> str:
        return resolve_lexically(path, [self.root])

    def _cwd(self, cwd: str | None) -> str:
        return self._path("." if cwd is None else cwd)

    def _shown(self, path: str) -> str:
        absolute = path if posixpath.isabs(path) else posixpath.join(self._parent_root, path)
        return relative_display(posixpath.normpath(absolute), self.root)


def child_environment(parent: Environment, working_dir: str | None = None) -> SharedEnvironment:
    """What a child gets: the parent's environment, scoped when ``working_dir`` names a
    directory below the parent's workspace root (``PathPolicyError`` when it leaves it)."""
    if working_dir is None or working_dir.strip() in ("", "."):
        return SharedEnvironment(parent)
    return ScopedEnvironment(parent, working_dir)
