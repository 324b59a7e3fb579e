"""A run's workspace: where its tools work.

- ``empty``: a new folder of the run's own under the service's data folder;
- ``template``: that folder, with a named sub-folder of the service's templates folder copied in;
- ``git``: that folder, with a repository cloned into it by the worker that takes the run (a
  clone that fails fails the run with git's reason); https, ssh and git URLs, and a local
  repository (a path or ``file://``) only inside the host allowlist;
- ``host``: an existing folder inside the host allowlist (none by default), worked in in place
  and never deleted with the run.

``check`` says whether a request can be met (a ``ConfigurationError``: the API answers 422 with
it), ``prepare`` makes the folder when the run is created, ``clone`` runs in the worker. Paths are
resolved (symlinks, ``..``) before they are checked against the allowlist.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from taor._private import private_dir
from taor.errors import ConfigurationError, EnvError
from taor.server.config import ServiceConfig

REMOTE = ("https://", "ssh://", "git://", "git@")
CREDENTIALS = re.compile(r"//[^/@\s]+@")  # user:token@ in a URL git quotes back


def check(config: ServiceConfig, spec: Mapping[str, Any]) -> Path | None:
    """Whether the service offers the workspace ``spec`` asks for (a ``ConfigurationError``
    says why not); the host folder or the template folder it names."""
    kind = spec.get("kind", "empty")
    if kind == "host":
        return allowed(config, spec.get("path") or "", what="host folder")
    if kind == "git":
        check_url(config, spec.get("url") or "")
    return template(config, spec.get("template") or "") if kind == "template" else None


def prepare(config: ServiceConfig, run_id: str, spec: Mapping[str, Any]) -> Path:
    """The run's workspace folder, made (or found, for ``host``) as ``spec`` asks."""
    found = check(config, spec)
    if spec.get("kind") == "host" and found is not None:
        return found
    source = found
    folder = private_dir(config.data_dir / "workspaces" / run_id)
    if source is not None:
        shutil.copytree(source, folder, symlinks=True, dirs_exist_ok=True)
    return folder


def template(config: ServiceConfig, name: str) -> Path:
    root = config.templates()
    names = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if name not in names:
        offered = ", ".join(names) if names else f"none (add folders to {root})"
        raise ConfigurationError(f"workspace template {name!r} is unknown; templates: {offered}")
    return root / name


def allowed(config: ServiceConfig, path: str, *, what: str) -> Path:
    """``path`` resolved, when it is an existing folder inside the host allowlist."""
    if not config.host_allowlist:
        raise ConfigurationError(f"no {what} is allowed: the service's host allowlist is empty")
    if not path:
        raise ConfigurationError(f"workspace: give the path of the {what}")
    found = Path(path).expanduser().resolve()
    roots = [Path(root).expanduser().resolve() for root in config.host_allowlist]
    if not any(found == root or found.is_relative_to(root) for root in roots):
        listed = ", ".join(str(root) for root in roots)
        raise ConfigurationError(f"{what} {found} is outside the host allowlist ({listed})")
    if not found.is_dir():
        raise ConfigurationError(f"{what} {found} is not a folder")
    return found


def check_url(config: ServiceConfig, url: str) -> str:
    """``url`` when the service may clone it: a remote URL, or a local one in the allowlist."""
    if not url:
        raise ConfigurationError("workspace: a git workspace needs a url")
    if url.startswith("-"):
        raise ConfigurationError(f"workspace url {url!r} is not a repository URL")
    if url.startswith(REMOTE):
        return url
    if "::" in url or ("://" in url and not url.startswith("file://")):
        raise ConfigurationError(
            f"workspace url {url!r}: use an https, ssh or git URL (or an allowed local path)"
        )
    if not Path(url.removeprefix("file://")).is_absolute():
        raise ConfigurationError(f"workspace url {url!r}: give a local repository's full path")
    allowed(config, url.removeprefix("file://"), what="local repository")
    return url


async def clone(config: ServiceConfig, url: str, ref: str | None, folder: Path) -> None:
    """Clone ``url`` into ``folder`` (empty) and check ``ref`` out; ``EnvError`` with git's
    reason when it fails or takes over ``config.git_timeout`` seconds."""
    url = check_url(config, url)
    if url.startswith("file://") or not url.startswith(REMOTE):
        url = str(allowed(config, url.removeprefix("file://"), what="local repository"))
    _empty(folder)  # a clone cut short by a crash: the run has done nothing there yet
    try:
        await _git(config, "clone", "--quiet", "--", url, str(folder))
        if ref:
            if ref.startswith("-"):
                raise EnvError(f"git ref {ref!r} is not a branch, tag or commit")
            await _git(config, "-C", str(folder), "checkout", "--quiet", ref, "--")
    except BaseException:  # failed or stopped: the folder is left empty, for another try
        _empty(folder)
        raise


def _empty(folder: Path) -> None:
    for entry in folder.iterdir() if folder.is_dir() else ():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


async def _git(config: ServiceConfig, *args: str) -> None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
    env["GIT_ALLOW_PROTOCOL"] = "https:ssh:git:file"  # no ext:: or other helpers, ever
    process = await asyncio.create_subprocess_exec(
        "git",
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        async with asyncio.timeout(config.git_timeout):
            _, err = await process.communicate()
    except TimeoutError:
        raise EnvError(f"git {args[0]} took over {config.git_timeout:g} s") from None
    finally:
        if process.returncode is None:  # timed out, or the run was cancelled
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await asyncio.shield(process.wait())
    if process.returncode != 0:
        lines = [line.strip() for line in err.decode(errors="replace").splitlines()]
        reason = next((line for line in reversed(lines) if line), f"exit {process.returncode}")
        command = args[2] if args[0] == "-C" else args[0]
        raise EnvError(f"git {command} failed: {CREDENTIALS.sub('//', reason)}")
