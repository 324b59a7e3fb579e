"""How tool calls, their results, diffs and thinking look once done: a line per call, the result
folded to a few lines (``Folds`` keeps the whole text for ``/expand`` and Ctrl-O), an edit as a
coloured unified diff.

Each view is a rich ``Text``; folded lines are cut at the terminal's edge with an ellipsis
rather than wrapped, so a folded result takes exactly the lines it says.
"""

from __future__ import annotations

from rich.text import Text

from taor._records import frozen

FOLDED_LINES = 3  # lines of a result shown before the fold
DIFF_LINES = 24  # lines of a diff shown before the fold
THINKING_LINES = 2


@frozen
class Fold:
    """Something shown folded: its title and its whole text (a diff keeps its colours)."""

    title: str
    text: str
    diff: bool = False


class Folds:
    """What was folded this session, numbered from 1; ``/expand N`` shows one whole."""

    def __init__(self) -> None:
        self.items: list[Fold] = []

    def add(self, fold: Fold) -> int:
        self.items.append(fold)
        return len(self.items)

    def get(self, number: int | None = None) -> Fold | None:
        """The fold numbered ``number``, the last one when None."""
        if not self.items:
            return None
        if number is None:
            return self.items[-1]
        return self.items[number - 1] if 1 <= number <= len(self.items) else None


def call_line(summary: str, *, failed: bool = False, seconds: float = 0.0) -> Text:
    """``● shell: pytest -q  1.2s`` (a red ``✗`` when the call failed)."""
    line = Text.assemble(("✗ " if failed else "● ", "bold red" if failed else "bold green"))
    line.append(summary, style="bold")
    if seconds >= 0.1:
        line.append(f"  {seconds:.1f}s", style="dim")
    line.no_wrap, line.overflow = True, "ellipsis"
    return line


def folded(text: str, number: int, *, lines: int = FOLDED_LINES, style: str = "") -> Text:
    """The first ``lines`` lines of ``text`` under a ``⎿``, then how many are hidden."""
    body = text.rstrip("\n").splitlines() or ["(no output)"]
    view = Text(no_wrap=True, overflow="ellipsis")
    for index, line in enumerate(body[:lines]):
        view.append("  ⎿ " if index == 0 else "    ", style="dim")
        view.append(line.expandtabs(4) + "\n", style=style)
    hidden = len(body) - lines
    if hidden > 0:
        view.append(f"    … +{hidden} lines (ctrl-o or /expand {number})\n", style="dim")
    view.rstrip()
    return view


def diff_view(diff: str, number: int, *, lines: int | None = DIFF_LINES) -> Text:
    """A unified diff, coloured: files bold, hunks cyan, additions green, removals red."""
    body = diff.rstrip("\n").splitlines()
    shown = body if lines is None else body[:lines]
    view = Text(no_wrap=True, overflow="ellipsis")
    for line in shown:
        view.append("    " + line.expandtabs(4) + "\n", style=_diff_style(line))
    if len(body) > len(shown):
        more = len(body) - len(shown)
        view.append(f"    … +{more} lines of diff (ctrl-o or /expand {number})\n", style="dim")
    view.rstrip()
    return view


def diff_line_kind(line: str) -> str:
    """What a line of a unified diff is: ``file``, ``hunk``, ``add``, ``del`` or ``same``."""
    if line.startswith(("+++", "---")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    return "del" if line.startswith("-") else "same"


_DIFF_STYLES = {"file": "bold", "hunk": "cyan", "add": "green", "del": "red", "same": "dim"}


def _diff_style(line: str) -> str:
    return _DIFF_STYLES[diff_line_kind(line)]


def thinking_view(text: str, number: int) -> Text:
    """Thinking, dimmed and folded to its first lines."""
    body = [line for line in text.strip().splitlines() if line.strip()]
    view = Text(no_wrap=True, overflow="ellipsis", style="dim italic")
    view.append("✻ thinking\n")
    for line in body[:THINKING_LINES]:
        view.append("    " + line + "\n")
    if len(body) > THINKING_LINES:
        view.append(f"    … +{len(body) - THINKING_LINES} lines (/expand {number})\n")
    view.rstrip()
    return view


def expanded(fold: Fold) -> Text:
    """A fold shown whole."""
    if fold.diff:
        return Text.assemble(
            Text(fold.title + "\n", style="bold"), diff_view(fold.text, 0, lines=None)
        )
    return Text.assemble(Text(fold.title + "\n", style="bold"), Text(fold.text.rstrip("\n")))
