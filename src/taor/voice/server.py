"""``taor voice serve``: a speech-to-text MCP server over stdio. Its tools:

- ``stt_start_session(source, speed=1)``: listen to ``microphone``, ``loopback`` (what this
  machine plays) or a WAV file (``speed`` 0 reads it as fast as it can); gives a session id;
- ``stt_get_updates(session_id)``: the utterances since the last poll, in order, each
  ``{"type": "utterance_partial" | "utterance_final", "text"}``, whether it still listens, and
  the error that stopped it, if one did;
- ``stt_stop_session(session_id)``: stop listening; the last updates.

Recognition runs in a worker thread, so polls are answered while it works."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from taor._version import __version__
from taor.voice.engine import Recognizer, Utterance
from taor.voice.sources import VoiceError, open_source


class Listening:
    """One session: its audio read and recognized in the background, updates kept until polled."""

    def __init__(self, source: str, *, speed: float) -> None:
        self.described, audio = open_source(source, speed=speed)
        self.updates: list[dict[str, str]] = []
        self.error: str | None = None
        self._task = asyncio.create_task(self._listen(audio))

    @property
    def active(self) -> bool:
        return not self._task.done()

    def drain(self) -> dict[str, Any]:
        updates, self.updates = self.updates, []
        return {"events": updates, "active": self.active, "error": self.error}

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    def _keep(self, heard: list[Utterance]) -> None:
        """Added to the list a poll takes now (never ``+=`` across an await: a poll in between
        would get the list it had taken extended again)."""
        self.updates.extend(utterance.as_json() for utterance in heard)

    async def _listen(self, audio: Any) -> None:
        try:
            recognizer = await asyncio.to_thread(Recognizer)
            async for chunk in audio:
                self._keep(await asyncio.to_thread(recognizer.feed, chunk))
            self._keep(await asyncio.to_thread(recognizer.finish))
        except VoiceError as error:
            self.error = str(error)
        except Exception as error:  # the engine or the device failed: the client is told
            self.error = f"speech recognition failed: {type(error).__name__}: {error}"


def build() -> MCPServer:
    server = MCPServer("taor-voice", version=__version__, log_level="WARNING")
    sessions: dict[str, Listening] = {}

    def session(session_id: str) -> Listening:
        if session_id not in sessions:
            raise ToolError(f"no session {session_id!r}: start one with stt_start_session")
        return sessions[session_id]

    @server.tool(description="Start listening; gives the session's id.")
    async def stt_start_session(
        source: Annotated[
            str, Field(description="microphone, loopback (what this machine plays) or a WAV path")
        ] = "microphone",
        speed: Annotated[
            float, Field(ge=0, description="a file's pace: 1 as it plays, 0 at once")
        ] = 1.0,
    ) -> dict[str, str]:
        try:
            listening = Listening(source, speed=speed)
        except VoiceError as error:
            raise ToolError(str(error)) from None
        session_id = uuid.uuid4().hex[:12]
        sessions[session_id] = listening
        return {"session_id": session_id, "source": listening.described}

    @server.tool(description="The utterances heard since the last poll (partial and final).")
    async def stt_get_updates(session_id: str) -> dict[str, Any]:
        return session(session_id).drain()

    @server.tool(description="Stop listening; gives the last updates.")
    async def stt_stop_session(session_id: str) -> dict[str, Any]:
        listening = session(session_id)
        await listening.stop()
        del sessions[session_id]
        return listening.drain()

    return server
