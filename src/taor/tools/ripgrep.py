"""Locating ``rg`` (the ``ripgrep`` PyPI package ships it) and running it in an environment.

``find_rg`` looks beside the running interpreter's scripts first (a venv or user install of the
``ripgrep`` package), then on ``PATH``. ``run_rg`` runs it through the environment's command
runner, with the argv shell-quoted, in the workspace root, and parses its ``--null`` output
(a path, a NUL byte, then ``line:text`` lines or a count), which no file name can make
ambiguous. Matches come back sorted by path then line (rg prints each file's lines in order).

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
from operator import itemgetter

from taor._records import frozen
from taor.env.base import EnvError, Environment, GrepMatch

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


@frozen
class RgQuery:
    """One search: ``counts`` asks for matching-line counts per file instead of the lines;
    ``limit`` caps the lines parsed (the first by path and line number; all are counted)."""

    pattern: str
    path: str
    glob: str | None = None
    ignore_case: bool = False
    counts: bool = False
    limit: int | None = None


@frozen
class RgResult:
    """What rg found: matching lines sorted by path and line number (at most the query's
    ``limit``; ``total`` counts all of them), or (path, count) pairs sorted by path.
    ``complete`` is False when output was dropped to bound memory or rg reported errors."""

    lines: list[GrepMatch]
    counts: list[tuple[str, int]]
    total: int = 0
    complete: bool = True
    errors: str = ""


def rg_argv(rg: str, query: RgQuery) -> list[str]:
    """The command line for ``query``."""
    argv = [rg, *_FLAGS, "--null", "--with-filename"]
    argv += ["--count"] if query.counts else ["--line-number", "--heading"]
    if query.ignore_case:
        argv.append("--ignore-case")
    if query.glob:
        argv.append(f"--glob={query.glob}")
    return [*argv, "--regexp", query.pattern, "--", query.path]


async def run_rg(environment: Environment, rg: str, query: RgQuery) -> RgResult | None:
    """Run rg in ``environment``; None when it cannot run. A bad pattern raises ``EnvError``."""
    command = shlex.join(rg_argv(rg, query))
    result = await environment.run(command, timeout=RG_TIMEOUT)
    if result.exit_code in _CANNOT_RUN:
        return None
    if result.timed_out:
        raise EnvError(f"The search timed out after {result.timeout:g} s; narrow the path.")
    if result.exit_code not in (0, 1) and not result.stdout:
        raise EnvError(f"ripgrep failed: {result.stderr.strip() or result.output.strip()}")
    if query.counts:
        counts = _parse_counts(result.stdout)
        lines: list[GrepMatch] = []
        total = len(counts)
    else:
        lines, total = _parse_blocks(result.stdout, query.limit)
        counts = []
    return RgResult(
        lines=lines,
        counts=counts,
        total=total,
        complete=result.exit_code in (0, 1) and not result.stdout_dropped,
        errors=result.stderr.strip(),
    )


def _display(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _blocks(stdout: str) -> list[tuple[str, str]]:
    """(path, lines) of each file in ``stdout``, sorted by path.

    With ``--heading --null`` a file's block is ``path NUL line:text NL ...``, blocks apart by an
    empty line. rg never prints a NUL in a line, so splitting at the NULs leaves, between two of
    them, one file's lines, an empty line and the next path (found from the end, so cheaply).
    """
    pieces = stdout.rstrip("\n").split("\0")
    if len(pieces) < 2:
        return []
    middles = [piece.rpartition("\n\n") for piece in pieces[1:-1]]
    paths = [pieces[0].rpartition("\n\n")[2], *(path for _, _, path in middles)]
    bodies = [*(body for body, _, _ in middles), pieces[-1]]
    return sorted(zip(paths, bodies, strict=True), key=itemgetter(0))


def _parse_blocks(stdout: str, limit: int | None) -> tuple[list[GrepMatch], int]:
    """The first ``limit`` matches by path and line, and how many lines there are in all.

    Only the blocks shown are split into lines; the others are only counted.
    """
    blocks = _blocks(stdout)
    total = sum(body.count("\n") for _, body in blocks) + len(blocks)
    matches: list[GrepMatch] = []
    for path, body in blocks:
        if limit is not None and len(matches) >= limit:
            break
        matches += _parse_lines(_display(path), body.split("\n"))
    return matches[:limit], total


def _parse_lines(path: str, lines: list[str]) -> list[GrepMatch]:
    matches = []
    for record in lines:
        number, sep, text = record.partition(":")
        if sep and number.isdigit():
            line = text.removesuffix("\r")
            matches.append(GrepMatch(path=path, line_number=int(number), line=line))
    return matches


def _parse_counts(stdout: str) -> list[tuple[str, int]]:
    counts = []
    for record in stdout.split("\n"):
        path, _, count = record.partition("\0")
        if count.strip().isdigit():
            counts.append((_display(path), int(count)))
    return sorted(counts)
