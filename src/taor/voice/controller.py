"""Voice input for a front end: a speech-to-text MCP server's session started, polled and
stopped, and what it hears handed on (partials as they change, each final utterance once).

The server is reached through a small seam: ``connect()`` gives, for the life of one voice
session, something with ``call_tool(name, arguments) -> dict`` (a tool's structured result;
``VoiceError`` for an error result). ``taor.voice.client`` is one over the ``mcp`` SDK's stdio
client. The tools' names come from the settings. Everything happens in one task, which owns the
connection from start to end; a server that fails, dies or answers nonsense ends voice mode
with one message, and the session is stopped on the server when it can still be."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from taor._records import frozen
from taor.voice.sources import VoiceError

POLL = 0.25  # seconds between polls


class ToolCaller(Protocol):
    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...


Connect = Callable[[], AbstractAsyncContextManager[ToolCaller]]


class Listener(Protocol):
    """What the front end does with what is heard."""

    def partial(self, text: str) -> None: ...

    async def final(self, text: str) -> None: ...

    def ended(self, reason: str, *, failed: bool) -> None: ...


@frozen
class VoiceTools:
    start: str = "stt_start_session"
    updates: str = "stt_get_updates"
    stop: str = "stt_stop_session"


class Voice:
    """``start(source)`` (it answers once the server listens), ``status``, ``stop()``."""

    def __init__(
        self, connect: Connect, listener: Listener, tools: VoiceTools | None = None
    ) -> None:
        self._connect, self._listener, self._tools = connect, listener, tools or VoiceTools()
        self._task: asyncio.Task[None] | None = None
        self.source = ""
        self.heard = 0  # final utterances handed on
        self.partial = ""  # the utterance being heard, as far as it goes

    @property
    def on(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def status(self) -> str:
        if not self.on:
            return "voice is off (/voice start [microphone|loopback|FILE])"
        return f"listening to {self.source}; {self.heard} utterance(s) so far"

    async def start(self, source: str) -> str:
        """Start listening to ``source``; what the server says it listens to. ``VoiceError``
        when the server cannot be started or refuses."""
        if self.on:
            raise VoiceError(f"voice is on already ({self.source}); /voice stop first")
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.heard, self.partial = 0, ""
        self._task = asyncio.create_task(self._run(source, ready), name="voice")
        return await ready

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self, source: str, ready: asyncio.Future[str]) -> None:
        reason, failed = "stopped", False
        try:
            async with self._connect() as server:
                started = await server.call_tool(self._tools.start, {"source": source})
                session_id = _text(started, "session_id")
                self.source = str(started.get("source") or source)
                ready.set_result(self.source)
                try:
                    reason = await self._poll(server, session_id)
                finally:
                    with contextlib.suppress(Exception):
                        await asyncio.shield(
                            server.call_tool(self._tools.stop, {"session_id": session_id})
                        )
        except asyncio.CancelledError:
            raise
        except Exception as error:
            message = _failure(error)
            if not ready.done():
                ready.set_exception(VoiceError(message))
                return
            reason, failed = message, True
        finally:
            self.partial = ""
            if ready.done() and not ready.cancelled() and ready.exception() is None:
                self._listener.ended(reason, failed=failed)

    async def _poll(self, server: ToolCaller, session_id: str) -> str:
        """Until the source ends; why it ended."""
        while True:
            update = await server.call_tool(self._tools.updates, {"session_id": session_id})
            events = update.get("events")
            if not isinstance(events, list):
                raise VoiceError(f"the speech-to-text server answered {_shown(update)}")
            for event in events:
                await self._take(event)
            if update.get("error"):
                raise VoiceError(str(update["error"]))
            if update.get("active") is False:
                return "the source ended" + ("" if self.heard else " (no speech heard)")
            await asyncio.sleep(POLL)

    async def _take(self, event: Any) -> None:
        kind = event.get("type") if isinstance(event, dict) else None
        text = event.get("text") if isinstance(event, dict) else None
        if kind not in ("utterance_partial", "utterance_final") or not isinstance(text, str):
            raise VoiceError(f"the speech-to-text server sent {_shown(event)}")
        if kind == "utterance_partial":
            self.partial = text
            self._listener.partial(text)
        elif text.strip():
            self.partial = ""
            self.heard += 1
            await self._listener.final(text.strip())


def _text(result: dict[str, Any], key: str) -> str:
    value = result.get(key)
    if not isinstance(value, str) or not value:
        raise VoiceError(f"the speech-to-text server answered {_shown(result)} (no {key})")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _failure(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:  # from the SDK's tasks
        error = error.exceptions[0]
    if isinstance(error, VoiceError):
        return str(error)
    what = str(error) or type(error).__name__
    return f"the speech-to-text server failed: {what}"
