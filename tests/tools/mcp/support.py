"""Helpers for the MCP tests: the demo server as a config, a session over it, HTTP servers."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import Event
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.testing import ScriptedModel
from taor.tools.mcp.config import McpServerConfig

DEMO = Path(__file__).parent / "servers" / "demo.py"


def demo(name: str = "demo", *args: str, **options: Any) -> McpServerConfig:
    return McpServerConfig(name=name, command=sys.executable, args=(str(DEMO), *args), **options)


def config(mode: str = "bypass", **permissions: Any) -> SessionConfig:
    return SessionConfig(permissions=PermissionConfig(mode=mode, **permissions))  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def mcp_session(
    model: ScriptedModel, root: Path, *servers: McpServerConfig, **options: Any
) -> AsyncIterator[Session]:
    options.setdefault("config", config())
    session = Session(
        model, environment=LocalEnvironment(str(root)), mcp_servers=servers, profile=None, **options
    )
    async with session:
        yield session


async def collect(session: Session, text: str) -> list[Event]:
    return [event async for event in session.submit(text)]


def of_kind(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def http_server(name: str = "web") -> Iterator[str]:
    """The demo server over streamable HTTP on 127.0.0.1; its URL once it accepts connections."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(DEMO), "--http", str(port), "--name", name],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def wait_for_file(path: Path, seconds: float = 30) -> None:
    """Until ``path`` exists (a server writes it as it acts)."""
    deadline = time.monotonic() + seconds
    while not await asyncio.to_thread(path.exists):
        assert time.monotonic() < deadline, f"{path} never appeared"
        await asyncio.sleep(0.02)
