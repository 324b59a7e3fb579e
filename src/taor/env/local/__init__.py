"""``LocalEnvironment``: the host's filesystem and processes, confined by the path policy.

File operations run in a worker thread so a large read never stalls the event loop. Writes are
atomic (a temporary file in the same directory, then ``os.replace``), create parent directories
and keep an existing file's permissions. Commands go through ``run_command`` (see
``taor.env.process``) with the environment-variable policy of ``taor.env.envvars``;
``SandboxEnvironment`` overrides ``command_prefix`` to wrap the same runner.

Background children that redirect their output outlive their command (an agent can start a
dev server, then screenshot it) but not the environment: ``cleanup()`` ends the process groups
of earlier commands that still run, then every process still marked with the environment's id,
so daemons that called ``setsid`` or forked twice end too (``taor.env.local.commands``,
``taor.env.reaper``). A watchdog process ends them as well if taor dies without cleaning up,
even by SIGKILL. ``SandboxEnvironment`` ends them with their command (its pid namespace dies
with bash).

This is not a security boundary: a command runs as the user, sees the user's files and can read
taor's own environment, API keys included, from ``/proc/<pid>/environ``; use
``SandboxEnvironment`` for untrusted work.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from taor.env import search
from taor.env.base import (
    Capabilities,
    CommandResult,
    DirEntry,
    EnvError,
    FileStat,
    GrepMatch,
    OutputCallback,
    PathNotFoundError,
    PathPolicyError,
)
from taor.env.envvars import EnvPolicy, command_environ
from taor.env.local import files as local_files
from taor.env.local.commands import Commands
from taor.env.paths import PathPolicy
from taor.env.process import DEFAULT_TIMEOUT, MAX_TIMEOUT, OUTPUT_CAP
from taor.env.spawned import SpawnedProcess

_PLATFORMS = {"darwin": "darwin", "win32": "windows", "cygwin": "windows", "emscripten": "wasm"}


class LocalEnvironment:
    """Files and commands on this machine, inside ``root`` plus ``allowed_roots``."""

    capabilities = Capabilities(host_programs=True)

    def __init__(
        self,
        root: str | Path,
        *,
        allowed_roots: Sequence[str | Path] = (),
        env_policy: EnvPolicy = "inherit_all",
        environ: Mapping[str, str] | None = None,
        default_timeout: float = DEFAULT_TIMEOUT,
        max_timeout: float = MAX_TIMEOUT,
        output_cap: int = OUTPUT_CAP,
    ) -> None:
        self.paths = PathPolicy(root, allowed_roots)
        self.env_policy: EnvPolicy = env_policy
        self._environ = dict(os.environ if environ is None else environ)
        self.default_timeout = default_timeout
        self.max_timeout = max_timeout
        self.output_cap = output_cap
        self._commands = Commands()

    # lifecycle and facts

    async def initialize(self) -> None:
        """Check that the workspace root is an existing directory."""
        if not self.paths.root.is_dir():
            raise EnvError(f"The workspace root {self.paths.root} is not an existing directory.")

    async def cleanup(self) -> None:
        """Cancel the commands still running, then end the process groups of earlier commands
        whose background children still run (SIGTERM to the group, SIGKILL 2 s later)."""
        await self._commands.end_all()

    def working_directory(self) -> str:
        return str(self.paths.root)

    def platform(self) -> str:
        return _PLATFORMS.get(
            sys.platform, "linux" if sys.platform.startswith("linux") else sys.platform
        )

    def os_version(self) -> str:
        # platform.system() and .release(), without importing platform (its regexes cost)
        name = os.uname() if hasattr(os, "uname") else None
        return f"{name.sysname} {name.release}" if name is not None else sys.platform

    # files

    def _existing(self, path: str) -> Path:
        resolved = self.paths.resolve(path)
        if not resolved.exists():
            raise PathNotFoundError(f"No such file or directory: {path!r} (in {self.paths.root}).")
        return resolved

    def _file(self, path: str) -> Path:
        resolved = self._existing(path)
        if resolved.is_dir():
            raise PathNotFoundError(f"{path!r} is a directory, not a file; list it instead.")
        return resolved

    async def read_text(self, path: str, *, offset: int = 0, limit: int | None = None) -> str:
        return await asyncio.to_thread(local_files.read_lines, self._file(path), offset, limit)

    async def read_bytes(self, path: str, *, offset: int = 0, limit: int | None = None) -> bytes:
        return await asyncio.to_thread(local_files.read_range, self._file(path), offset, limit)

    async def write(self, path: str, content: str | bytes) -> None:
        resolved = self.paths.resolve(path)
        if resolved.is_dir():
            raise EnvError(f"{path!r} is a directory; give a file path to write.")
        data = content.encode("utf-8") if isinstance(content, str) else content
        await asyncio.to_thread(local_files.write_atomic, resolved, data)

    async def remove(self, path: str) -> None:
        resolved = self._existing(path)
        await asyncio.to_thread(local_files.remove_file, self.paths.root / path, resolved, path)

    async def exists(self, path: str) -> bool:
        return self.paths.resolve(path).exists()

    async def stat(self, path: str) -> FileStat:
        resolved = self._existing(path)
        link = (self.paths.root / path).is_symlink()
        return local_files.file_stat(resolved, self.paths.display(resolved), is_symlink=link)

    async def list_dir(self, path: str = ".", *, depth: int = 1) -> list[DirEntry]:
        resolved = self._existing(path)
        if not resolved.is_dir():
            raise PathNotFoundError(f"{path!r} is a file, not a directory; read it instead.")
        return await asyncio.to_thread(local_files.list_entries, resolved, depth)

    # processes

    def command_prefix(self, cwd: Path) -> list[str]:
        """Words put before ``/bin/bash -c command``; none here, bubblewrap in the sandbox."""
        return []

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
        directory = self._existing(cwd) if cwd is not None else self.paths.root
        if not directory.is_dir():
            raise PathNotFoundError(f"The working directory {cwd!r} is not a directory.")
        return await self._commands.run(
            command,
            cwd=directory,
            env=command_environ(self._environ, self.env_policy, env),
            timeout=self.default_timeout if timeout is None else timeout,
            on_output=on_output,
            max_timeout=self.max_timeout,
            cap=self.output_cap,
            prefix=self.command_prefix(directory),
            output_file=output_file,
        )

    async def spawn(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> SpawnedProcess:
        """A long-lived process with pipes, run like a command (``taor.env.spawned``)."""
        directory = self._existing(cwd) if cwd is not None else self.paths.root
        if not directory.is_dir():
            raise PathNotFoundError(f"The working directory {cwd!r} is not a directory.")
        return await self._commands.spawn(
            argv,
            cwd=directory,
            env=command_environ(self._environ, self.env_policy, env),
            prefix=self.command_prefix(directory),
        )

    # search

    def _allowed(self, path: Path) -> bool:
        try:
            self.paths.resolve(str(path))
        except PathPolicyError:
            return False
        return True

    async def grep(
        self,
        pattern: str,
        path: str = ".",
        *,
        glob: str | None = None,
        ignore_case: bool = False,
        max_matches: int | None = None,
    ) -> list[GrepMatch]:
        start = self._existing(path)
        return await asyncio.to_thread(
            search.grep_files,
            self.paths.root,
            start,
            pattern,
            allowed=self._allowed,
            glob=glob,
            ignore_case=ignore_case,
            max_matches=max_matches,
        )

    async def glob(self, pattern: str, path: str = ".") -> list[str]:
        start = self._existing(path)
        found = await asyncio.to_thread(
            search.glob_files, self.paths.root, start, pattern, self._allowed
        )
        return [self.paths.display(p) for p in found]


__all__ = ["LocalEnvironment"]
