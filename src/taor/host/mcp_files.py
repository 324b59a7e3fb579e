"""Editing the JSON files that list MCP servers (``taor mcp add`` / ``remove``): the person's
``mcp.json`` in their config directory, or a project's ``.mcp.json``. The file keeps its other
keys and servers; it is written whole to a temporary file and moved into place, so a reader
never sees half of it; the person's own file is theirs alone (0600: it may hold secrets)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from taor.errors import ConfigurationError
from taor.tools.mcp.config import McpServerConfig


def read_servers_file(path: Path) -> dict[str, Any]:
    """The file's object (``{"mcpServers": {}}`` when it does not exist)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"mcpServers": {}}
    except (OSError, ValueError) as error:
        raise ConfigurationError(f"{path}: not a readable JSON file: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.setdefault("mcpServers", {}), dict):
        raise ConfigurationError(f'{path}: expected {{"mcpServers": {{...}}}}; fix it first.')
    return data


def add_server(path: Path, server: McpServerConfig, *, private: bool) -> bool:
    """Put ``server`` in the file (replacing one of its name); whether it replaced one."""
    data = read_servers_file(path)
    replaced = server.name in data["mcpServers"]
    data["mcpServers"][server.name] = server.to_json()
    write_json(path, data, private=private)
    return replaced


def remove_server(path: Path, name: str, *, private: bool) -> bool:
    """Take the server ``name`` out of the file; whether it was there."""
    data = read_servers_file(path)
    if name not in data["mcpServers"]:
        return False
    del data["mcpServers"][name]
    write_json(path, data, private=private)
    return True


def write_json(path: Path, data: object, *, private: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        if not private and path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o777)
        elif not private:
            os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
