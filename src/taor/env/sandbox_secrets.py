"""The credential files a sandboxed command must not read, inside the directories it can.

The sandbox binds toolchains read-only: ``CARGO_HOME``, ``GEM_HOME``, a venv, a home directory
that ``PATH`` names, a caller's extra paths. Those directories can hold the toolchains' own
credentials (cargo's ``credentials.toml``, RubyGems' ``credentials``, a ``.npmrc`` with an auth
token, ...). ``masks`` lists the bwrap options that hide each one found there: an empty file
over a file, an empty directory over a directory. The toolchain itself stays usable; only
these files read empty.

Each name is looked for directly in every mounted directory (``CARGO_HOME/credentials.toml``)
and at its place under the home directories (``~/.cargo/credentials.toml`` when ``~`` or
``~/.cargo`` is mounted). A ``pip.conf`` (a venv's or the user's) is hidden only when it holds a
credential (an index URL with a password), since it usually just names the index to use.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from taor.env.envvars import is_secret_value

# Files hidden wherever they are found in a mounted directory, or under a home in one.
CREDENTIAL_FILES = (
    "credentials",  # cargo (old name), RubyGems (~/.gem/credentials)
    "credentials.toml",  # cargo
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".local/share/gem/credentials",
    ".npmrc",  # npm, per user
    "etc/npmrc",  # npm, per prefix
    ".yarnrc.yml",
    ".pypirc",  # twine / setuptools upload
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".docker/config.json",
    ".aws/credentials",
    ".aws/config",
    ".kube/config",
    ".config/gh/hosts.yml",
)
# Directories hidden whole (replaced by an empty one).
CREDENTIAL_DIRS = (".config/gcloud", ".azure", ".ssh", ".gnupg")
# Hidden when their content holds a credential.
PIP_CONFIGS = ("pip.conf", ".pip/pip.conf", ".config/pip/pip.conf")


def masks(mounted: Iterable[str], homes: Iterable[str]) -> list[str]:
    """bwrap options hiding the credentials inside ``mounted`` (read-only binds), to be given
    after those binds; ``homes`` are the home directories whose dot-files count."""
    roots = {path: os.path.realpath(path) for path in mounted if os.path.isdir(path)}
    bases = [*roots.values(), *(os.path.realpath(h) for h in homes if h.startswith("/"))]
    files, dirs = _found(bases)
    options: list[str] = []
    for path in dict.fromkeys(p for f in files for p in _seen_at(f, roots)):
        options += ["--ro-bind", "/dev/null", path]
    for path in dict.fromkeys(p for d in dirs for p in _seen_at(d, roots)):
        options += ["--tmpfs", path]
    return options


def _seen_at(real: str, roots: Mapping[str, str]) -> list[str]:
    """Where the sandbox shows the host file ``real``: under each mount whose source holds it."""
    return [
        mount + real[len(source) :]
        for mount, source in roots.items()
        if real == source or real.startswith(source.rstrip("/") + "/")
    ]


def _found(bases: list[str]) -> tuple[list[str], list[str]]:
    """The credential files and directories under ``bases``, by their real paths."""
    files: list[str] = []
    dirs: list[str] = []
    for base in bases:
        for name in CREDENTIAL_FILES:
            files += _real(os.path.join(base, name), os.path.isfile)
        for name in PIP_CONFIGS:
            files += [p for p in _real(os.path.join(base, name), os.path.isfile) if _secret(p)]
        for name in CREDENTIAL_DIRS:
            dirs += _real(os.path.join(base, name), os.path.isdir)
    return files, dirs


def _real(path: str, kind: Callable[[str], bool]) -> list[str]:
    real = os.path.realpath(path)
    return [real] if kind(real) else []


def _secret(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return is_secret_value(file.read(1 << 16))
    except OSError:
        return False


def homes_of(environ: Mapping[str, str], account_home: Path) -> list[str]:
    """The home directories whose dot-files are credentials: the account's and ``HOME``."""
    return list(dict.fromkeys([str(account_home), environ.get("HOME", "")]))
