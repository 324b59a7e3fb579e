"""What an MCP server is, as configured: ``McpServerConfig``, and the JSON shape everyone uses.

A server is a stdio command (``command``, ``args``, ``env``, ``cwd``) or a streamable HTTP
``url`` (with ``headers``). ``${VAR}`` (and ``${VAR:-default}``) in any value is replaced from
the variables given to ``expanded`` (the process's, by default) when the server starts, never
before: the config keeps the reference, so a secret is never written back to a file, and
``redacted`` is what logs, events and listings show (values of ``env`` and ``headers`` hidden).

``servers_from_json`` reads ``{"mcpServers": {NAME: {...}}}`` (``.mcp.json``, ``--mcp-config``);
a bad entry raises ``ConfigurationError`` naming the server and what to fix.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from typing import Any

from taor._records import frozen
from taor.errors import ConfigurationError

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
HIDDEN = "***"

STARTUP_TIMEOUT = 30.0
CALL_TIMEOUT = 600.0
MAX_RESTARTS = 3


@frozen
class McpServerConfig:
    """One MCP server: a stdio ``command`` or an HTTP ``url`` (exactly one), and its timeouts.

    ``startup_timeout``: seconds to connect and list the tools before the session goes on
    without it; ``call_timeout``: seconds a tool call may take (0 for either: no limit);
    ``max_restarts``: how many times a stdio server that exited is started again (with
    back-off) before it is given up."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = dataclasses.field(default_factory=dict, repr=False)  # secrets
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict, repr=False)  # secrets
    startup_timeout: float = STARTUP_TIMEOUT
    call_timeout: float = CALL_TIMEOUT
    max_restarts: int = MAX_RESTARTS

    def __post_init__(self) -> None:
        if not NAME_PATTERN.match(self.name):
            raise ConfigurationError(
                f"MCP server name {self.name!r}: use letters, digits, '_' and '-' (up to 64)."
            )
        if bool(self.command) == bool(self.url):
            raise ConfigurationError(
                f"MCP server {self.name!r}: give either a command (stdio) or a url (HTTP)."
            )

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def expanded(self, variables: Mapping[str, str] | None = None) -> McpServerConfig:
        """The config with ``${VAR}`` replaced (an unset variable without a default: a
        ``ConfigurationError`` naming it)."""
        found = os.environ if variables is None else variables

        def one(value: str) -> str:
            return expand(value, found, where=f"MCP server {self.name!r}")

        return dataclasses.replace(
            self,
            command=one(self.command),
            args=tuple(one(a) for a in self.args),
            env={k: one(v) for k, v in self.env.items()},
            cwd=one(self.cwd) if self.cwd else self.cwd,
            url=one(self.url),
            headers={k: one(v) for k, v in self.headers.items()},
        )

    def redacted(self) -> dict[str, Any]:
        """What may be shown: the values of ``env`` and ``headers`` hidden."""
        shown: dict[str, Any] = {"type": self.transport}
        if self.command:
            shown.update(command=self.command, args=list(self.args))
            if self.cwd:
                shown["cwd"] = self.cwd
            if self.env:
                shown["env"] = {k: HIDDEN for k in self.env}
        else:
            shown["url"] = self.url
            if self.headers:
                shown["headers"] = {k: HIDDEN for k in self.headers}
        return shown

    def to_json(self) -> dict[str, Any]:
        """The entry of the common JSON shape (references kept as written)."""
        if self.command:
            entry: dict[str, Any] = {"command": self.command, "args": list(self.args)}
            if self.env:
                entry["env"] = dict(self.env)
            if self.cwd:
                entry["cwd"] = self.cwd
            return entry
        entry = {"type": "http", "url": self.url}
        if self.headers:
            entry["headers"] = dict(self.headers)
        return entry


def expand(value: str, variables: Mapping[str, str], *, where: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in variables:
            return variables[name]
        if default is not None:
            return default
        raise ConfigurationError(f"{where}: the variable {name} is not set (export it).")

    return _VARIABLE.sub(replace, value)


def server_from_entry(name: str, entry: object) -> McpServerConfig:
    """One server of the common JSON shape (or a TOML table of the same keys)."""
    where = f"MCP server {name!r}"
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{where}: expected an object with a command or a url.")
    known = {"command", "args", "env", "cwd", "url", "headers", "type"}
    known |= {"startup_timeout", "call_timeout", "max_restarts"}
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ConfigurationError(f"{where}: unknown key(s) {', '.join(unknown)}.")
    kind = entry.get("type")
    if kind not in (None, "stdio", "http", "streamable-http", "streamable_http"):
        raise ConfigurationError(f"{where}: type {kind!r} is not supported (stdio or http).")
    values: dict[str, Any] = {
        "name": name,
        "command": _text(entry, "command", where),
        "args": tuple(_texts(entry, "args", where)),
        "env": _table(entry, "env", where),
        "cwd": _text(entry, "cwd", where) or None,
        "url": _text(entry, "url", where),
        "headers": _table(entry, "headers", where),
    }
    for key, kind_of in (
        ("startup_timeout", float),
        ("call_timeout", float),
        ("max_restarts", int),
    ):
        if key in entry:
            value = entry[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigurationError(f"{where}: {key} must be a number of at least 0.")
            values[key] = kind_of(value)
    return McpServerConfig(**values)


def servers_from_json(data: object, *, source: str) -> list[McpServerConfig]:
    """The servers of ``{"mcpServers": {...}}``; ``source`` names the file in errors."""
    servers = data.get("mcpServers") if isinstance(data, Mapping) else None
    if not isinstance(servers, Mapping):
        raise ConfigurationError(f'{source}: expected {{"mcpServers": {{NAME: {{...}}}}}}.')
    try:
        return [server_from_entry(str(name), entry) for name, entry in servers.items()]
    except ConfigurationError as error:
        raise ConfigurationError(f"{source}: {error}") from None


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise ConfigurationError(f"{where}: {key} must be a string.")
    return value


def _texts(entry: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigurationError(f"{where}: {key} must be a list of strings.")
    return value


def _table(entry: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigurationError(f"{where}: {key} must map names to strings.")
    return {str(k): v for k, v in value.items()}
