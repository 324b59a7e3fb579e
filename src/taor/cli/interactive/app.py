"""``Repl``: the interactive loop. One task reads the session's events and shows them
(``events.EventView``) while the prompt reads input in the same asyncio loop, so typing goes on
while the agent works: a line typed then steers the running cycle, a line typed while idle
starts one, a ``/`` line is a local command (``commands``), a ``!`` line a shell command run
here (``shell``).

The session comes from ``taor.cli.setup`` (``taor.host.compose``) like a headless run's; ``/clear`` and ``/session``
replace it with another made the same way (same model and settings), as does the next input
after the session ended on its own (a rejected key). Leaving (Ctrl-D, Ctrl-C twice at an empty
prompt, ``/exit``, a signal: ``stopping``) closes the session properly: the cycle
in flight is interrupted, its pending calls answered, the transcript flushed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from argparse import Namespace
from collections.abc import Awaitable
from logging import Logger
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_config_dir
from prompt_toolkit.application import get_app_or_none

from taor.agent.context.mentions import attach_mentions
from taor.agent.record.turns import UserTurn
from taor.agent.session import Session
from taor.cli.interactive import shell, stopping
from taor.cli.interactive.commands import registry
from taor.cli.interactive.commands.mcp import attach_resources
from taor.cli.interactive.commands.registry import is_command, run_command
from taor.cli.interactive.events import EventView
from taor.cli.interactive.live import Live
from taor.cli.interactive.paste import Pastes
from taor.cli.interactive.permission import PermissionPrompt
from taor.cli.interactive.picker import Picker
from taor.cli.interactive.prompt import prompt_session
from taor.cli.interactive.screen import Screen
from taor.cli.interactive.status import Status
from taor.cli.interactive.views import Folds, expanded
from taor.cli.logs import log_event
from taor.errors import TaorError
from taor.host import sessions
from taor.host.settings import Settings
from taor.llm.catalog import Catalog
from taor.llm.model import Model

if TYPE_CHECKING:
    from taor.voice.controller import Voice

TICK = 0.1  # seconds between redraws of the spinners while the agent works
RENEWING = ("/exit", "/quit", "/clear", "/session")  # need no new session for an ended one


class Repl:
    def __init__(
        self, args: Namespace, settings: Settings, log: Logger, session: Session, model: Model
    ) -> None:
        self.args, self.settings, self.log = args, settings, log
        self.session, self.models = session, [model]
        self.root = Path(session.environment.working_directory())
        self.folder = sessions.sessions_dir(self.root)
        self.clock = time.monotonic
        self.screen, self.live, self.folds, self.pastes = Screen(), Live(), Folds(), Pastes()
        project_config = sessions.project_root(self.root) / ".taor" / "config.toml"
        self.asking = PermissionPrompt(self, project_config, self.clock)
        self.view = EventView(
            self.screen, self.live, self.folds, self.asking, lambda e: stopping.cycle_ended(self, e)
        )
        self.status = Status.of(session)
        self.project = sessions.project_root(self.root)
        self.config_dir = Path(user_config_dir("taor"))
        self.commands = registry.table(self.project, self.config_dir, trusted=settings.trusted)
        self.prompt = prompt_session(self, self.root)
        self.draft = ""  # what the next prompt starts with
        self.keys_pressed = 0  # counted by the prompt, so a second Ctrl-C knows it is next
        self.exit_armed: tuple[float, int] | None = None  # a first Ctrl-C: when, at which key
        self.shell_task: asyncio.Task[None] | None = None  # a ``!command`` running
        self.shell_notes: list[str] = []  # ``!command`` outputs for the model's next input
        self.picker: Picker | None = None  # a list to pick from, shown above the prompt
        self.voice: Voice | None = None  # voice input, once /voice has been used
        self._leaving = False
        self._reader: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        return self.live.busy_since is not None or self.session.state not in ("idle", "closed")

    async def run(self, first: str = "") -> int:
        """Until the person leaves. The terminal stays in raw mode from start to end, so keys
        typed before a prompt is drawn (at start-up, while a command runs) wait for it as
        typed, instead of being echoed and read as lines by the terminal."""
        with self.prompt.input.raw_mode():
            return await self._run(first)

    async def _run(self, first: str) -> int:
        stopping.on_signals(self)
        self._reader = asyncio.create_task(self._read(self.session))
        await self.session.start()
        await self._opened()
        self._recap()
        if first.strip():  # from the command line: shown as if typed at the prompt
            self.screen.line(f"› {first}", "bold")
            await self._guarded(self.handle(first))
        ticker = asyncio.create_task(self._tick())
        try:
            while not self._leaving:
                try:
                    default, self.draft = self.draft, ""
                    text = await self.prompt.prompt_async(default=default, handle_sigint=False)
                except EOFError:
                    break
                await self._guarded(self.handle(text))
        finally:
            ticker.cancel()
            await self._close()
        return 0

    async def handle(self, text: str) -> None:
        """A line from the prompt: a local command, else an input (or steering, when busy)."""
        text = self.pastes.expand(text)
        if not text.strip():
            return
        if not self.screen.terminal:  # the output goes elsewhere: it gets the inputs too
            self.screen.line(f"› {text}")
        if self.session.state == "closed" and not text.startswith(RENEWING):
            await self.renew()  # it ended on its own (a bad key, say)
        if is_command(text.strip()):
            await run_command(self, text.strip())
            return
        if shell.is_shell(text.strip()):
            shell.start(self, text.strip())
            return
        await self.send(text)

    async def send(self, text: str) -> None:
        """``text`` to the model, its ``@`` files attached: an input, or steering when busy."""
        model = self.session.model
        vision = Catalog.default().lookup(model.provider, model.model_id).vision
        attached = await attach_mentions(text, self.session.environment, images=vision)
        attached = await attach_resources(self, attached)
        for problem in attached.problems:
            self.screen.line(f"⚠ {problem}", "yellow")
        if attached.files:
            self.screen.line(f"  attached: {', '.join(attached.files)}", "dim")
        if attached.image_files:
            names = ", ".join(attached.image_files)
            how = "the model opens it with read_file" if self.busy else "sent with your message"
            self.screen.line(f"  image: {names} ({how})", "dim")
        sent = "\n\n".join([*self.shell_notes, attached.text])
        if self.busy:  # steering is text: the model opens the images itself
            self.session.steer(sent + ("\n(view them with read_file)" if attached.images else ""))
        else:
            self.session.submit(sent, images=attached.images)  # its events come through _read
            self.view.typed.append(sent)
            self.live.busy_since = self.clock()
        self.shell_notes.clear()
        self.redraw()

    async def _guarded(self, work: Awaitable[None]) -> None:
        """A line's work; what goes wrong is one line on the screen, and the prompt goes on."""
        try:
            await work
        except TaorError as error:
            self.screen.line(f"✗ {error}", "red")
        except Exception as error:  # a bug of taor's: the details go to the log
            from taor.cli.logs import log_file

            self.log.exception("internal error")
            self.screen.line(f"✗ internal error ({error!r}); details in {log_file()}", "red")

    async def replace(self, new: Session) -> None:
        """``new`` in place of the session: the old one closed, the new one shown from now."""
        await self._end(self.session)
        self.session = new
        self.live.clear()
        self.live.queued.clear()
        self._reader = asyncio.create_task(self._read(new))
        await new.start()
        self.refresh_status()

    async def renew(self) -> None:
        """A new session with the same settings in place of one that has ended."""
        from taor.cli.interactive.commands.session import switch

        await switch(self)
        self.screen.line("new session, same settings (the last one ended)", "dim")

    # --- what the keys and commands call ---

    def exit(self) -> None:
        """Leave after the current line's work. A draft is dropped, not left as if sent: the
        prompt is erased, its mark too."""
        self._leaving = True
        app = get_app_or_none()
        if app is not None and app.is_running and not app.is_done:
            if self.asking.reason:
                self.asking.end_reason(self.prompt.default_buffer, send=False)
            self.prompt.default_buffer.reset()
            app.erase_when_done = True
            app.exit(exception=EOFError())

    def expand_last(self) -> None:
        fold = self.folds.get()
        if fold is not None:
            self.screen.print(expanded(fold))

    def redraw(self) -> None:
        app = get_app_or_none()
        if app is not None and app.is_running:
            app.invalidate()

    def refresh_status(self) -> None:
        if self.session.state != "closed":
            self.status = Status.of(self.session)
        self.redraw()

    # --- internals ---

    async def _read(self, session: Session) -> None:
        async for event in session.events():
            try:
                self.view.show(event)
            except Exception:  # a bug in showing it must not stop the session's events
                self.log.exception("could not show %s", event.kind)
            log_event(self.log, event)
            if event.kind in ("usage", "compaction", "processing_end", "session_start"):
                self.refresh_status()
            self.redraw()

    def _recap(self) -> None:
        """A resumed session's last input, so the person knows where it stands."""
        inputs = [turn for turn in self.session.history if isinstance(turn, UserTurn)]
        if inputs:
            last = inputs[-1].text.strip().splitlines() or [""]
            self.screen.line(f"{len(inputs)} earlier input(s); the last: › {last[0][:200]}", "dim")

    async def _opened(self) -> None:
        """Until the session's opening lines are on the screen (then the prompt goes under
        them), or a second at most."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1.0):
                await self.view.opened.wait()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            hint = self.exit_armed is not None and stopping.exit_armed(self)
            if self.busy or self.asking.asking or self.live.calls or hint:
                self.redraw()
            elif self.exit_armed is not None:  # its time is up: the hint goes, once
                self.exit_armed = None
                self.redraw()

    async def _end(self, session: Session) -> None:
        await session.close()
        if self._reader is not None:
            await self._reader  # up to session_end

    async def _close(self) -> None:
        if self.voice is not None:
            await self.voice.stop()
        session = self.session
        await self._end(session)
        for model in self.models:
            await model.aclose()
        self.screen.line(
            f"session {session.id[:12]} saved · taor --resume {session.id[:12]}", "dim"
        )
