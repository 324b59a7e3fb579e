"""The sessions on disk: where each project's transcripts are kept and how one is found
(``paths``: the newest, one by a prefix of its id), and the catalogue of them read from each
transcript's summary (``catalogue``)."""

from taor.host.sessions.paths import (
    by_id,
    new_path,
    newest,
    project_key,
    project_root,
    session_id,
    sessions_dir,
)

__all__ = [
    "by_id",
    "new_path",
    "newest",
    "project_key",
    "project_root",
    "session_id",
    "sessions_dir",
]
