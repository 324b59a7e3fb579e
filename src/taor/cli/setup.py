"""The flags into a ``Session``: where the run works (``--cwd``), its settings (the flags over
the config files and the environment), and the session ``taor.host.compose`` makes of them
(``--continue``, ``--resume``, ``--fork``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from taor.agent.session import Session
from taor.cli.args import settings_flags
from taor.errors import ConfigurationError
from taor.host.compose.session import earlier_session as earlier_in
from taor.host.compose.session import session_for
from taor.host.mcp import McpPlan, held_back_line
from taor.host.settings import Settings
from taor.host.settings.project import settings_for
from taor.llm.model import Model


def workspace(args: argparse.Namespace) -> Path:
    root = Path(args.cwd or os.getcwd()).resolve()
    if not root.is_dir():
        raise ConfigurationError(f"--cwd {args.cwd!r} is not a directory")
    return root


def settings_from(args: argparse.Namespace, environ: Mapping[str, str]) -> Settings:
    """The run's settings; the project's files act for the person only in a folder they
    trust (``taor trust``), or with ``--trust`` for this run."""
    trust = bool(getattr(args, "trust", False))
    return settings_for(workspace(args), environ, flags=settings_flags(args), trust=trust)


def earlier_session(args: argparse.Namespace) -> Path | None:
    """The transcript ``--continue`` or ``--resume`` names (None for a new session)."""
    if not (args.continue_ or args.resume):
        return None
    return earlier_in(workspace(args), latest=args.continue_, resume=args.resume)


def session_from(
    args: argparse.Namespace,
    settings: Settings,
    *,
    model: Model | None = None,
    interactive: bool = False,
) -> tuple[Session, Model]:
    """The run's session and its model (``taor.host.compose.session.session_for``), with the
    MCP servers it may start (a project's held back in a folder not trusted: one line on
    stderr says so, unless the interactive mode asked about them)."""
    plan = mcp_plan_from(args, settings)
    if plan.held_back and not interactive:  # the interactive mode asked about them already
        print(f"taor: {held_back_line(plan)}", file=sys.stderr)
    return session_for(
        workspace(args),
        settings,
        latest=args.continue_,
        resume=args.resume,
        fork=args.fork,
        model=model,
        interactive=interactive,
        mcp_servers=plan.servers,
    )


def mcp_plan_from(args: argparse.Namespace, settings: Settings) -> McpPlan:
    from taor.host.mcp import mcp_plan
    from taor.host.sessions.paths import project_root
    from taor.host.settings.project import user_config

    root = project_root(workspace(args))
    files = getattr(args, "mcp_config", None) or ()
    return mcp_plan(root, user_config(), trusted=settings.trusted, files=files)
