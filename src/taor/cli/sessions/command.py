"""``taor sessions``: the recorded sessions of this project (``--all``: of every project),
newest first; ``taor sessions show ID``: one of them, readably.

Exit codes: 0 listed or shown; 1 a transcript that cannot be read; 2 a usage error, or an ID
that names no session or several (as for ``taor --resume``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from taor.cli.args import UsageError, parser_for
from taor.errors import ConfigurationError, TranscriptError
from taor.host import sessions

EPILOG = """Each row: the id (12 characters; any unique prefix works with show and --resume),
when it started, the first prompt, its model calls, cost and model.

exit codes:
  0  listed or shown
  1  the transcript cannot be read
  2  usage error, or an ID that names no session or several"""


EXIT_USAGE = 2


def parser() -> argparse.ArgumentParser:
    p = parser_for("taor sessions", "List this project's recorded sessions, newest first.", EPILOG)
    p.add_argument("--all", action="store_true", help="every project's sessions")
    p.add_argument("--json", action="store_true", help="one JSON array, for scripts")
    actions = p.add_subparsers(dest="action", metavar="{show}")
    show = actions.add_parser("show", help="print a session's transcript")
    show.add_argument("id", metavar="ID", help="a session's id, or a unique prefix of it")
    show.add_argument(
        "--all", action="store_true", default=argparse.SUPPRESS, help="look in every project"
    )
    return p


def run(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except UsageError as error:
        print(f"taor sessions: {error} (see taor sessions --help)", file=sys.stderr)
        return EXIT_USAGE
    here = sessions.sessions_dir(Path.cwd())
    folders = _every(here.parent) if args.all else [here]
    try:
        if args.action == "show":
            return _show(args.id, folders if args.all else None, here)
        return _list(folders, every=args.all, as_json=args.json)
    except BrokenPipeError:  # the reader (say, head) has had enough: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _list(folders: list[Path], *, every: bool, as_json: bool) -> int:
    from taor.cli.sessions.table import as_json as json_of
    from taor.cli.sessions.table import project_of, table
    from taor.host.sessions.catalogue import rows

    groups = [(folder, rows(folder)) for folder in folders]
    groups = sorted(((f, r) for f, r in groups if r), key=lambda g: g[1][0].started, reverse=True)
    if as_json:
        print(json_of((project_of(f, found), row) for f, found in groups for row in found))
        return 0
    if not groups:
        where = "" if every else " of this project"
        also = "" if every else " (taor sessions --all lists every project's)"
        print(f'No sessions{where} yet: taor -p "task" records one{also}.')
        return 0
    width = shutil.get_terminal_size((80, 24)).columns
    for number, (folder, found) in enumerate(groups):
        if every:
            print(("\n" if number else "") + project_of(folder, found))
        print("\n".join(table(found, width)))
    return 0


def _every(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def _show(prefix: str, folders: list[Path] | None, here: Path) -> int:
    from taor.agent.record.store import load
    from taor.cli.sessions.show import render

    try:
        if folders is None:
            path = sessions.by_id([here], prefix)
        else:
            path = sessions.by_id(folders, prefix, scope="of any project")
        loaded = load(path)
    except ConfigurationError as error:
        print(f"taor sessions show: {error}", file=sys.stderr)
        return EXIT_USAGE
    except TranscriptError as error:
        print(f"taor sessions show: {error}", file=sys.stderr)
        return 1
    width = shutil.get_terminal_size((80, 24)).columns
    print("\n".join(render(loaded, path, width)))
    return 0
