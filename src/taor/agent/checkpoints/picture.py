"""A cheap picture of the workspace, taken before and after a shell command to see what it
changed. It is taken by one command run through the environment (so a sandbox sees what its
commands see):

- in a git work tree: the commit checked out, and the files whose content differs from a base
  commit (the one checked out, for the picture before the command; that same one, for the picture
  after it), untracked files included, ignored ones not: ``git status`` while the base is the
  commit checked out, else ``git diff --name-only`` against it and
  ``git ls-files --others --exclude-standard``. A file missing from both pictures is as the
  base commit has it, before and after.
- elsewhere: every file's size and modification time (GNU ``find``), skipping ``.git`` and
  folders that hold installed or generated files (``node_modules``, ``.venv``, caches), up to
  ``SCAN_CAP`` files.

``base_content`` fetches files as a commit has them (base64 through the command's text output),
for the files a command changed that were clean before it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import os
import re
import shlex
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from taor._private import private_dir
from taor._records import frozen
from taor.agent.checkpoints.log import MAX_FILE, Stat
from taor.env.base import EnvError, Environment

SKIPPED = (
    ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".cache",
)  # fmt: skip
SCAN_CAP = 20_000  # files a scan compares at most
TIMEOUT = 60.0  # seconds a picture may take
Mode = Literal["auto", "git", "plain"]
_QUIET = {"LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}  # no translated text, no index lock


@frozen
class GitPicture:
    head: str  # the commit checked out ("" before the first commit)
    dirty: frozenset[str]  # differing from the base commit, or untracked


@frozen
class ScanPicture:
    files: Mapping[str, str]  # "size mtime" by path (see stat_of)
    capped: bool


@frozen
class NoPicture:
    why: str


Picture = GitPicture | ScanPicture | NoPicture


def script(mode: Mode, base: str = "", cap: int = SCAN_CAP) -> str:
    """The picture's command. ``plain`` scans without asking git or testing ``find`` (the
    workspace is known to be that kind); ``git`` says so when the work tree is gone."""
    prune = " -o ".join(f"-name {shlex.quote(name)}" for name in SKIPPED)
    scan = (
        "printf '@scan\\n'\n"
        f"find . -xdev \\( {prune} \\) -prune -o -type f -printf '%s %T@ %P\\0' | "
        f"head -z -n {cap + 1}"
    )
    if mode == "plain":
        return f"exec 2>/dev/null\n{scan}\n"
    return f"""exec 2>/dev/null
facts=$(git rev-parse --is-inside-work-tree --show-prefix --verify -q HEAD)
case $facts in
true*)
  facts=${{facts#true}}; facts=${{facts#$'\\n'}}
  prefix=${{facts%%$'\\n'*}}; head=${{facts#"$prefix"}}; head=${{head#$'\\n'}}
  base="{base or "$head"}"
  printf '@git %s\\n%s\\n' "$head" "$prefix"
  if [ -n "$head" ] && [ "$base" = "$head" ]; then
    printf '@status\\n'; git status --porcelain=v1 -z -uall --no-renames -- .
  else
    printf '@lists\\n'
    if [ "$base" = - ]; then git ls-files -z -- .
    else git diff --no-renames --relative --name-only -z "$base" -- .; fi
    printf '\\0@untracked\\0'; git ls-files -z --others --exclude-standard -- .
  fi ;;
*)
  if [ {mode} = git ]; then printf '@gone\\n'
  elif find . -maxdepth 0 -printf '' && printf 'x\\0' | head -z -n 1 >/dev/null; then
{scan}
  else printf '@nofind\\n'; fi ;;
esac
"""


async def take(
    environment: Environment,
    spill: Path,
    mode: Mode = "auto",
    base: str = "",
    *,
    cap: int = SCAN_CAP,
) -> Picture:
    """The workspace's picture. ``base``: the commit to compare with (the one checked out
    when empty; ``-``: none, every file counts as changed); ``cap``: files a scan lists."""
    if base not in ("", "-") and not re.fullmatch(r"[0-9a-f]{7,64}", base):
        return NoPicture(why=f"not a commit id: {base!r}")
    output = await run_whole(environment, script(mode, base, cap), spill)
    if output is None:
        return NoPicture(why="the picture of the workspace could not be taken")
    header, _, body = output.partition("\n")
    if header.startswith("@git"):
        return _git(header[5:].strip(), body)
    if header == "@scan":
        return _scan(body, cap)
    if header == "@gone":
        return NoPicture(why="the git work tree went away")
    if header == "@nofind":
        return NoPicture(why="outside git this needs GNU find")
    return NoPicture(why="the picture of the workspace could not be read")


def _git(head: str, body: str) -> GitPicture:
    prefix, _, body = body.partition("\n")
    form, _, body = body.partition("\n")
    if form == "@status":  # "XY path", the path from the top of the repository
        names = [e[3:].removeprefix(prefix) for e in body.split("\0") if len(e) > 3]
    else:
        changed, _, untracked = body.partition("\0@untracked\0")
        names = [*changed.split("\0"), *untracked.split("\0")]
    return GitPicture(head=head, dirty=frozenset(n for n in names if n))


def _scan(body: str, cap: int) -> ScanPicture:
    """Each file's ``size mtime`` text by its path: equal texts, an untouched file (a few
    thousand files parse in a few milliseconds this way; ``stat_of`` reads one)."""
    files: dict[str, str] = {}
    entries = body.split("\0")
    count = 0
    for entry in entries:
        cut = entry.find(" ", entry.find(" ") + 1)
        if cut > 0:
            files[entry[cut + 1 :]] = entry[:cut]
            count += 1
            if count == cap:
                break
    return ScanPicture(files=files, capped=len(entries) > cap + 1)


def stat_of(raw: str) -> Stat | None:
    """The size and time of a scan's ``size mtime`` text."""
    size, _, mtime = raw.partition(" ")
    try:
        return Stat(int(size), float(mtime))
    except ValueError:
        return None


async def base_content(
    environment: Environment, spill: Path, commit: str, paths: Sequence[str]
) -> dict[str, bytes | None] | None:
    """Each path's content in ``commit`` (None: not in it; left out: not a file, or bigger
    than ``MAX_FILE``); None when nothing could be had."""
    calls = "\n".join(f"f {shlex.quote(f'{commit}:./{p}')}" for p in paths)
    output = await run_whole(environment, _BLOB_FUNCTION + calls, spill)
    found = output.split("\n") if output is not None else []
    if len(found) < len(paths):
        return None
    contents: dict[str, bytes | None] = {}
    for path, line in zip(paths, found, strict=False):
        if line[:1] == "-":
            contents[path] = None
        elif line[:1] == "+":
            with contextlib.suppress(binascii.Error):
                contents[path] = base64.b64decode(line[1:], validate=True)
    return contents


# Prints, for one ``commit:./path``, a line: ``+`` and the blob in base64, ``-`` when the
# commit has no such path, ``!`` for anything else (a folder, a submodule, a file too big).
_BLOB_FUNCTION = f"""exec 2>/dev/null
f() {{
  o=$(git rev-parse -q --verify "$1")
  if [ -z "$o" ]; then printf -
  elif [ "$(git cat-file -t "$o")" = blob ] && [ "$(git cat-file -s "$o")" -le {MAX_FILE} ]; then
    printf +; git cat-file blob "$o" | base64 | tr -d '\\n'
  else printf '!'; fi
  printf '\\n'
}}
"""


async def run_whole(environment: Environment, command: str, spill: Path) -> str | None:
    """The whole stdout of ``command`` (read back from ``spill``'s folder when it was too big to
    keep in memory); None when it failed or some of it was lost."""
    await asyncio.to_thread(private_dir, spill)
    target = spill / f"picture-{uuid.uuid4().hex}.txt"
    try:
        result = await environment.run(
            command, timeout=TIMEOUT, output_file=str(target), env=_QUIET
        )
    except EnvError:
        return None
    try:
        if result.exit_code != 0 or result.timed_out:
            return None
        if result.output_file:
            return await asyncio.to_thread(Path(result.output_file).read_text, errors="replace")
        return None if result.stdout_dropped else result.stdout
    finally:
        with contextlib.suppress(OSError):
            os.unlink(target)
        with contextlib.suppress(OSError):
            os.rmdir(spill)  # when no other picture is using it
