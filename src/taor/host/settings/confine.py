"""What a project's own files may set. A project layer (``.taor/config.toml``, the ``TAOR_*``
lines of its ``.env``) passes through ``confine`` before it is merged:

- in a folder that is not trusted, nothing that could act for the person applies: a base URL
  or a key (a key sent elsewhere), a permission mode laxer than the one in force or an allow
  rule, turning the sandbox off when it is on, hooks (they start processes), a local model
  file to load (llama.cpp would parse the project's file);
- trusted or not, a file setting names a file inside the project (``~/.ssh/id_rsa`` or a
  symlink out of the project is not read), and a ``.env`` never sets an endpoint: endpoints come
  from the person's own settings, variables or flags.

What is left out is returned as ``Ignored`` values, for one line on stderr or the interactive
question that offers to trust the folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from taor._records import frozen
from taor.host.settings.schema import BY_NAME, Key

Reason = Literal["untrusted", "endpoint", "outside", "service"]

# Permission modes from the strictest; a project may only keep or tighten the one in force.
STRICTNESS = ("plan", "default", "accept_edits", "bypass")


@frozen
class Ignored:
    """A project setting left out: ``name`` is its key (or variable), ``source`` the file."""

    name: str
    source: str
    reason: Reason

    def __str__(self) -> str:
        return f"{self.name} ({self.source})"


def confine(
    values: Mapping[str, Any],
    sources: Mapping[str, str],
    *,
    so_far: Mapping[str, Any],
    root: Path,
    base: Path,
    trusted: bool,
) -> tuple[dict[str, Any], list[Ignored]]:
    """The checked ``values`` of a project layer that may apply, and those that may not.
    ``so_far`` holds the settings merged before this layer (by field); relative paths in the
    layer are from ``base``."""
    kept: dict[str, Any] = {}
    ignored: list[Ignored] = []
    for name, value in values.items():
        key, source = BY_NAME[name], sources[name]
        # ``~`` means the person's home everywhere else: from a project it is outside it.
        within = key.kind != "path" or (not value.startswith("~") and inside(root, base / value))
        reason = _refused(key, value, source, so_far, trusted, within)
        if reason is None:
            kept[name] = value
        else:
            where = source.split(" ", 1)[0] if source.startswith(".env") else source
            ignored.append(Ignored(name=_shown(key, source), source=where, reason=reason))
    return kept, ignored


def inside(root: Path, path: Path) -> bool:
    """Whether ``path`` (symlinks followed) is ``root`` or in it."""
    path, root = path.resolve(), root.resolve()
    return path == root or root in path.parents


def _refused(
    key: Key, value: Any, source: str, so_far: Mapping[str, Any], trusted: bool, within: bool
) -> Reason | None:
    if key.name == "base_url" and source.startswith(".env"):
        return "endpoint"
    if not within:
        return "outside"
    if not trusted and _acts(key, value, so_far):
        return "untrusted"
    return None


def _acts(key: Key, value: Any, so_far: Mapping[str, Any]) -> bool:
    """Whether the setting could act for the person: redirect a key, loosen a rule, run code."""
    if key.name in ("base_url", "permissions.allow", "voice.command") or key.kind in (
        "secret",
        "hooks",
    ):
        return True
    if key.name == "permissions.mode":
        current = so_far.get(key.field, "default")
        return STRICTNESS.index(value) > STRICTNESS.index(current)
    if key.name == "sandbox":
        return value is False and so_far.get(key.field) is True
    if key.name == "model":  # a model file of the project's own, for llama.cpp to load
        provider, _, spec = str(value).partition(":")
        return provider == "local" and (spec.endswith(".gguf") or "/" in spec)
    return False


def _shown(key: Key, source: str) -> str:
    """The setting as the notice names it: the variable for one from ``.env``."""
    if source.startswith(".env "):
        return source.split(" ", 1)[1]
    return key.name


def notice(ignored: list[Ignored] | tuple[Ignored, ...]) -> str | None:
    """One line naming what was left out and why, or None when nothing was."""
    parts = []
    untrusted = [str(item) for item in ignored if item.reason == "untrusted"]
    if untrusted:
        parts.append(
            f"{', '.join(untrusted)}: this folder is not trusted "
            "(taor trust trusts it; --trust, for this run only)"
        )
    endpoints = [str(item) for item in ignored if item.reason == "endpoint"]
    if endpoints:
        parts.append(
            f"{', '.join(endpoints)}: a project's .env never sets an endpoint "
            "(use --base-url, your environment or your own config file)"
        )
    outside = [str(item) for item in ignored if item.reason == "outside"]
    if outside:
        parts.append(f"{', '.join(outside)}: a project's file setting must name a file inside it")
    service = [str(item) for item in ignored if item.reason == "service"]
    if service:
        parts.append(
            f"{', '.join(service)}: a project's file never configures a service "
            "(taor serve reads [serve] from your own config file)"
        )
    return "ignored " + "; ".join(parts) if parts else None
