"""Where the command keeps its sessions: one JSONL transcript per run, under the user data
directory (platformdirs: ``$XDG_DATA_HOME/taor`` on Linux), grouped by project (the git root,
else the working directory). ``--continue`` takes the newest of this project, ``--resume ID``
the one whose id starts with ``ID``."""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

from taor.errors import ConfigurationError


def project_root(cwd: Path) -> Path:
    """The git work tree's root above ``cwd``, else ``cwd`` itself."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def sessions_dir(cwd: Path) -> Path:
    from platformdirs import user_data_dir

    root = project_root(cwd)
    slug = re.sub(r"[^A-Za-z0-9_.-]", "-", root.name or "root")[:40]
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return Path(user_data_dir("taor")) / "sessions" / f"{slug}-{digest}"


def new_path(folder: Path, session_id: str) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return folder / f"{stamp}-{session_id}.jsonl"


def _all(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def newest(folder: Path) -> Path:
    found = _all(folder)
    if not found:
        raise ConfigurationError("no session of this project to continue; run taor -p first")
    return found[-1]


def by_id(folder: Path, prefix: str) -> Path:
    """The session whose id starts with ``prefix``; a clear error for none or several."""
    found = [p for p in _all(folder) if p.stem.split("-", 1)[-1].startswith(prefix)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise ConfigurationError(f"no session of this project has an id starting {prefix!r}")
    ids = ", ".join(p.stem.split("-", 1)[-1][:12] for p in found)
    raise ConfigurationError(f"{prefix!r} names several sessions ({ids}); give more of the id")
