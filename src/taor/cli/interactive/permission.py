"""Permission requests, asked inline above the prompt, one at a time (parallel calls queue up):
``y`` allows once, ``a`` allows always (the request's rules are added to the session), ``s``
does that and saves the rules to the project's ``.taor/config.toml``, ``n`` denies, ``r``
denies with a reason the model reads (typed at the prompt, Enter sends it, Esc goes back).
Ctrl-C denies and interrupts the cycle. While a question is open the keys answer it; text
typed before it stays in the prompt and is there again afterwards.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.document import Document

from taor.agent.events import PermissionDecision, PermissionRequest
from taor.cli.interactive.live import Fragments
from taor.errors import TaorError

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from taor.cli.interactive.app import Repl

INTERRUPTED = "the user interrupted"
SHOWN = 12  # lines of a long command shown in a question


class PermissionPrompt:
    def __init__(self, repl: Repl, project_config: Path) -> None:
        self.repl, self.project_config = repl, project_config
        self.queue: list[PermissionRequest] = []
        self.reason = False  # a reason for a denial is being typed
        self._draft: Document | None = None

    @property
    def asking(self) -> bool:
        return bool(self.queue)

    def add(self, request: PermissionRequest) -> None:
        self.queue.append(request)
        self.repl.redraw()

    def settled(self, decision: PermissionDecision) -> None:
        """A request answered elsewhere (or withdrawn) is no longer asked."""
        self._drop(lambda r: (r.agent_id, r.call_id) == (decision.agent_id, decision.call_id))

    def clear(self, *, agent_id: str) -> None:
        """The requests of a cycle that ended (an interrupt withdraws them unanswered)."""
        self._drop(lambda r: r.agent_id == agent_id)

    def fragments(self, width: int) -> Fragments:
        if not self.queue:
            return []
        request = self.queue[0]
        lines = [("class:ask", line) for line in question(request, width, len(self.queue))]
        lines += [("class:dim", line) for line in _wrapped(request.reason, width, "  ", "  ")]
        if self.reason:
            lines.append(("class:keys", "  reason for the model (Enter sends, Esc goes back):"))
        else:
            lines += [("class:keys", line) for line in _choices(request, width)]
        out: Fragments = []
        for style, text in lines:
            out += [(style, text), ("", "\n")]
        return out

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
        from taor.cli.settings.write import add_allow_rules

        try:
            added = add_allow_rules(self.project_config, request.rules)
        except TaorError as error:
            self.repl.screen.line(f"✗ not saved: {error}", "red")
            return
        if added:
            where = _shown(self.project_config, self.repl.root)
            self.repl.view.note(request.call_id, f"saved to {where}: {', '.join(added)}")

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


def question(request: PermissionRequest, width: int, asked: int = 1) -> list[str]:
    """``? allow shell: make?``; when that line cuts what is asked (a long or multi-line
    command, long arguments), the whole of it under the question, up to ``SHOWN`` lines: a
    person sees all of what they allow."""
    more = f"  (1 of {asked})" if asked > 1 else ""
    who = f"[{request.agent_id}] " if request.agent_id else ""
    whole = _whole(request)
    title = _wrapped(f"? {who}allow {request.summary or request.name}?{more}", width, "  ")
    if whole is None or (len(title) <= 2 and "…" not in request.summary and "\n" not in whole):
        return title
    lines = [
        piece
        for line in whole.splitlines()
        for piece in _wrapped(line.expandtabs(4), width, "    ", "    ") or [""]
    ]
    if len(lines) > SHOWN:
        lines = [*lines[: SHOWN - 1], f"    … +{len(lines) - SHOWN + 1} lines not shown"]
    return [*_wrapped(f"? {who}allow {request.name}?{more}", width, "  "), *lines]


def _whole(request: PermissionRequest) -> str | None:
    """All of what the call does, when its summary may not show it all."""
    command = request.arguments.get("command")
    if isinstance(command, str):
        return command.strip("\n")
    if request.summary.endswith("…"):
        return json.dumps(dict(request.arguments), ensure_ascii=False, indent=1)
    return None


def _choices(request: PermissionRequest, width: int) -> list[str]:
    """The keys and what each does, as many to a line as fit (a long one wrapped)."""
    rules = ", ".join(request.rules) or request.name
    choices = [
        "y yes",
        f"a always: {rules}",
        "s always, saved to .taor/config.toml",
        "n no",
        "r no, with a reason",
    ]
    lines, line = [], " "
    for index, choice in enumerate(choices):
        text = f" {choice}" + (" ·" if index < len(choices) - 1 else "")
        if len(line) + len(text) > width - 1 and line.strip():
            lines.append(line)
            line = " "
        if len(line) + len(text) > width - 1:  # longer than a line on its own
            *whole, line = _wrapped(text.strip(), width, "    ", "  ")
            lines += whole
        else:
            line += text
    return [*lines, line]


def _wrapped(text: str, width: int, indent: str, first: str = "") -> list[str]:
    """``text`` in lines of ``width`` at most (the prompt cuts longer lines off)."""
    if not text:
        return []
    return textwrap.wrap(
        text,
        max(10, width - 1),
        initial_indent=first,
        subsequent_indent=indent,
        break_on_hyphens=False,  # a flag or a file name is not split where it reads as whole
    )
