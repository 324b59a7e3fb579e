"""``taor doctor``: what is set up for taor here, one line per check (``ok``, ``missing``,
``broken`` or ``note``) with what to do about each gap. Keys are named by where they were
found (the environment, the project's .env, a config file), never shown.

Exit codes: 0 taor can run here (a gap in an optional tool is only reported); 1 something it
needs is missing or broken (Python 3.11, a readable configuration, a model to use, a writable
sessions directory); 2 a usage error. The service's checks (``taor.server.doctor``: its data
folder, database and port; across machines its Redis and PostgreSQL, named by the settings or
by ``--redis`` and ``--database`` as ``taor serve`` takes them) are reported and never fatal:
taor runs without a service.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import textwrap
from pathlib import Path

from taor.cli.args import UsageError, parser_for
from taor.errors import ConfigurationError
from taor.host.checks import Check
from taor.host.settings import Settings

EPILOG = """exit codes:
  0  taor can run here (gaps in rg, git, bwrap or the local model are reported, not fatal)
  1  something it needs is missing: Python 3.11+, a readable configuration, a model (a
     provider key, or a local server), a writable sessions directory
  2  usage error

The service (taor serve, as [serve] of your config file sets it) is checked too: its data
folder, its database (the newest schema, or how far behind: taor serve upgrades it) and its
port (free, or held by a running taor service, or by another program). Across machines
(redis_url, or --redis): Redis answers, AOF is on, the run queue; PostgreSQL answers; the
shared folder can be written. Not fatal."""


def run(argv: list[str]) -> int:
    p = parser_for("taor doctor", "Check what taor needs here and say how to fix each gap.", EPILOG)
    p.add_argument("--cwd", help="check for this directory (default: the current one)")
    p.add_argument(
        "--redis", metavar="URL", help="the service's Redis, as taor serve --redis takes it"
    )
    p.add_argument(
        "--database", metavar="URL", help="the service's database, as taor serve --database"
    )
    try:
        args = p.parse_args(argv)
        if args.cwd and not Path(args.cwd).is_dir():
            raise UsageError(f"--cwd {args.cwd!r} is not a directory")
    except UsageError as error:
        print(f"taor doctor: {error} (see taor doctor --help)", file=sys.stderr)
        return 2
    checks = all_checks(args, os.environ)
    width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 0
    for check in checks:
        print(line(check, width), flush=True)
    return 1 if any(c.fatal for c in checks) else 0


def line(check: Check, width: int) -> str:
    """One line; on a terminal (``width``) wrapped under its detail column."""
    text = f"{check.status:<8} {check.name:<12} {check.detail}"
    if not width or len(text) <= width:
        return text
    return textwrap.fill(text, width, subsequent_indent=" " * 22, break_on_hyphens=False)


def all_checks(args: argparse.Namespace, environ: os._Environ[str]) -> list[Check]:
    from platformdirs import user_config_dir

    from taor.cli import doctor_checks as do
    from taor.host.sessions import sessions_dir

    # the service's own checks, found by name as ``taor serve`` is (the command imports nothing
    # of the service; they import none of its libraries)
    service_checks = importlib.import_module("taor.server.doctor").service_checks

    settings, config = _settings(args, environ)
    sources = do.key_sources(environ, settings)
    config_file = str(Path(user_config_dir("taor")) / "config.toml")
    config_file = config_file.replace(str(Path.home()), "~", 1)
    cwd = Path(args.cwd or os.getcwd()).resolve()
    return [
        do.python(),
        config,
        *do.keys(sources, config_file, held=do.held_keys(settings)),
        do.model(settings, environ),
        do.sessions_dir(sessions_dir(cwd)),
        do.ripgrep(),
        do.tool(
            "git", "install git (apt-get install git); without it the model sees no git status"
        ),
        do.bwrap(),
        do.local_model(),
        *service_checks(environ, cwd, {"redis_url": args.redis, "database_url": args.database}),
    ]


def _settings(args: argparse.Namespace, environ: os._Environ[str]) -> tuple[Settings | None, Check]:
    """The merged settings, and the check that says which files they came from."""
    from taor.cli.setup import settings_from

    try:
        settings = settings_from(argparse.Namespace(cwd=args.cwd), environ)
    except ConfigurationError as error:
        return None, Check(name="config", status="broken", detail=str(error), fatal=True)
    read = [path for path, found in settings.files.items() if found]
    detail = "read " + ", ".join(read) if read else "no config file (defaults; taor config show)"
    return settings, Check(name="config", status="ok", detail=detail)
