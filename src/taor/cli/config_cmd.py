"""``taor config show``: the merged configuration as TOML, each value with where it came from
(a file, a variable, a flag or the default), and the files looked at. Keys are masked."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from taor.cli.args import UsageError, parser_for
from taor.errors import ConfigurationError
from taor.host.settings import KEYS, Key, Settings

MASK = '"********"'
_WHY = {
    "untrusted": "the folder is not trusted",
    "endpoint": "a .env never sets an endpoint",
    "outside": "not a file inside the project",
    "service": "a project's file never configures a service",
}


def run(argv: list[str]) -> int:
    p = parser_for("taor config", "Show the configuration taor would use here.")
    sub = p.add_subparsers(dest="action", required=True, metavar="show")
    show = sub.add_parser("show", help="the merged configuration and where each value came from")
    show.add_argument("--cwd", help="show it for this directory (default: the current one)")
    show.add_argument("--json", action="store_true", help="as one JSON object")
    try:
        args = p.parse_args(argv)
        from taor.cli.setup import settings_from

        settings = settings_from(argparse.Namespace(cwd=args.cwd), os.environ)
    except ConfigurationError as error:
        hint = " (see taor config --help)" if isinstance(error, UsageError) else ""
        print(f"taor: {error}{hint}", file=sys.stderr)
        return 2
    print(as_json(settings) if args.json else as_toml(settings))
    return 0


def as_toml(settings: Settings) -> str:
    lines = [
        f"# {path} ({'read' if found else 'not found'})" for path, found in settings.files.items()
    ]
    lines.append(
        f"# this folder is {'trusted' if settings.trusted else 'not trusted (taor trust)'}"
    )
    lines += [f"# ignored: {item} ({_WHY[item.reason]})" for item in settings.ignored]
    width = max(len(f"{key.name} = {_value(key, settings)}") for key in KEYS) + 2
    for key in KEYS:
        value = _value(key, settings)
        where = settings.sources.get(key.field, "default")
        if value is None:
            lines.append(f"# {key.name}".ljust(width) + f"# {_unset(key)}")
        else:
            lines.append(f"{key.name} = {value}".ljust(width) + f"# {where}")
    return "\n".join(lines)


def as_json(settings: Settings) -> str:
    values = {}
    for key in KEYS:
        raw = getattr(settings, key.field)
        if key.kind == "secret" and raw:
            raw = "********"
        values[key.name] = {"value": raw, "source": settings.sources.get(key.field, "default")}
    ignored = [
        {"name": item.name, "source": item.source, "reason": item.reason}
        for item in settings.ignored
    ]
    return json.dumps(
        {
            "settings": values,
            "files": settings.files,
            "trusted": settings.trusted,
            "ignored": ignored,
        },
        indent=2,
    )


def _value(key: Key, settings: Settings) -> str | None:
    """The value as TOML would write it; None when unset."""
    raw: Any = getattr(settings, key.field)
    if raw is None or raw == () or raw == {}:
        return None
    if key.kind == "secret":
        return MASK
    if key.kind == "hooks":
        return json.dumps(raw)
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, dict):
        return "{ " + ", ".join(f"{tool} = {limit}" for tool, limit in raw.items()) + " }"
    if isinstance(raw, tuple):
        return json.dumps(list(raw))
    return json.dumps(raw)


def _unset(key: Key) -> str:
    if key.name == "model":
        return "taor picks one by the provider key it finds"
    if key.kind == "secret":
        return "no key for this provider"
    return "off" if key.kind in ("int", "number") else "not set"
