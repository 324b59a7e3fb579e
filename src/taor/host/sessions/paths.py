"""Where sessions are kept: one JSONL transcript per run, under the user data
directory (platformdirs: ``$XDG_DATA_HOME/taor`` on Linux), grouped by project (the git root,
else the working directory). ``--continue`` takes the newest of this project, ``--resume ID``
the one whose id starts with ``ID``."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from taor.errors import ConfigurationError


def project_root(cwd: Path) -> Path:
    """The git work tree's root above ``cwd``, else ``cwd`` itself."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def project_key(cwd: Path) -> str:
    """A file name for the project of ``cwd``: its folder's name and a digest of its path."""
    root = project_root(cwd)
    slug = re.sub(r"[^A-Za-z0-9_.-]", "-", root.name or "root")[:40]
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return f"{slug}-{digest}"


def sessions_dir(cwd: Path) -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("taor")) / "sessions" / project_key(cwd)


def new_path(folder: Path, session_id: str) -> Path:
    """A new transcript's file; names sort by the session's start (``transcript_name``)."""
    from taor.agent.record.persist import transcript_name

    return folder / transcript_name(session_id)


def session_id(path: Path) -> str:
    """The id in a transcript's file name (``<start>-<id>.jsonl``)."""
    return path.stem.split("-", 1)[-1]


def _all(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def newest(folder: Path) -> Path:
    found = _all(folder)
    if not found:
        raise ConfigurationError("no session of this project to continue; run taor -p first")
    return found[-1]


def by_id(folders: list[Path], prefix: str, *, scope: str = "of this project") -> Path:
    """The session in ``folders`` whose id starts with ``prefix``; a clear error for none or
    several (``scope`` says where it looked)."""
    found = [p for folder in folders for p in _all(folder) if session_id(p).startswith(prefix)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise ConfigurationError(f"no session {scope} has an id starting {prefix!r}")
    ids = ", ".join(session_id(p)[:12] for p in found)
    raise ConfigurationError(f"{prefix!r} names several sessions ({ids}); give more of the id")
