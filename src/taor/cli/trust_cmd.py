"""``taor trust [DIR]``, ``taor trust --list``, ``taor trust --revoke [DIR]``: the folders
whose own settings may act for the person (``taor.host.settings.trust``). A folder inside a git
work tree is trusted as that work tree: its root is where the project's files are read."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from taor.cli.args import UsageError, parser_for
from taor.errors import ConfigurationError
from taor.host import sessions
from taor.host.settings.trust import TrustList


def run(argv: list[str]) -> int:
    p = parser_for(
        "taor trust",
        "Trust a folder: its .taor/config.toml, .env keys, commands and hooks then apply in full.",
    )
    p.add_argument("dir", nargs="?", help="the folder (default: the current one)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="the trusted folders")
    what.add_argument("--revoke", action="store_true", help="stop trusting the folder")
    try:
        args = p.parse_args(argv)
        if args.list and args.dir:
            raise UsageError("--list takes no folder")
        from taor.host.settings.project import user_config

        trust = TrustList(user_config())
        if args.list:
            return _list(trust)
        root = _project(args.dir)
        return _revoke(trust, root) if args.revoke else _add(trust, root)
    except ConfigurationError as error:
        hint = " (see taor trust --help)" if isinstance(error, UsageError) else ""
        print(f"taor: {error}{hint}", file=sys.stderr)
        return 2


def _project(folder: str | None) -> Path:
    path = Path(folder or os.getcwd()).expanduser().resolve()
    if not path.is_dir():
        raise ConfigurationError(f"{folder!r} is not a folder")
    return sessions.project_root(path)


def _list(trust: TrustList) -> int:
    folders = trust.folders()
    print("\n".join(map(str, folders)) if folders else "no trusted folders (taor trust DIR)")
    return 0


def _add(trust: TrustList, root: Path) -> int:
    applies = _held_back(root)
    if not trust.add(root):
        print(f"{root} is trusted already")
        return 0
    print(f"trusted {root}")
    if applies:
        print(f"now applies: {', '.join(applies)}")
    return 0


def _revoke(trust: TrustList, root: Path) -> int:
    if trust.remove(root):
        print(f"no longer trusted: {root}")
    elif trust.trusts(root):
        above = next(f for f in trust.folders() if f in root.parents)
        print(f"{root} is trusted as part of {above}; taor trust --revoke {above} stops that")
    else:
        print(f"{root} was not trusted")
    return 0


def _held_back(root: Path) -> list[str]:
    """What of the project's files trusting it lets through (as its settings say now)."""
    from taor.host.settings import resolve
    from taor.host.settings.project import user_config

    settings = resolve(
        cwd=root, root=root, config_dir=user_config(), environ=os.environ, flags={}, trusted=False
    )
    return [str(item) for item in settings.ignored if item.reason == "untrusted"]
