"""How a permission question looks in the live area, line by line: what is asked (all of a long
or multi-line command), the diff an edit would make (coloured, folded to the room there is),
why it asks, what "always" would allow from now on, and the answer keys on one line that fits
80 columns (wrapped between keys when narrower). ``permission.PermissionPrompt`` decides when
the keys show and what they do.
"""

from __future__ import annotations

import json
import textwrap

from taor.agent.events import PermissionRequest
from taor.cli.interactive.live import fit
from taor.cli.interactive.views import diff_line_kind

Line = tuple[str, str]  # (style, text)
SHOWN = 12  # lines of a long command shown in a question
DIFF_LEAST = 4  # lines of a diff shown however little room there is
CHOICES = ("y yes", "a always", "s always, saved to project", "n no", "r no, with a reason")


def question_lines(
    request: PermissionRequest, width: int, room: int, answers: list[Line], asked: int = 1
) -> list[Line]:
    """The whole question in at most ``room`` lines when it can be (its diff folded to fit),
    ``answers`` (the keys, or what stands in for them) last."""
    head = [("class:ask", line) for line in question(request, width, asked)]
    tail = [("class:dim", line) for line in wrapped(request.reason, width, "  ", "  ")]
    always = f"always allows: {', '.join(request.rules) or request.name}"
    tail += [("class:dim", line) for line in wrapped(always, width, "    ", "  ")]
    tail += answers
    diff = diff_lines(request.diff, width, room - len(head) - len(tail))
    return [*head, *diff, *tail]


def question(request: PermissionRequest, width: int, asked: int = 1) -> list[str]:
    """``? allow shell: make?``; when that line cuts what is asked (a long or multi-line
    command, long arguments), the whole of it under the question, up to ``SHOWN`` lines: a
    person sees all of what they allow. An edit's diff shows what it does instead."""
    more = f"  (1 of {asked})" if asked > 1 else ""
    who = f"[{request.agent_id}] " if request.agent_id else ""
    whole = None if request.diff else _whole(request)
    title = wrapped(f"? {who}allow {request.summary or request.name}?{more}", width, "  ")
    if whole is None or (len(title) <= 2 and "…" not in request.summary and "\n" not in whole):
        return title
    lines = [
        piece
        for line in whole.splitlines()
        for piece in wrapped(line.expandtabs(4), width, "    ", "    ") or [""]
    ]
    if len(lines) > SHOWN:
        lines = [*lines[: SHOWN - 1], f"    … +{len(lines) - SHOWN + 1} lines not shown"]
    return [*wrapped(f"? {who}allow {request.name}?{more}", width, "  "), *lines]


def diff_lines(diff: str, width: int, room: int) -> list[Line]:
    """A unified diff, coloured line by line and cut at the edge, in ``room`` lines at most
    (``DIFF_LEAST`` at least); what is left out is counted, and Ctrl-O shows it all."""
    body = [line.expandtabs(4) for line in diff.rstrip("\n").splitlines()]
    room = max(DIFF_LEAST, room)
    fold: list[Line] = []
    if len(body) > room:
        hidden = len(body) - room + 1
        body = body[: room - 1]
        fold = [
            ("class:dim", fit(f"    … +{hidden} lines of the diff (ctrl-o shows it all)", width))
        ]
    return [(_diff_style(line), fit(f"    {line}", width)) for line in body] + fold


def choices(width: int) -> list[str]:
    """The keys and what each does, as many to a line as fit."""
    return joined(CHOICES, width, "  ")


def joined(items: tuple[str, ...], width: int, indent: str = "") -> list[str]:
    """``items`` joined by `` · ``, as many to a line as fit in ``width`` (less one: the
    prompt's last column), broken between items, never inside one."""
    lines, line = [], indent
    for index, item in enumerate(items):
        text = item + (" ·" if index < len(items) - 1 else "")
        if line.strip() and len(line) + 1 + len(text) > width - 1:
            lines.append(line)
            line = indent
        line += f" {text}" if line.strip() else text
    return [*lines, line]


def _diff_style(line: str) -> str:
    kind = diff_line_kind(line)
    return "class:dim" if kind == "same" else f"class:diff-{kind}"


def _whole(request: PermissionRequest) -> str | None:
    """All of what the call does, when its summary may not show it all."""
    command = request.arguments.get("command")
    if isinstance(command, str):
        return command.strip("\n")
    if request.summary.endswith("…"):
        return json.dumps(dict(request.arguments), ensure_ascii=False, indent=1)
    return None


def wrapped(text: str, width: int, indent: str, first: str = "") -> list[str]:
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
