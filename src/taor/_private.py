"""Files only their owner can read: what taor keeps under the user's directories (transcripts,
logs, checkpoints, the saved prompt cache) can hold code, conversations and secrets.

``private_dir`` makes a folder 0700, creating each missing parent 0700 as well (``mkdir -p``
would give them the umask's 0755); ``private_open`` opens a file created 0600 and brings an
existing one to 0600. Folders that existed before are left as they are, except the one asked
for, which is taor's own.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` as a folder only its owner can enter, created with its missing parents."""
    folder = Path(path)
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            directory.mkdir(mode=DIR_MODE)
    with contextlib.suppress(OSError):  # not ours to change (another user's folder)
        if folder.stat().st_mode & 0o077:
            folder.chmod(DIR_MODE)
    return folder


def private_open(path: str | os.PathLike[str], flags: int) -> int:
    """``os.open(path, flags)`` creating the file 0600, an existing one brought to 0600."""
    fd = os.open(path, flags, FILE_MODE)
    make_private(fd)
    return fd


def make_private(file: int | str | os.PathLike[str]) -> None:
    """Bring an open descriptor's file, or the file at a path, to 0600 (when it is ours)."""
    with contextlib.suppress(OSError):
        if isinstance(file, int):
            os.fchmod(file, FILE_MODE)
        else:
            os.chmod(file, FILE_MODE)
