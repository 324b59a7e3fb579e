"""``taor mcp serve`` in a real process, as an MCP client starts it (stdio) or reaches it
(streamable HTTP on a free loopback port), with the fake provider server as its model."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from mcp import StdioServerParameters

from taor.testing import FakeProviderServer

from ..cli.support import environ, local


def command(tmp_path: Path, server: FakeProviderServer, *extra: str) -> list[str]:
    return [sys.executable, "-m", "taor.mcp_server", *local(server), *extra]


def stdio(tmp_path: Path, server: FakeProviderServer, *extra: str) -> StdioServerParameters:
    first, *rest = command(tmp_path, server, *extra)
    return StdioServerParameters(command=first, args=rest, env=environ(tmp_path), cwd=tmp_path)


@contextlib.asynccontextmanager
async def http(tmp_path: Path, server: FakeProviderServer, *extra: str) -> AsyncIterator[str]:
    """The URL of ``taor mcp serve --http`` on a free port, stopped (SIGTERM) afterwards."""
    process = await asyncio.create_subprocess_exec(
        *command(tmp_path, server, "--http", "--port", "0", *extra),
        cwd=tmp_path,
        env=environ(tmp_path),
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    try:
        line = (await process.stderr.readline()).decode()
        assert line.startswith("taor mcp serve: http://127.0.0.1:"), line
        yield line.split(": ", 1)[1].strip()
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
