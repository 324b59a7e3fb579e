"""``/voice start [microphone|loopback|FILE]``, ``/voice status``, ``/voice stop``: voice input
through the speech-to-text MCP server the settings name (``[voice]``: ``command``, by default
``taor voice serve``, and the tools' names). What is being heard shows in the prompt line;
each final utterance is sent as if typed: an input, or steering while the agent works."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from taor.cli.interactive.commands.command import Command

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl
    from taor.voice.controller import Voice

SOURCES = ("microphone", "loopback")


class Heard:
    """What the voice controller hears, on the screen and to the session."""

    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    def partial(self, text: str) -> None:
        self.repl.redraw()

    async def final(self, text: str) -> None:
        self.repl.screen.line(f"🎤 {text}", "bold")
        await self.repl.send(text)

    def ended(self, reason: str, *, failed: bool) -> None:
        self.repl.screen.line(
            f"{'✗' if failed else '🎤'} voice off: {reason}", "red" if failed else "dim"
        )
        self.repl.redraw()


def controller(repl: Repl) -> Voice:
    if repl.voice is None:
        from taor.voice.client import connect
        from taor.voice.controller import Voice, VoiceTools

        settings = repl.settings
        tools = VoiceTools(
            start=settings.voice_start_tool,
            updates=settings.voice_updates_tool,
            stop=settings.voice_stop_tool,
        )
        repl.voice = Voice(connect(settings.voice_command), Heard(repl), tools)
    return repl.voice


async def voice(repl: Repl, argument: str) -> None:
    action, _, rest = argument.partition(" ")
    if action in ("", "status"):
        repl.screen.line(controller(repl).status, "dim")
    elif action == "start":
        source = rest.strip() or "microphone"
        if source not in SOURCES:
            source = _file(repl, source)
        repl.screen.line(f"🎤 starting ({repl.settings.voice_command}) …", "dim")
        listening = await controller(repl).start(source)
        repl.screen.line(f"🎤 listening to {listening}; /voice stop ends it", "dim")
    elif action == "stop":
        if repl.voice is None or not repl.voice.on:
            repl.screen.line("voice is off", "dim")
        else:
            await repl.voice.stop()
    else:
        repl.screen.line(
            "usage: /voice start [microphone|loopback|FILE], /voice status, /voice stop", "yellow"
        )


def _file(repl: Repl, given: str) -> str:
    """A file's path from the project's folder: the server may run anywhere."""
    return str(repl.root / Path(given).expanduser())


VOICE = Command(
    name="voice",
    run=voice,
    arguments="start [microphone|loopback|FILE] | status | stop",
    help="voice input through a speech-to-text MCP server",
    choices=("start", "status", "stop"),
)
