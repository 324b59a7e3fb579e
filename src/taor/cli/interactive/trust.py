"""The question the interactive mode asks, once per folder, before a project's own files may act
for the person: what they would change, then trust it (kept in the user's trust list) or go on
without them (asked again next time). Nothing to change, or a trusted folder: no question."""

from __future__ import annotations

import os
from argparse import Namespace
from pathlib import Path

from taor.host import sessions
from taor.host.settings import Settings
from taor.host.settings.trust import TrustList


def held_back(settings: Settings, root: Path) -> list[str]:
    """What trusting the folder would let through: its settings left out, its commands."""
    items = [str(item) for item in settings.ignored if item.reason == "untrusted"]
    items += mcp_servers_held(root)
    commands = sorted((root / ".taor" / "commands").glob("*.md"))
    if commands:
        names = ", ".join("/" + path.stem for path in commands[:5])
        more = f" and {len(commands) - 5} more" if len(commands) > 5 else ""
        items.append(f"commands {names}{more} (.taor/commands)")
    return items


def mcp_servers_held(root: Path) -> list[str]:
    """The project's MCP servers (they start processes), each as ``MCP server NAME (FILE)``."""
    from taor.errors import ConfigurationError
    from taor.host.mcp import project_servers

    try:
        found = project_servers(root)
    except ConfigurationError as error:  # shown when the session starts with them
        return [f"MCP servers ({error})"]
    return [f"MCP server {server.name} ({where})" for server, where in found]


def question(root: Path, items: list[str]) -> str:
    lines = [
        f"This folder is not trusted yet: {root}",
        "Its own files would change how taor works here:",
        *(f"  • {item}" for item in items),
        "Trust it only if you trust whoever wrote these files; until then they stay off.",
    ]
    return "\n".join(lines)


async def settle_trust(args: Namespace, settings: Settings) -> Settings:
    """The settings to start with: asks whether to trust the folder when its files hold
    something that would act for the person, and resolves them again once trusted."""
    from taor.cli.setup import workspace

    root = sessions.project_root(workspace(args))
    items = [] if settings.trusted else held_back(settings, root)
    if not items:
        return settings
    from prompt_toolkit import PromptSession

    print(question(root, items))
    try:
        answer = await PromptSession[str]().prompt_async("Trust this folder? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        print("Going on without them (taor trust trusts this folder later).\n")
        return settings
    from taor.cli.setup import settings_from
    from taor.host.settings.project import user_config

    TrustList(user_config()).add(root)
    print(f"Trusted {root}.\n")
    return settings_from(args, os.environ)
