"""The ``Environment`` protocol, its result records and the errors a tool returns to the model.

An environment is where files change and commands run: ``LocalEnvironment`` (the host),
``SandboxEnvironment`` (the same command runner wrapped in bubblewrap) and ``MemoryEnvironment``
(an in-memory filesystem with scripted command results) all satisfy the one protocol below.

Paths given to an environment are relative to its workspace root (or absolute inside the root or
a root the caller explicitly allowed); anything that leads elsewhere raises ``PathPolicyError``.
Errors::

    EnvError (a TaorError)        a failure the model should see (the tool makes it is_error)
    ├── PathPolicyError           a path outside the workspace and the allowed roots
    └── PathNotFoundError         a file or directory that does not exist (or is the wrong kind)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Literal, Protocol, runtime_checkable

from taor._records import frozen
from taor.errors import EnvError as EnvError  # defined in taor.errors, exported here too
from taor.errors import PathNotFoundError as PathNotFoundError
from taor.errors import PathPolicyError as PathPolicyError

StreamName = Literal["stdout", "stderr"]
OutputCallback = Callable[[str, StreamName], Awaitable[None] | None]
"""Receives decoded output as it arrives: ``(text, stream)``; may be sync or async."""


@frozen
class CommandResult:
    """What a command did.

    ``exit_code`` is None only when the process could not be waited for; a process killed by a
    signal has ``-signum``. ``stdout``/``stderr`` are kept separately, ``output`` is both in
    arrival order plus any notes for the model (timeout, clamped timeout, dropped bytes).
    ``duration`` is wall-clock seconds. ``timeout`` is the limit applied, and
    ``requested_timeout`` what the caller asked for when it was clamped (else None).
    The ``*_dropped`` counts say how much was cut from the middle to bound memory (bytes for
    stdout/stderr, characters for ``output``). ``output_file``: where the whole combined output
    was written, when the caller gave ``run`` one and the output did not fit (else None).
    """

    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    output: str
    duration: float
    timed_out: bool
    timeout: float
    requested_timeout: float | None = None
    stdout_dropped: int = 0
    stderr_dropped: int = 0
    output_dropped: int = 0
    output_file: str | None = None

    @property
    def truncated(self) -> bool:
        """True when any output was dropped from the middle."""
        return bool(self.stdout_dropped or self.stderr_dropped or self.output_dropped)


@frozen
class FileStat:
    """Facts about one path: its kind, size in bytes and modification time (epoch seconds)."""

    path: str
    is_file: bool
    is_dir: bool
    is_symlink: bool
    size: int
    mtime: float


@frozen
class DirEntry:
    """One entry of a listing: its path relative to the listed directory, name, kind, size.

    ``size`` is None for directories; ``depth`` is 1 for direct children.
    """

    path: str
    name: str
    is_dir: bool
    size: int | None
    depth: int


@frozen
class GrepMatch:
    """One matching line: the file (relative to the workspace root), 1-based line number, text."""

    path: str
    line_number: int
    line: str


@frozen
class Capabilities:
    """What an environment can do beyond the protocol, for tools that can use it.

    ``host_programs``: its commands run programs installed on the machine taor runs on, so a
    tool may run one it found there (grep runs ripgrep) through ``run``, in the environment's
    working directory and with its confinement."""

    host_programs: bool = False


def capabilities(environment: object) -> Capabilities:
    """``environment.capabilities``, or none for an environment that states nothing."""
    found = getattr(environment, "capabilities", None)
    return found if isinstance(found, Capabilities) else Capabilities()


class Spawned(Protocol):
    """A long-lived process an environment started (``Environment.spawn``): its stdin, stdout
    and captured stderr; ``terminate`` ends its process group (SIGTERM, SIGKILL 2 s later)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    @property
    def stderr(self) -> str: ...

    async def write(self, data: str | bytes) -> None: ...

    async def close_stdin(self) -> None: ...

    async def read_line(self) -> bytes: ...

    async def read(self, size: int = -1) -> bytes: ...

    async def wait(self) -> int: ...

    async def terminate(self) -> int | None: ...


@runtime_checkable
class Environment(Protocol):
    """Files, processes and search, confined to a workspace.

    Reads and writes take paths relative to the workspace root. ``read_text`` counts ``offset``
    and ``limit`` in lines (0-based), ``read_bytes`` in bytes. ``write`` is atomic and creates
    parent directories. ``remove`` deletes one file (a symlink itself, not its target):
    ``PathNotFoundError`` when it does not exist, ``EnvError`` for a directory. ``run`` never
    raises for a failing or timed-out command (see ``CommandResult``); it raises ``EnvError``
    only when the command cannot be started. Cancelling the task awaiting ``run`` kills the
    whole process group before re-raising. ``output_file`` is a path on the host where ``run``
    writes the whole combined output when it is more than the result keeps (an environment that
    keeps all of it may ignore it).
    ``list_dir`` is sorted by path and does not enter ``.git``. ``grep`` takes a Python regex and
    reports paths relative to the workspace root; ``glob`` returns the files under ``path`` whose
    path relative to it matches, newest first. Both skip ``.git`` and ``.gitignore``d paths.
    ``spawn`` starts a long-lived process (a stdio server) from ``argv`` with the same
    environment variables policy and confinement as ``run``; it lives until its ``terminate``
    or the environment's ``cleanup``. An environment that cannot run processes raises
    ``EnvError`` saying so.
    An environment may also state its ``Capabilities`` as a ``capabilities`` attribute.
    """

    async def initialize(self) -> None: ...

    async def cleanup(self) -> None: ...

    def working_directory(self) -> str: ...

    def platform(self) -> str: ...

    def os_version(self) -> str: ...

    async def read_text(self, path: str, *, offset: int = 0, limit: int | None = None) -> str: ...

    async def read_bytes(
        self, path: str, *, offset: int = 0, limit: int | None = None
    ) -> bytes: ...

    async def write(self, path: str, content: str | bytes) -> None: ...

    async def remove(self, path: str) -> None: ...

    async def exists(self, path: str) -> bool: ...

    async def stat(self, path: str) -> FileStat: ...

    async def list_dir(self, path: str = ".", *, depth: int = 1) -> list[DirEntry]: ...

    async def run(
        self,
        command: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 (the command's limit, not the await's)
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        on_output: OutputCallback | None = None,
        output_file: str | None = None,
    ) -> CommandResult: ...

    async def spawn(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Spawned: ...

    async def grep(
        self,
        pattern: str,
        path: str = ".",
        *,
        glob: str | None = None,
        ignore_case: bool = False,
        max_matches: int | None = None,
    ) -> list[GrepMatch]: ...

    async def glob(self, pattern: str, path: str = ".") -> list[str]: ...
