"""What stops what: Ctrl-C, the signals, and what becomes of steering a stop leaves unsent.

- Ctrl-C is a key (the terminal is in raw mode, so it sends no SIGINT): it denies an open
  permission question and interrupts the cycle; while the agent works it interrupts it; at a
  draft it clears the draft; at an empty idle prompt it exits, as Ctrl-D does.
- SIGINT from outside (``kill -INT``) interrupts the cycle in flight as Ctrl-C does, whether
  or not a prompt is drawn at that moment; when nothing runs, it exits.
- SIGTERM and SIGHUP exit. Leaving always closes the session properly (``Repl.run``).
- Steering typed during a cycle that an interrupt stopped was meant for a model that is no
  longer working: it is not sent on its own, nor kept for a later input unseen. It goes back
  into the prompt, to be sent again, edited or cleared. Steering that only came too late for
  a cycle that ended normally runs as the next input.
"""

from __future__ import annotations

import asyncio
import signal
from typing import TYPE_CHECKING

from prompt_toolkit.application import get_app_or_none
from prompt_toolkit.document import Document

from taor.agent.events import ProcessingEnd

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from taor.cli.interactive.app import Repl


def ctrl_c(repl: Repl, buffer: Buffer) -> None:
    if repl.asking.reason:
        repl.asking.end_reason(buffer, send=False)
    if repl.asking.asking:
        repl.asking.deny_and_interrupt()
    elif repl.busy:
        repl.session.interrupt()
    elif buffer.text:
        buffer.reset()
    else:
        repl.exit()


def sigint(repl: Repl) -> None:
    """SIGINT from outside: like Ctrl-C while something runs, else leaving (a draft too)."""
    if repl.busy or repl.asking.asking:
        ctrl_c(repl, repl.prompt.default_buffer)
    else:
        repl.exit()


def on_signals(repl: Repl) -> None:
    """For the whole run, prompt or no prompt (the prompt is told to leave SIGINT alone)."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, sigint, repl)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, repl.exit)


def cycle_ended(repl: Repl, event: ProcessingEnd) -> None:
    """Steering the cycle left unsent: back in the prompt after an interrupt, else the next
    input."""
    if repl.session.state == "closed":
        return
    if event.stop_reason == "interrupted":
        texts = repl.session.withdraw_steering()
        if texts:
            give_back(repl, texts)
    else:
        texts = repl.session.requeue_steering()
    for text in texts:
        if text in repl.live.queued:
            repl.live.queued.remove(text)


def give_back(repl: Repl, texts: list[str]) -> None:
    """``texts`` in the prompt, before what is being typed there."""
    buffer = repl.prompt.default_buffer
    app = get_app_or_none()
    drawn = app is not None and app.is_running and not app.is_done
    draft = buffer.text if drawn else repl.draft
    text = "\n".join([*texts, draft] if draft.strip() else texts)
    if drawn:
        buffer.document = Document(text, len(text))
    else:  # the next prompt starts with it
        repl.draft = text
    repl.screen.line("» not sent (interrupted): back in the prompt to send, edit or clear", "dim")
