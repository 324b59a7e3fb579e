"""Permission requests, asked inline above the prompt, one at a time (parallel calls queue up):
``y`` allows once, ``a`` allows always (the request's rules are added to the session), ``s``
does that and saves the rules to the project's ``.taor/config.toml``, ``n`` denies, ``r``
denies with a reason the model reads (typed at the prompt, Enter sends it, Esc goes back).
Ctrl-C denies and interrupts the cycle; Ctrl-O shows the whole diff of an edit asked about.

Keys answer a question only once its keys are on the screen, ``SETTLE`` seconds after the
question was first drawn: a person typing a message when a question pops up would otherwise
answer it with the next letter (``a``: allow always). Keys typed before that are what they were
meant to be, part of the draft in the prompt (Enter sends it), and the question says they went
there. A key typed before a question was drawn is always before that. Once the keys show, other
keys do nothing; text typed before the question stays in the prompt and is there afterwards.
How a question looks is ``question``'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.document import Document

from taor.agent.events import PermissionDecision, PermissionRequest
from taor.cli.interactive.live import Fragments
from taor.cli.interactive.question import Line, choices, question_lines, wrapped
from taor.cli.interactive.views import Fold, expanded
from taor.errors import TaorError

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from taor.cli.interactive.app import Repl

INTERRUPTED = "the user interrupted"
SETTLE = 0.4  # seconds a question is on the screen before its keys answer it
EARLY = "(keys typed as it appeared went to your message, not to the question)"


class PermissionPrompt:
    def __init__(
        self, repl: Repl, project_config: Path, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.repl, self.project_config, self.clock = repl, project_config, clock
        self.queue: list[PermissionRequest] = []
        self.reason = False  # a reason for a denial is being typed
        self.early = False  # keys went to the draft while the question settled
        self._draft: Document | None = None
        self._drawn: tuple[PermissionRequest, float] | None = None  # the question, when drawn
        self._keys_shown = False  # the keys of the question drawn are on the screen

    @property
    def asking(self) -> bool:
        return bool(self.queue)

    @property
    def ready(self) -> bool:
        """Whether keys answer the question: its keys are on the screen."""
        drawn = self._drawn is not None and bool(self.queue) and self._drawn[0] is self.queue[0]
        return drawn and self._keys_shown

    def add(self, request: PermissionRequest) -> None:
        self.queue.append(request)
        self.repl.redraw()

    def settled(self, decision: PermissionDecision) -> None:
        """A request answered elsewhere (or withdrawn) is no longer asked."""
        self._drop(lambda r: (r.agent_id, r.call_id) == (decision.agent_id, decision.call_id))

    def clear(self, *, agent_id: str) -> None:
        """The requests of a cycle that ended (an interrupt withdraws them unanswered)."""
        self._drop(lambda r: r.agent_id == agent_id)

    def fragments(self, width: int, room: int) -> Fragments:
        """The question at the head of the queue, in ``room`` lines when it fits; drawing it
        starts its ``SETTLE`` time."""
        if not self.queue:
            return []
        request, now = self.queue[0], self.clock()
        if self._drawn is None or self._drawn[0] is not request:
            self._drawn, self._keys_shown, self.early = (request, now), False, False
        self._keys_shown = self._keys_shown or now - self._drawn[1] >= SETTLE
        lines = question_lines(request, width, room, self._answers(width), len(self.queue))
        out: Fragments = []
        for style, text in lines:
            out += [(style, text), ("", "\n")]
        return out

    def _answers(self, width: int) -> list[Line]:
        if self.reason:
            return [("class:keys", "  reason for the model (Enter sends, Esc goes back):")]
        if not self._keys_shown:  # their room kept, so nothing moves when they show
            return [("", "") for _ in choices(width)]
        keys = [("class:keys", line) for line in choices(width)]
        early = [("class:dim", line) for line in wrapped(EARLY, width, "   ", "  ")]
        return [*keys, *early] if self.early else keys

    def typed_early(self, buffer: Buffer, data: str) -> None:
        """A key pressed before the keys showed: typed into the draft, as it was meant."""
        buffer.insert_text(data)
        self.early = True

    def show_diff(self) -> bool:
        """The whole diff of the edit asked about, above (False: none is asked about)."""
        if not self.queue or not self.queue[0].diff:
            return False
        request = self.queue[0]
        title = f"{request.summary or request.name}, if allowed:"
        self.repl.screen.print(expanded(Fold(title=title, text=request.diff, diff=True)))
        return True

    # --- answers (from the key bindings) ---

    def answer(self, kind: str, message: str = "") -> None:
        """``kind``: allow, allow_always, save (allow_always, rules saved) or deny."""
        if not self.queue:
            return
        request = self.queue.pop(0)
        decision = "allow_always" if kind == "save" else kind
        try:
            self.repl.session.decide(
                request.request_id, decision, message, agent_id=request.agent_id
            )
        except TaorError:  # withdrawn meanwhile (the cycle was interrupted)
            return
        finally:
            self.repl.redraw()
        if kind == "save":
            self._save(request)

    def deny_and_interrupt(self) -> None:
        self.answer("deny", INTERRUPTED)
        self.repl.session.interrupt()

    def start_reason(self, buffer: Buffer) -> None:
        self.reason, self._draft = True, buffer.document
        buffer.reset()

    def end_reason(self, buffer: Buffer, *, send: bool) -> None:
        message = buffer.text.strip()
        self.reason = False
        buffer.document = self._draft or Document()
        self._draft = None
        if send:
            self.answer("deny", message)

    def _save(self, request: PermissionRequest) -> None:
        from taor.host.settings.write import add_allow_rules

        try:
            added = add_allow_rules(self.project_config, request.rules)
        except TaorError as error:
            self.repl.screen.line(f"✗ not saved: {error}", "red")
            return
        if added:
            where = _shown(self.project_config, self.repl.root)
            later = (
                ""
                if self.repl.settings.trusted
                else " (later runs apply them once you trust this folder: taor trust)"
            )
            self.repl.view.note(request.call_id, f"saved to {where}: {', '.join(added)}{later}")

    def _drop(self, gone: Callable[[PermissionRequest], bool]) -> None:
        keep = [r for r in self.queue if not gone(r)]
        if len(keep) != len(self.queue):
            if self.queue and self.queue[0] not in keep:
                self.reason = False
            self.queue = keep
            self.repl.redraw()


def _shown(path: Path, root: Path) -> str:
    """``path`` relative to the workspace when it is inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
