"""Output truncation: the model gets a bounded text with a marker that says what was cut.

Characters are cut first, then lines, so a two-line CSV with 10 MB lines is bounded too. Both passes only compute where to cut, ``head_end`` and ``tail_start``; the text is
assembled once at the end with one marker. So the character marker cannot be cut
away by the line pass, and its counts cover everything removed by either pass.

- The marker is the spec's ``[WARNING: ...]`` when the character pass cut anything (it adds
  ", including N whole lines," when whole lines went too), else ``[... N lines omitted ...]``.
- ``head_tail`` keeps the start and the end; ``tail`` keeps the end. The mode applies to both
  passes (the spec's line pass keeps head and tail whatever the mode).
- Lines end at ``"\\n"``, so ``"\\r\\n"`` counts once and a lone ``"\\r"`` (progress bars) does not
  end a line; a final newline does not start another line. Kept text is sliced verbatim, never
  split and re-joined, so CRLF output keeps its CRLF; the line marker takes the line ending of
  the line before it.
- ``omitted_lines`` counts the lines of which nothing is shown (a line cut in the middle by the
  character pass is partly shown, so a 10 MB single line has no omitted lines).
- Limits count characters (not bytes or tokens); a marker adds up to about 300 characters.

The host gets the full output separately; ``Truncated`` carries the counts
for it. Text that fits is returned as the same object, not copied.
"""

from __future__ import annotations

from typing import Literal

from taor._records import frozen
from taor.errors import ConfigurationError

Mode = Literal["head_tail", "tail"]

_HEAD_TAIL_WARNING = (
    "[WARNING: Tool output was truncated. {removed} were removed from the middle. The full "
    "output is available in the event stream. If you need to see specific parts, re-run the "
    "tool with more targeted parameters.]"
)
_TAIL_WARNING = (
    "[WARNING: Tool output was truncated. First {removed} were removed. The full output is "
    "available in the event stream.]"
)
_LINES_OMITTED = "[... {omitted} lines omitted ...]"


@frozen
class Limits:
    """How much of a tool's output the model sees: ``chars`` first, then ``lines`` if set."""

    chars: int
    lines: int | None = None
    mode: Mode = "head_tail"

    def __post_init__(self) -> None:
        if self.chars < 1:
            raise ConfigurationError(f"Limits.chars must be at least 1, got {self.chars}")
        if self.lines is not None and self.lines < 1:
            raise ConfigurationError(f"Limits.lines must be at least 1 or None, got {self.lines}")
        if self.mode not in ("head_tail", "tail"):
            raise ConfigurationError(
                f"Limits.mode must be 'head_tail' or 'tail', got {self.mode!r}"
            )


@frozen
class Truncated:
    """The text for the model, and what was cut from the original (for the host)."""

    text: str
    omitted_chars: int = 0
    omitted_lines: int = 0

    @property
    def truncated(self) -> bool:
        return self.omitted_chars > 0


FALLBACK_LIMITS = Limits(chars=20_000)
"""For a tool that declares no ``output_limits`` (read_many_files, list_dir, wait, custom tools).
Each built-in tool declares its own (``taor.tools.effects``)."""


def truncate(text: str, limits: Limits) -> Truncated:
    """Cut ``text`` to ``limits``; text that fits comes back unchanged (the same object)."""
    char_cut = _char_cut(len(text), limits)
    cut = _line_cut(text, char_cut, limits) or char_cut
    if cut is None:
        return Truncated(text=text)
    head_end, tail_start = cut
    head, omitted_lines = text[:head_end], _lines_inside(text, head_end, tail_start)
    if char_cut is not None:
        marker = _warning(limits.mode, tail_start - head_end, omitted_lines, head)
    else:
        marker = _lines_marker(text, tail_start, omitted_lines)
    return Truncated(
        text=head + marker + text[tail_start:],
        omitted_chars=tail_start - head_end,
        omitted_lines=omitted_lines,
    )


def _char_cut(size: int, limits: Limits) -> tuple[int, int] | None:
    if size <= limits.chars:
        return None
    head = limits.chars // 2 if limits.mode == "head_tail" else 0
    return head, size - (limits.chars - head)


def _line_cut(
    text: str, char_cut: tuple[int, int] | None, limits: Limits
) -> tuple[int, int] | None:
    if limits.lines is None:
        return None
    if char_cut is None:
        return _line_cut_whole(text, limits.lines, limits.mode)
    return _line_cut_within(text, char_cut, limits.lines, limits.mode)


def _line_cut_whole(text: str, max_lines: int, mode: Mode) -> tuple[int, int] | None:
    """Where to cut ``text`` (not cut by characters) so that at most ``max_lines`` remain."""
    size = len(text)
    if _count_lines(text, 0, size) <= max_lines:
        return None
    keep_head = max_lines // 2 if mode == "head_tail" else 0
    head_end = _after_newlines(text, 0, size, keep_head)
    return head_end, _start_of_last_lines(text, 0, size, max_lines - keep_head)


def _line_cut_within(
    text: str, cut: tuple[int, int], max_lines: int, mode: Mode
) -> tuple[int, int] | None:
    """Where to cut further so that the head and tail kept by the character pass fit."""
    head_end, tail_start = cut
    size = len(text)
    head_lines = _count_lines(text, 0, head_end)
    tail_lines = _count_lines(text, tail_start, size)
    if head_lines + tail_lines <= max_lines:
        return None
    keep_head = min(head_lines, max_lines // 2) if mode == "head_tail" else 0
    keep_tail = min(tail_lines, max_lines - keep_head)
    if mode == "head_tail":
        keep_head = min(head_lines, max_lines - keep_tail)  # the tail's unused share
    return (
        _after_newlines(text, 0, head_end, keep_head),
        _start_of_last_lines(text, tail_start, size, keep_tail),
    )


def _count_lines(text: str, start: int, end: int) -> int:
    """Lines in ``text[start:end]``; a last line without its newline counts."""
    if end <= start:
        return 0
    return text.count("\n", start, end) + int(text[end - 1] != "\n")


def _after_newlines(text: str, start: int, end: int, count: int) -> int:
    """The position just after the ``count``-th newline of ``text[start:end]``, else ``end``."""
    position = start
    for _ in range(count):
        newline = text.find("\n", position, end)
        if newline < 0:
            return end
        position = newline + 1
    return position


def _start_of_last_lines(text: str, start: int, end: int, count: int) -> int:
    """Where the last ``count`` lines of ``text[start:end]`` begin (``end`` for none)."""
    if count == 0:
        return end
    position = end - 1 if end > start and text[end - 1] == "\n" else end
    for _ in range(count):
        newline = text.rfind("\n", start, position)
        if newline < 0:
            return start
        position = newline
    return position + 1


def _lines_inside(text: str, start: int, end: int) -> int:
    """Lines lying wholly inside ``text[start:end]``, which ends before the text does."""
    if start == 0:
        return text.count("\n", 0, end)
    return max(0, text.count("\n", start - 1, end) - 1)


def _warning(mode: Mode, chars: int, lines: int, head: str) -> str:
    removed = _plural(chars, "character")
    if lines:
        removed += f", including {_plural(lines, 'whole line')},"
    if mode == "tail":
        return _TAIL_WARNING.format(removed=removed) + "\n\n"
    prefix = "" if not head else "\n" if head.endswith("\n") else "\n\n"  # one blank line
    return prefix + _HEAD_TAIL_WARNING.format(removed=removed) + "\n\n"


def _lines_marker(text: str, tail_start: int, omitted: int) -> str:
    line_end = "\r\n" if tail_start >= 2 and text.startswith("\r\n", tail_start - 2) else "\n"
    return _LINES_OMITTED.format(omitted=omitted) + line_end


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
