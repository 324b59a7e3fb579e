"""Why an ``edit_file`` old_string matched nothing: the closest region of the file, with line
numbers, and the whitespace and punctuation differences noticed there."""

from __future__ import annotations

import difflib
import heapq
import itertools
import re

_CANDIDATE_WINDOWS = 20  # regions scored with difflib after the cheap word-overlap prefilter
_MIN_SIMILARITY = 0.5
_MAX_SHOWN_LINES = 40
_TYPOGRAPHIC = "‘’‚‛′“”„‟″‐‑‒–—―−\u00a0\u2007\u2009\u202f"
TYPOGRAPHY = str.maketrans(_TYPOGRAPHIC, "'''''\"\"\"\"\"-------    ")
_WORD = re.compile(r"\w+")
_LINE_NUMBER_PREFIX = re.compile(r"^\s*\d+\s*[|→\t]")
_SNIPPET_NUMBER = re.compile(r"(?m)^ *\d+ \| ?")  # what ``numbered`` puts before each line


def carries_line_numbers(text: str) -> bool:
    """Whether every written line of ``text`` starts with a line number, as copied from
    read_file's or edit_file's output."""
    written = [line for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    return bool(written) and all(_LINE_NUMBER_PREFIX.match(line) for line in written)


def unnumbered(snippet: str) -> str:
    """A ``numbered`` snippet without its line numbers."""
    return _SNIPPET_NUMBER.sub("", snippet)


def numbered(lines: list[str], low: int, high: int, *, width: int = 0) -> str:
    """Lines ``low`` to ``high`` (0-based, inclusive) as ``NNN | text``: head and tail if long."""
    width = width or len(str(high + 1))
    indices = list(range(low, high + 1))
    if len(indices) > _MAX_SHOWN_LINES:
        half = _MAX_SHOWN_LINES // 2
        indices = [*indices[:half], -1, *indices[-half:]]
    return "\n".join(
        f"{index + 1:>{width}} | {lines[index].removesuffix(chr(13))}" if index >= 0 else "…"
        for index in indices
    )


def no_match_message(text: str, old: str) -> str:
    head = (
        "old_string was not found in the file, not even when ignoring whitespace differences "
        "and reading typographic quotes and dashes as ASCII."
    )
    advice = "Copy old_string exactly from the file (re-read it with read_file if unsure)."
    target = old.replace("\r\n", "\n").strip("\n").split("\n")
    if carries_line_numbers(old):
        return f"{head} Its lines seem to start with line numbers from read_file's output; leave those out. {advice}"
    lines = text.replace("\r\n", "\n").split("\n")
    start = _closest_region(lines, target)
    if start is None and len(lines) <= _MAX_SHOWN_LINES:  # a small file: show it all
        whole = numbered(lines, 0, len(lines) - 1)
        return (
            f"{head} No part of the file resembles it. The whole file (line numbers are not "
            f"part of it):\n{whole}\nCopy old_string exactly from these lines."
        )
    if start is None:
        return (
            f"{head} No part of the file resembles it: check that this is the right file. {advice}"
        )
    end = min(start + len(target), len(lines))
    shown = numbered(lines, start, end - 1)
    notes = _differences(lines[start:end], target)
    return f"{head}\nThe most similar part of the file, lines {start + 1}-{end}:\n{shown}\n{notes}{advice}"


def _closest_region(lines: list[str], target: list[str]) -> int | None:
    """The first line of the window most like ``target``, if any is similar enough."""
    height = min(len(target), len(lines))
    words = set(_WORD.findall("\n".join(target)))
    totals = [0, *itertools.accumulate(len(words.intersection(_WORD.findall(x))) for x in lines)]
    starts = heapq.nlargest(
        max(3, _CANDIDATE_WINDOWS * 10 // max(10, height)),  # fewer when each costs more
        range(len(lines) - height + 1),
        key=lambda start: totals[start + height] - totals[start],
    )
    scores = {start: _similarity(lines[start : start + height], target) for start in starts}
    best = max(starts, key=lambda start: (scores[start], -start))
    return best if scores[best] >= _MIN_SIMILARITY else None


def _similarity(window: list[str], target: list[str]) -> float:
    """How much of ``target`` (whitespace and typography aside) appears in ``window``, 0 to 1."""
    matched = total = 0
    for found, wanted in zip(map(_loose, window), map(_loose, target), strict=False):
        blocks = difflib.SequenceMatcher(None, found, wanted, autojunk=False).get_matching_blocks()
        matched += sum(block.size for block in blocks if block.size >= min(3, len(wanted)))
    total = sum(len(_loose(line)) for line in target)
    return matched / total if total else 0.0


def _differences(region: list[str], target: list[str]) -> str:
    """The whitespace and punctuation differences between a region of the file and old_string."""
    notes = []
    in_file, in_old = _typographic(region), _typographic(target)
    if in_file != in_old:
        notes.append(
            f"the file has {in_file or 'plain ASCII'} here, old_string has {in_old or 'plain ASCII'}"
        )
    file_tabs, old_tabs = _tab_indented(region), _tab_indented(target)
    if file_tabs != old_tabs:
        notes.append(
            f"the file indents with {'tabs' if file_tabs else 'spaces'}, old_string with {'tabs' if old_tabs else 'spaces'}"
        )
    elif _indents(region) != _indents(target):
        notes.append("the indentation differs")
    if [x.rstrip(" \t") != x for x in region] != [x.rstrip(" \t") != x for x in target]:
        notes.append("trailing whitespace differs")
    if not notes:
        return ""
    same = list(map(_loose, region)) == list(map(_loose, target))
    rest = "apart from that the lines are the same" if same else "the text itself differs too"
    return f"Differences noticed: {'; '.join(notes)}; {rest}.\n"


def _typographic(lines: list[str]) -> str:
    found = sorted({char for line in lines for char in line if char in _TYPOGRAPHIC})
    return " ".join(f"U+{ord(char):04X}" if char.isspace() else char for char in found)


def _tab_indented(lines: list[str]) -> bool:
    return any("\t" in indent for indent in _indents(lines))


def _indents(lines: list[str]) -> list[str]:
    return [line[: len(line) - len(line.lstrip(" \t"))] for line in lines if line.strip()]


def _loose(line: str) -> str:
    return " ".join(line.translate(TYPOGRAPHY).split())
