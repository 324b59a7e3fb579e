"""Locating ``rg`` (the ``ripgrep`` PyPI package ships it) and running it in an environment.

``find_rg`` looks beside the running interpreter's scripts first (a venv or user install of the
``ripgrep`` package), then on ``PATH``. ``run_rg`` runs it through the environment's command
runner, with the argv shell-quoted, in the workspace root, and parses its ``--null`` output
(a path, a NUL byte, then ``line:text`` or a count), which no file name can make ambiguous.

The flags make rg search like the pure-Python fallback of ``taor.env.search``: hidden files
included, ``.git`` skipped, ``.gitignore`` honoured inside or outside a git repository, binary
files skipped, symlinks not followed, no user config. ``run_rg`` returns None when rg cannot run
(exit 126 or 127: missing or not executable), so the caller can fall back.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from typing import Any

from taor.env.base import EnvError, GrepMatch

_FLAGS = ("--no-config", "--color=never", "--hidden", "--no-require-git", "--glob=!.git")
_CANNOT_RUN = (126, 127)
RG_TIMEOUT = 60.0


def _script_dirs() -> list[str]:
    dirs = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    with contextlib.suppress(KeyError):
        dirs.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    return dirs


@functools.cache
def find_rg() -> str | None:
    """The path of the ``rg`` binary, or None when it is not installed."""
    for directory in _script_dirs():
        candidate = os.path.join(directory, "rg")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("rg")


@dataclass(frozen=True, kw_only=True, slots=True)
class RgQuery:
    """One search: ``counts`` asks for matching-line counts per file instead of the lines."""

    pattern: str
    path: str
    glob: str | None = None
    ignore_case: bool = False
    counts: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class RgResult:
    """What rg found: matching lines, or (path, count) pairs; ``complete`` is False when output
    was dropped to bound memory or rg reported errors alongside its results."""

    lines: list[GrepMatch]
    counts: list[tuple[str, int]]
    complete: bool = True
    errors: str = ""


def rg_argv(rg: str, query: RgQuery) -> list[str]:
    """The command line for ``query``."""
    argv = [rg, *_FLAGS, "--null", "--with-filename"]
    argv.append("--count" if query.counts else "--line-number")
    if query.ignore_case:
        argv.append("--ignore-case")
    if query.glob:
        argv.append(f"--glob={query.glob}")
    return [*argv, "--regexp", query.pattern, "--", query.path]


async def run_rg(environment: Any, rg: str, query: RgQuery) -> RgResult | None:
    """Run rg in ``environment``; None when it cannot run. A bad pattern raises ``EnvError``."""
    command = shlex.join(rg_argv(rg, query))
    result = await environment.run(command, timeout=RG_TIMEOUT)
    if result.exit_code in _CANNOT_RUN:
        return None
    if result.timed_out:
        raise EnvError(f"The search timed out after {result.timeout:g} s; narrow the path.")
    if result.exit_code not in (0, 1) and not result.stdout:
        raise EnvError(f"ripgrep failed: {result.stderr.strip() or result.output.strip()}")
    records = [r for r in result.stdout.split("\n") if "\0" in r]
    lines, counts = ([], _parse_counts(records)) if query.counts else (_parse_lines(records), [])
    complete = result.exit_code in (0, 1) and not result.stdout_dropped
    return RgResult(lines=lines, counts=counts, complete=complete, errors=result.stderr.strip())


def _display(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _parse_lines(records: list[str]) -> list[GrepMatch]:
    matches = []
    for record in records:
        path, _, rest = record.partition("\0")
        number, sep, text = rest.partition(":")
        if sep and number.isdigit():
            line = text.removesuffix("\r")
            matches.append(GrepMatch(path=_display(path), line_number=int(number), line=line))
    return matches


def _parse_counts(records: list[str]) -> list[tuple[str, int]]:
    counts = []
    for record in records:
        path, _, count = record.partition("\0")
        if count.strip().isdigit():
            counts.append((_display(path), int(count)))
    return counts
