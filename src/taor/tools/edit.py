"""The text logic of the ``edit_file`` tool: replace ``old_string`` with ``new_string``.

Pure functions over strings; the tool reads and writes the file. The exact pass runs first (line
endings aside: ``old``/``new`` written with LF match a CRLF file, which stays CRLF). Only when it
finds nothing do the fuzzy passes run, in order, each also ignoring what the ones before ignore:

1. ``trailing_whitespace``: spaces and tabs at line ends;
2. ``indentation``: another common indentation (``new`` is re-indented by the same delta);
3. ``typography``: curly quotes, en/em dashes and non-breaking spaces read as ASCII.

A match must be unique unless ``replace_all``. Failures raise ``EditError`` with a message a model
can act on: the lines of the several matches, or the closest region of the file and the
whitespace and punctuation differences noticed there.
"""

from __future__ import annotations

import difflib
import heapq
import itertools
import re
from dataclasses import dataclass
from typing import Literal

FuzzyPass = Literal["trailing_whitespace", "indentation", "typography"]

_MAX_LISTED_LINES = 20
_CONTEXT_LINES = 3  # around each edit in the snippet
_MAX_SNIPPET_REGIONS = 5
_CANDIDATE_WINDOWS = 20  # regions scored with difflib after the cheap word-overlap prefilter
_MIN_SIMILARITY = 0.5
_MAX_SHOWN_LINES = 40
_TYPOGRAPHIC = "‘’‚‛′“”„‟″‐‑‒–—―−\u00a0\u2007\u2009\u202f"
_TYPOGRAPHY = str.maketrans(_TYPOGRAPHIC, "'''''\"\"\"\"\"-------    ")
_WORD = re.compile(r"\w+")
_LINE_NUMBER_PREFIX = re.compile(r"^\s*\d+\s*[|→\t]")
_HOW: dict[FuzzyPass, str] = {
    "trailing_whitespace": "ignoring trailing whitespace",
    "indentation": "ignoring indentation (new_string was re-indented to match the file)",
    "typography": "reading typographic quotes, dashes and non-breaking spaces as ASCII "
    "and ignoring whitespace differences",
}


class EditError(ValueError):
    """An edit that cannot be applied; the message tells the model what to do instead."""


@dataclass(frozen=True, kw_only=True, slots=True)
class EditResult:
    """The edited text, how many places changed, the fuzzy pass used (None: exact), a snippet."""

    text: str
    replacements: int
    fuzzy: FuzzyPass | None
    snippet: str

    @property
    def summary(self) -> str:
        """What the tool tells the model: the count, the fuzzy pass if any, the edited region."""
        plural = "" if self.replacements == 1 else "s"
        how = f" (matched by {_HOW[self.fuzzy]})" if self.fuzzy else ""
        return f"Replaced {self.replacements} occurrence{plural}{how}.\n{self.snippet}"


@dataclass(frozen=True, kw_only=True, slots=True)
class _Pass:
    fuzzy: FuzzyPass | None
    rstrip: bool = False
    dedent: bool = False
    typography: bool = False


_PASSES = (
    _Pass(fuzzy=None),
    _Pass(fuzzy="trailing_whitespace", rstrip=True),
    _Pass(fuzzy="indentation", rstrip=True, dedent=True),
    _Pass(fuzzy="typography", rstrip=True, dedent=True, typography=True),
)


def apply_edit(text: str, old: str, new: str, *, replace_all: bool = False) -> EditResult:
    """Replace ``old`` with ``new`` in ``text``; raise ``EditError`` if that cannot be done."""
    _check_request(text, old, new)
    if not old:  # an empty file: the only place an empty old_string can name
        return EditResult(text=new, replacements=1, fuzzy=None, snippet=_snippet(new, [(0, 0)]))
    for match_pass in _PASSES if old.strip() else _PASSES[:1]:
        haystack = text.translate(_TYPOGRAPHY) if match_pass.typography else text
        needle = old.translate(_TYPOGRAPHY) if match_pass.typography else old
        pattern, old_indent = _pattern(needle, match_pass)
        matches = _find_all(pattern, haystack)
        if matches:
            _check_unique(text, pattern, haystack, matches, match_pass, replace_all=replace_all)
            return _replace(text, matches, new, old_indent, match_pass)
    raise EditError(_no_match_message(text, old))


def _check_request(text: str, old: str, new: str) -> None:
    if old == new:
        raise EditError(
            "old_string and new_string are identical, so the edit would change nothing. Put the "
            "text to replace in old_string and what should stand there instead in new_string."
        )
    if not old and text:
        raise EditError(
            "old_string is empty, but the file is not. To edit, put the exact text to replace "
            "(with a few lines of context) in old_string; to rewrite the whole file, use write_file."
        )


def _pattern(old: str, match_pass: _Pass) -> tuple[re.Pattern[str], str]:
    """The regex for ``old`` under a pass, and old's common indentation (when dedenting)."""
    lines = old.replace("\r\n", "\n").split("\n")
    indent = _common_indent(lines) if match_pass.dedent else ""
    pieces: list[str] = []
    group = "^(?P<ind>[ \t]*)"  # captures the file's indentation at the first written line
    for line in lines:
        body = line.rstrip(" \t") if match_pass.rstrip else line
        if match_pass.dedent and body.strip():
            pieces.append(group + re.escape(body[len(indent) :]))
            group = "(?P=ind)"
        else:
            pieces.append(re.escape(body))
    eol = r"[ \t]*\r?\n" if match_pass.rstrip else r"\r?\n"
    lookbehind = r"(?<!\r)" if len(lines) > 1 and not lines[0] else ""  # one match per CRLF
    return re.compile(lookbehind + eol.join(pieces), re.MULTILINE), indent


def _common_indent(lines: list[str]) -> str:
    indents = [line[: len(line) - len(line.lstrip(" \t"))] for line in lines if line.strip()]
    if not indents:
        return ""
    low, high = min(indents), max(indents)  # the common prefix of all is theirs
    size = next((i for i, (a, b) in enumerate(zip(low, high, strict=False)) if a != b), len(low))
    return low[:size]


def _find_all(pattern: re.Pattern[str], haystack: str) -> list[re.Match[str]]:
    """Non-overlapping matches, left to right."""
    found: list[re.Match[str]] = []
    position = 0
    while (match := pattern.search(haystack, position)) is not None:
        found.append(match)
        position = max(match.end(), match.start() + 1)
    return found


def _check_unique(
    text: str,
    pattern: re.Pattern[str],
    haystack: str,
    matches: list[re.Match[str]],
    match_pass: _Pass,
    *,
    replace_all: bool,
) -> None:
    if replace_all:
        return
    overlapping = pattern.search(haystack, matches[0].start() + 1) if len(matches) == 1 else None
    starts = [match.start() for match in matches]
    if overlapping is not None:
        starts.append(overlapping.start())
    if len(starts) == 1:
        return
    lines = [str(text.count("\n", 0, start) + 1) for start in starts[:_MAX_LISTED_LINES]]
    more = ", …" if len(starts) > _MAX_LISTED_LINES else ""
    how = f" when {_HOW[match_pass.fuzzy]}" if match_pass.fuzzy else ""
    raise EditError(
        f"old_string matches {len(starts)} places in the file{how} (starting at lines "
        f"{', '.join(lines)}{more}), but it must match exactly one. Add more of the surrounding "
        f"lines to old_string so that it identifies one place, or set replace_all to true to "
        f"change all {len(starts)}."
    )


def _replace(
    text: str, matches: list[re.Match[str]], new: str, old_indent: str, match_pass: _Pass
) -> EditResult:
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    position = length = 0
    mostly_crlf = text.count("\r\n") * 2 > text.count("\n")
    for match in matches:
        replacement = _replacement(text, match, new, old_indent, mostly_crlf=mostly_crlf)
        before = text[position : match.start()]
        pieces += [before, replacement]
        length += len(before)
        spans.append((length, length + len(replacement)))
        length += len(replacement)
        position = match.end()
    pieces.append(text[position:])
    edited = "".join(pieces)
    if edited == text:
        line = text.count("\n", 0, matches[0].start()) + 1
        how = f" (found by {_HOW[match_pass.fuzzy]})" if match_pass.fuzzy else ""
        raise EditError(
            f"The edit changes nothing: the text matched at line {line}{how} already reads as "
            "new_string. If the file already has this change, no edit is needed."
        )
    return EditResult(
        text=edited,
        replacements=len(matches),
        fuzzy=match_pass.fuzzy,
        snippet=_snippet(edited, spans),
    )


def _replacement(
    text: str, match: re.Match[str], new: str, old_indent: str, *, mostly_crlf: bool
) -> str:
    """``new`` with the line endings of the matched region and, when dedenting, its indentation."""
    if "ind" in match.re.groupindex:
        indent = text[match.start("ind") : match.end("ind")]  # the original, not the translation
        new = _reindent(new, old_indent, indent)
    matched = text[match.start() : match.end()]
    crlf = "\r\n" in matched if "\n" in matched else mostly_crlf
    new = new.replace("\r\n", "\n")
    return new.replace("\n", "\r\n") if crlf else new


def _reindent(new: str, old_indent: str, indent: str) -> str:
    lines = new.split("\n")
    return "\n".join(
        indent + line[len(old_indent) :] if line.strip() and line.startswith(old_indent) else line
        for line in lines
    )


def _snippet(text: str, spans: list[tuple[int, int]]) -> str:
    """The edited regions of ``text``, line-numbered, with a few lines of context around each."""
    lines = text.split("\n")
    ranges: list[list[int]] = []
    position = line = 0
    for start, end in spans:  # left to right, so the line count runs on
        line += text.count("\n", position, start)
        last = line + text.count("\n", start, max(start, end - 1))
        position = start
        low, high = max(0, line - _CONTEXT_LINES), min(len(lines) - 1, last + _CONTEXT_LINES)
        if ranges and low <= ranges[-1][1] + 1:
            ranges[-1][1] = high
        else:
            ranges.append([low, high])
    shown = ranges[:_MAX_SNIPPET_REGIONS]
    width = len(str(shown[-1][1] + 1))
    blocks = [_numbered(lines, low, high, width=width) for low, high in shown]
    if len(ranges) > _MAX_SNIPPET_REGIONS:
        blocks.append(f"… and {len(ranges) - _MAX_SNIPPET_REGIONS} more edited regions")
    return "\n…\n".join(blocks)


def _numbered(lines: list[str], low: int, high: int, *, width: int = 0) -> str:
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


def _no_match_message(text: str, old: str) -> str:
    head = (
        "old_string was not found in the file, not even when ignoring whitespace differences "
        "and reading typographic quotes and dashes as ASCII."
    )
    advice = "Copy old_string exactly from the file (re-read it with read_file if unsure)."
    target = old.replace("\r\n", "\n").strip("\n").split("\n")
    written = [line for line in target if line.strip()]
    if written and all(_LINE_NUMBER_PREFIX.match(line) for line in written):
        return f"{head} Its lines seem to start with line numbers from read_file's output; leave those out. {advice}"
    lines = text.replace("\r\n", "\n").split("\n")
    start = _closest_region(lines, target)
    if start is None:
        return (
            f"{head} No part of the file resembles it: check that this is the right file. {advice}"
        )
    end = min(start + len(target), len(lines))
    shown = _numbered(lines, start, end - 1)
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
    return " ".join(line.translate(_TYPOGRAPHY).split())
