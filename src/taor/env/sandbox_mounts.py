"""What a sandboxed command can see: the bubblewrap mount options of ``SandboxEnvironment``.

Nothing of the host is visible unless listed here, so no host socket and no private file can
be reached:

- system programs, libraries and configuration read-only (``SYSTEM_DIRS``), with private files
  in them (``HIDDEN_FILES``: password hashes, sudoers, ssh host keys, TLS private keys) replaced
  by empty ones;
- fresh, private ``/tmp``, ``/var/tmp``, ``/run`` and home directory (the command's ``HOME``);
  ``/dev`` and ``/proc`` come from bwrap itself;
- the toolchains the command's ``PATH`` points into when they live outside the system
  directories (``~/.pyenv``, ``~/.cargo`` with ``~/.rustup``, a venv, ``/nix/...``), and the
  directories named by toolchain variables (``PYENV_ROOT``, ``CARGO_HOME``, ``GOROOT``, ...),
  read-only. A toolchain under the home is bound as its top directory (``~/.pyenv``), except
  under directories that hold credentials (``~/.config``, ``~/.local``, ``~/.ssh``, ...), where
  only the ``PATH`` entry itself is bound;
- in what is bound read-only, the toolchains' credential files (cargo's ``credentials.toml``,
  ``.npmrc``, ``.netrc``, ``.aws``, ...) hidden (``taor.env.sandbox_secrets``);
- the caller's extra read-only paths, then the workspace and allowed roots read-write.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from taor.env.sandbox_secrets import homes_of, masks

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
HIDDEN_FILES = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/security/opasswd",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private",
    "/etc/NetworkManager/system-connections",
    "/etc/wireguard",
)
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/run")
TOOLCHAIN_VARS = (
    "PYENV_ROOT",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOROOT",
    "GOPATH",
    "JAVA_HOME",
    "NVM_DIR",
    "BUN_INSTALL",
    "DENO_DIR",
    "RBENV_ROOT",
    "GEM_HOME",
    "DOTNET_ROOT",
    "ANDROID_HOME",
)
_CREDENTIAL_DIRS = frozenset(
    {".ssh", ".gnupg", ".aws", ".azure", ".config", ".local", ".docker", ".kube", ".cache"}
)


def mount_options(
    *,
    writable: Iterable[str],
    environ: Mapping[str, str],
    account_home: Path,
    ro_paths: Sequence[str | Path] = (),
    network: bool = False,
) -> list[str]:
    """bwrap's filesystem options, in the order they must be mounted (later ones on top)."""
    options: list[str] = []
    for directory in SYSTEM_DIRS:
        options += _system(directory)
    for pattern in HIDDEN_FILES:
        for path in sorted(glob.glob(pattern)):
            options += (
                ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
            )
    for directory in (*PRIVATE_DIRS, *_home(environ)):
        options += ["--tmpfs", directory]
    readable = [*toolchain_paths(environ, account_home), *map(str, ro_paths)]
    if network:
        readable += _resolver()
    bound = [path for path in dict.fromkeys(readable) if os.path.exists(path)]
    for path in bound:
        options += ["--ro-bind", path, path]
    options += masks(bound, homes_of(environ, account_home))  # credentials in what is bound
    for path in writable:
        if os.path.exists(path):  # a missing allowed root can't be bound (nor written)
            options += ["--bind", path, path]
    return options


def toolchain_paths(environ: Mapping[str, str], account_home: Path) -> list[str]:
    """The directories outside the system ones that the command's programs live in."""
    found: list[str] = []
    for entry in environ.get("PATH", "").split(os.pathsep):
        real = os.path.realpath(entry) if entry.startswith("/") else ""
        if real and os.path.isdir(real) and not is_system(real):
            found.append(_toolchain_root(Path(real), account_home))
            if entry != real and not is_system(entry):
                found.append(entry)
    for name in TOOLCHAIN_VARS:
        value = environ.get(name, "")
        if value.startswith("/") and os.path.isdir(value) and not is_system(value):
            found.append(os.path.realpath(value))
    cargo, rustup = str(account_home / ".cargo"), account_home / ".rustup"
    if cargo in found and rustup.is_dir():  # cargo and rustc are rustup's proxies
        found.append(str(rustup))
    return list(dict.fromkeys(found))


def is_system(path: str) -> bool:
    """True for a path inside one of the system directories the sandbox binds."""
    return any(path == d or path.startswith(d + "/") for d in SYSTEM_DIRS)


def _system(directory: str) -> list[str]:
    if os.path.islink(directory):  # merged /usr: /bin -> usr/bin
        return ["--symlink", os.readlink(directory), directory]
    if os.path.isdir(directory):
        return ["--ro-bind", directory, directory]
    return []


def _home(environ: Mapping[str, str]) -> list[str]:
    home = environ.get("HOME", "")
    if home.startswith("/") and home != "/" and not is_system(home):
        return [home]
    return []


def _toolchain_root(path: Path, account_home: Path) -> str:
    """``~/.pyenv`` for ``~/.pyenv/shims``; the entry itself elsewhere, or when its top
    directory under the home holds credentials too."""
    if not path.is_relative_to(account_home) or path == account_home:
        return str(path)
    top = path.relative_to(account_home).parts[0]
    return str(path) if top in _CREDENTIAL_DIRS else str(account_home / top)


def _resolver() -> list[str]:
    """Where /etc/resolv.conf points when it is a link out of /etc (systemd-resolved's /run)."""
    real = os.path.realpath("/etc/resolv.conf")
    return [] if real.startswith("/etc/") else [real]
