"""What stops what: Ctrl-C, the signals, and what becomes of steering a stop leaves unsent.

- Ctrl-C is a key (the terminal is in raw mode, so it sends no SIGINT): it denies an open
  permission question and interrupts the cycle; while the agent works it interrupts it; at a
  draft it clears the draft; at an empty idle prompt it asks for a second press, which exits
  as Ctrl-D does if it comes within ``EXIT_WINDOW`` seconds with no other key between.
  Esc does what Ctrl-C does while the agent works or asks.
- Whatever state the prompt is in, Ctrl-C gives it back: a session that has ended leaves
  nothing running.
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
from taor.cli.interactive import shell

EXIT_WINDOW = 2.0  # seconds in which a second Ctrl-C at an empty prompt exits

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from taor.cli.interactive.app import Repl


def ctrl_c(repl: Repl, buffer: Buffer) -> None:
    if repl.asking.reason:
        repl.asking.end_reason(buffer, send=False)
    if shell.stop(repl):  # a ``!command`` running
        return
    if repl.picker is not None:  # a list to pick from: left
        repl.picker = None
        buffer.reset()
        return
    if repl.asking.asking:
        repl.asking.deny_and_interrupt()
    elif repl.busy and repl.session.state != "closed":
        repl.session.interrupt()
    elif repl.busy:  # nothing left to stop: the prompt is free again
        repl.live.clear()
        repl.live.busy_since = None
    elif buffer.text:
        buffer.reset()
    elif exit_armed(repl):
        repl.exit()
    else:
        repl.exit_armed = (repl.clock(), repl.keys_pressed)
        repl.redraw()


def exit_hint(repl: Repl) -> bool:
    """The hint to press Ctrl-C again shows: no key since the first, and in time."""
    return (
        exit_armed(repl)
        and repl.exit_armed is not None
        and (repl.keys_pressed == repl.exit_armed[1])
    )


def exit_armed(repl: Repl) -> bool:
    """A Ctrl-C at an empty prompt was the last key, pressed moments ago: the next exits."""
    if repl.exit_armed is None:
        return False
    when, key = repl.exit_armed
    return repl.keys_pressed <= key + 1 and repl.clock() - when < EXIT_WINDOW


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
