"""The keys of the prompt. Enter sends; Ctrl-J, Alt-Enter, or a ``\\`` before Enter start a new
line; Ctrl-C interrupts the agent (denying an open permission request), clears a draft, and at
an empty idle prompt asks to be pressed again to exit (``stopping``); Esc interrupts the agent
as Ctrl-C does (with the completion menu open, it closes the menu); Tab completes at once,
also while the menu typing opened is still being filled; Shift-Tab moves to the next permission mode; Ctrl-O shows the last folded output
whole (the whole diff of an edit asked about, while asked). Once a permission question's keys
show, they answer it and other keys are ignored; before, keys type into the draft
(``permission``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.application import get_app
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.completion.base import get_common_complete_suffix
from prompt_toolkit.filters import Condition, Filter, has_completions
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from taor.cli.interactive import stopping
from taor.cli.interactive.commands.settings import cycle_mode
from taor.cli.interactive.paste import image_mention

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

ANSWERS = {"y": "allow", "a": "allow_always", "s": "save", "n": "deny"}


def key_bindings(repl: Repl) -> KeyBindings:
    keys = KeyBindings()
    asking = Condition(lambda: repl.asking.ready and not repl.asking.reason)
    reason = Condition(lambda: repl.asking.reason)
    picking = Condition(lambda: repl.picker is not None)
    typing = ~asking & ~reason & ~picking
    settling = Condition(lambda: repl.asking.asking) & typing  # asked, keys not shown yet

    @keys.add("enter", filter=typing)
    def send(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.document.text_before_cursor.endswith("\\"):
            buffer.delete_before_cursor()
            buffer.insert_text("\n")
        else:
            # Steering leaves the prompt: it shows queued, then where it reached the model,
            # after the text being written (not above it).
            steering = repl.busy and not buffer.text.lstrip().startswith(("/", "!"))
            event.app.erase_when_done = steering and bool(buffer.text.strip())
            buffer.validate_and_handle()

    @keys.add("c-j", filter=typing)
    @keys.add("escape", "enter", filter=typing)
    def newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @keys.add("c-c")
    def interrupt(event: KeyPressEvent) -> None:
        stopping.ctrl_c(repl, event.current_buffer)

    @keys.add("tab", filter=typing & ~has_completions)
    def complete(event: KeyPressEvent) -> None:
        # prompt_toolkit drops a Tab pressed while the completion typing started is running
        # ("/rev" then Tab at once): complete here from the completer's own answer instead.
        buffer = event.current_buffer
        asked = CompleteEvent(completion_requested=True)
        found = list(buffer.completer.get_completions(buffer.document, asked))
        if len(found) == 1:
            buffer.apply_completion(found[0])
        elif found:
            buffer.insert_text(get_common_complete_suffix(buffer.document, found))
            buffer.start_completion()

    @keys.add("escape", filter=typing & has_completions)
    def close_menu(event: KeyPressEvent) -> None:
        event.current_buffer.cancel_completion()  # the menu goes; the agent is not stopped

    busy = Condition(lambda: repl.busy or repl.asking.asking)

    @keys.add("escape", filter=typing & ~has_completions & busy)
    def stop(event: KeyPressEvent) -> None:
        stopping.ctrl_c(repl, event.current_buffer)

    @keys.add("s-tab", filter=typing & ~has_completions)
    def mode(event: KeyPressEvent) -> None:
        cycle_mode(repl)

    @keys.add("c-d", filter=Condition(lambda: not get_app().current_buffer.text))
    def leave(event: KeyPressEvent) -> None:
        repl.exit()

    @keys.add("c-o", filter=~reason)
    def expand(event: KeyPressEvent) -> None:
        if not repl.asking.show_diff():
            repl.expand_last()

    @keys.add("<any>", filter=settling)
    def early(event: KeyPressEvent) -> None:
        if event.data.isprintable():
            repl.asking.typed_early(event.current_buffer, event.data * event.arg)

    @keys.add(Keys.BracketedPaste, filter=typing)
    def paste(event: KeyPressEvent) -> None:
        image = image_mention(event.data, repl.root)
        event.current_buffer.insert_text(image or repl.pastes.insert(event.data))

    _answers(keys, repl, asking, reason)
    _picking(keys, repl, picking & ~asking & ~reason)
    return keys


def _picking(keys: KeyBindings, repl: Repl, picking: Filter) -> None:
    @keys.add("up", filter=picking)
    @keys.add("down", filter=picking)
    def move(event: KeyPressEvent) -> None:
        if repl.picker is not None:
            repl.picker.move(-1 if event.key_sequence[0].key == Keys.Up else 1)

    @keys.add("enter", filter=picking)
    def pick(event: KeyPressEvent) -> None:
        picker, buffer = repl.picker, event.current_buffer
        choice = picker.choice(buffer.text.strip()) if picker is not None else None
        if picker is None or choice is None:
            buffer.reset()  # not a number of the list: typed again
            return
        repl.picker = None
        buffer.text = f"{picker.command} {choice}"
        buffer.validate_and_handle()

    @keys.add("escape", filter=picking)
    def leave_list(event: KeyPressEvent) -> None:
        repl.picker = None
        event.current_buffer.reset()


def _answers(keys: KeyBindings, repl: Repl, asking: Condition, reason: Condition) -> None:
    for key, kind in ANSWERS.items():

        @keys.add(key, filter=asking)
        def answer(event: KeyPressEvent, kind: str = kind) -> None:
            repl.asking.answer(kind)

    @keys.add("r", filter=asking)
    def with_reason(event: KeyPressEvent) -> None:
        repl.asking.start_reason(event.current_buffer)

    @keys.add("<any>", filter=asking)
    @keys.add("enter", filter=asking)
    def ignored(event: KeyPressEvent) -> None:
        """Other keys do nothing while asked: a draft is not typed into by accident."""

    @keys.add("enter", filter=reason)
    def send_reason(event: KeyPressEvent) -> None:
        repl.asking.end_reason(event.current_buffer, send=True)

    @keys.add("escape", filter=reason)
    def back(event: KeyPressEvent) -> None:
        repl.asking.end_reason(event.current_buffer, send=False)
