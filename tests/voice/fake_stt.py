"""A speech-to-text MCP server that misbehaves as told (its first argument), written with the
``mcp`` SDK, for the voice controller's error paths:

- ``dies``: a partial, then the process exits in the middle of a poll;
- ``silent``: the source ends and nothing was said;
- ``garbage``: an update whose event has no text;
- ``refuses``: starting a session is an error;
- ``endless``: it listens and hears nothing, until stopped;
- ``renamed``: the tools have other names (listen, heard, hush) and hear "hello there".
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def build(mode: str) -> MCPServer:
    """The fake, misbehaving as ``mode`` says."""
    server = MCPServer("fake-stt", log_level="WARNING")
    polls = 0
    renamed = mode == "renamed"

    @server.tool(name="listen" if renamed else "stt_start_session")
    async def start(source: str) -> dict[str, str]:
        if mode == "refuses":
            raise ToolError("no such device: the fake refuses")
        return {"session_id": "s1", "source": f"fake {source}"}

    @server.tool(name="heard" if renamed else "stt_get_updates")
    async def updates(session_id: str) -> dict[str, Any]:
        nonlocal polls
        polls += 1
        if mode == "dies":
            if polls > 1:
                os._exit(3)
            return {"events": [{"type": "utterance_partial", "text": "half a"}], "active": True}
        if mode == "endless":
            return {"events": [], "active": True}
        if mode == "garbage":
            return {"events": [{"type": "utterance_final"}], "active": True}
        if renamed:
            said = [{"type": "utterance_partial", "text": "hello"}]
            said.append({"type": "utterance_final", "text": "hello there"})
            return {"events": said if polls == 1 else [], "active": polls == 1}
        return {"events": [], "active": False, "error": None}

    @server.tool(name="hush" if renamed else "stt_stop_session")
    async def stop(session_id: str) -> dict[str, Any]:
        return {"events": [], "active": False}

    return server


if __name__ == "__main__":
    build(sys.argv[1]).run()
