"""Trusted folders: the projects whose own files (``.taor/config.toml``, ``.env``, custom
commands, hooks) may act for the person.

A cloned repository is someone else's text. Until its folder is trusted, the settings in it
that could send a key elsewhere, weaken permissions or the sandbox, or start a process are
ignored (``taor.host.settings.confine``). The list lives in the user's config directory
(``trusted_folders.json``), one absolute path per folder; a folder is trusted when it or a
folder above it is on the list. Writes take a lock and replace the file atomically, so two
``taor trust`` at once both land; the file is the user's alone (0600).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from taor.errors import ConfigurationError

FILE = "trusted_folders.json"


@dataclass(frozen=True, slots=True)
class TrustList:
    """The trusted folders kept in ``config_dir``."""

    config_dir: Path

    @property
    def path(self) -> Path:
        return self.config_dir / FILE

    def folders(self) -> list[Path]:
        try:
            text = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as error:
            raise ConfigurationError(f"{self.path}: cannot be read: {error.strerror}") from None
        try:
            listed = json.loads(text)["folders"]
            if not all(isinstance(folder, str) for folder in listed):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            raise ConfigurationError(
                f"{self.path}: not a list of trusted folders; fix it or delete it "
                "(then trust your folders again with taor trust DIR)"
            ) from None
        return [Path(folder) for folder in listed]

    def trusts(self, folder: Path) -> bool:
        """``folder`` or a folder above it is on the list."""
        folder = folder.resolve()
        return any(folder == listed or listed in folder.parents for listed in self.folders())

    def add(self, folder: Path) -> bool:
        """Put ``folder`` on the list; False when it was there already."""
        folder = folder.resolve()
        with self._locked():
            folders = self.folders()
            if folder in folders:
                return False
            self._write([*folders, folder])
        return True

    def remove(self, folder: Path) -> bool:
        """Take ``folder`` off the list; False when it was not on it."""
        folder = folder.resolve()
        with self._locked():
            folders = self.folders()
            if folder not in folders:
                return False
            self._write([listed for listed in folders if listed != folder])
        return True

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.config_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.config_dir / f".{FILE}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, folders: list[Path]) -> None:
        text = json.dumps({"folders": [str(folder) for folder in folders]}, indent=2) + "\n"
        temporary = self.path.with_name(f".{FILE}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)
