"""The prompt: a prompt_toolkit ``PromptSession`` with this project's input history (kept across
runs in the user state directory), the live area above the input line (``message``), the
status line below it (``toolbar``), completion of commands and ``@`` paths, and the keys of
``keys``. It writes to the
terminal even when stdout is redirected (then stderr is the terminal)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.output import create_output
from prompt_toolkit.styles import Style

from taor._private import private_dir, private_open
from taor.cli.interactive import stopping
from taor.cli.interactive.completion import PromptCompleter
from taor.cli.interactive.keys import key_bindings
from taor.host.sessions import project_key

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

STYLE = Style.from_dict(
    {
        "prompt": "bold",
        "busy-prompt": "bold ansimagenta",
        "dim": "#8a8a8a",
        "thinking": "#8a8a8a italic",
        "running": "ansicyan",
        "spinner": "ansicyan",
        "queued": "ansimagenta",
        "ask": "bold ansiyellow",
        "keys": "ansiyellow",
        "diff-file": "bold",
        "diff-hunk": "ansicyan",
        "diff-add": "ansigreen",
        "diff-del": "ansired",
    }
)


def prompt_session(repl: Repl, root: Path) -> PromptSession[str]:
    session: PromptSession[str] = PromptSession(
        message=lambda: message(repl),
        bottom_toolbar=lambda: toolbar(repl),
        key_bindings=key_bindings(repl),
        history=history(root),
        completer=PromptCompleter(repl.commands, root),
        complete_while_typing=True,
        style=STYLE,
        include_default_pygments_style=False,
        output=create_output(always_prefer_tty=True),
        reserve_space_for_menu=3,
    )
    session.app.key_processor.before_key_press += lambda _: _counted(repl)
    return session


def _counted(repl: Repl) -> None:
    repl.keys_pressed += 1


def history(root: Path) -> History:
    """The project's input history, a file only the person can read (inputs can hold
    secrets pasted in)."""
    path = history_path(root)
    try:
        private_dir(path.parent)
        os.close(private_open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND))
    except OSError:  # a read-only home: history for this run only
        return InMemoryHistory()
    return FileHistory(str(path))


def history_path(cwd: Path) -> Path:
    """The project's input history file (in the user state directory)."""
    from platformdirs import user_state_dir

    return Path(user_state_dir("taor")) / "history" / project_key(cwd)


def message(repl: Repl) -> StyleAndTextTuples:
    """The live area, then the prompt's mark (magenta while the agent works: a line typed
    then steers it). Once a line is sent, only the mark stays on the screen with it."""
    app = get_app()
    mark = ("class:busy-prompt", "› ") if repl.busy else ("class:prompt", "› ")
    if repl.asking.reason:
        mark = ("class:ask", "reason › ")
    if repl.picker is not None and not app.is_done:
        mark = ("class:ask", "pick › ")
    if app.is_done:
        return [mark]
    if repl.voice is not None and repl.voice.partial:  # what voice input is hearing now
        mark = (mark[0], f"{mark[1]}🎤 {repl.voice.partial} … ")
    size = app.output.get_size()
    room = max(3, size.rows - 6)
    if repl.picker is not None:
        picked = repl.picker.fragments(size.columns, room - repl.live.height(size.columns))
        return [*repl.live.fragments(size.columns, room, picked), mark]
    question = repl.asking.fragments(size.columns, room - repl.live.height(size.columns))
    return [*repl.live.fragments(size.columns, room, question), mark]


def toolbar(repl: Repl) -> StyleAndTextTuples:
    width = get_app().output.get_size().columns
    if stopping.exit_hint(repl):
        return [("class:bottom-toolbar", " press Ctrl-C again to exit")]
    return [("class:bottom-toolbar", repl.status.line(width))]
