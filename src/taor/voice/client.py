"""The speech-to-text server as a command run over stdio, through the ``mcp`` SDK's client:
``connect(command)`` for ``taor.voice.controller.Voice``."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TextIO

from taor.voice.sources import VoiceError


class ClientTools:
    """``call_tool`` over a connected ``mcp.Client`` (of any transport)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        import mcp_types as types

        result = await self._client.call_tool(name, arguments)
        said = " ".join(p.text for p in result.content if isinstance(p, types.TextContent))
        if result.is_error:
            said = said.removeprefix(f"Error executing tool {name}: ")  # the SDK's wording
            raise VoiceError(f"{name}: {said or 'failed'}")
        if isinstance(result.structured_content, dict):
            return dict(result.structured_content)
        try:
            answer = json.loads(said)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise VoiceError(f"{name} answered {said[:200]!r}, not a JSON object")
        return answer


def command_of(line: str) -> list[str]:
    """The server's command from its setting; ``taor ...`` is this taor (its own Python)."""
    words = shlex.split(line)
    if not words:
        raise VoiceError("voice.command is empty: set the speech-to-text server's command")
    if words[0] == "taor":
        return [sys.executable, "-m", "taor", *words[1:]]
    if shutil.which(words[0]) is None:
        raise VoiceError(f"voice.command: {words[0]!r} is not a command found on PATH")
    return words


def _devnull() -> TextIO:
    return open(os.devnull, "w")  # closed by the caller's with


def connect(line: str) -> Callable[[], AbstractAsyncContextManager[ClientTools]]:
    command = command_of(line)

    @contextlib.asynccontextmanager
    async def connected() -> AsyncIterator[ClientTools]:
        from mcp import Client, StdioServerParameters

        params = StdioServerParameters(command=command[0], args=command[1:])
        from mcp.client.stdio import stdio_client

        with _devnull() as quiet:  # its log lines would break into the prompt
            async with Client(stdio_client(params, errlog=quiet)) as client:
                yield ClientTools(client)

    return connected
