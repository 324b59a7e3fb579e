"""The settings a run in a folder gets: the user's config directory, and every layer resolved
for the folder's project, its own files acting only when the folder is trusted."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from taor.host.sessions.paths import project_root
from taor.host.settings.resolve import Settings, resolve
from taor.host.settings.trust import TrustList


def user_config() -> Path:
    """The user's taor config directory (``$XDG_CONFIG_HOME/taor`` on Linux)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("taor"))


def settings_for(
    cwd: Path, environ: Mapping[str, str], *, flags: Mapping[str, Any], trust: bool = False
) -> Settings:
    """The settings of a run in ``cwd``; the project's files act for the person only in a
    folder they trust (``taor trust``), or with ``trust`` for this run."""
    root = project_root(cwd)
    config_dir = user_config()
    return resolve(
        cwd=cwd,
        root=root,
        config_dir=config_dir,
        environ=environ,
        flags=flags,
        trusted=trust or TrustList(config_dir).trusts(root),
    )
