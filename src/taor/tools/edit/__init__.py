"""The text logic of the ``edit_file`` tool: replace ``old_string`` with ``new_string``.

Pure functions over strings; the tool reads and writes the file. The exact pass runs first (line
endings aside: ``old``/``new`` written with LF match a CRLF file, which stays CRLF). Only when it
finds nothing do the fuzzy passes run, in order, each also ignoring what the ones before ignore:

1. ``trailing_whitespace``: spaces and tabs at line ends;
2. ``indentation``: another common indentation (``new`` is re-indented by the same delta);
3. ``typography``: curly quotes, en/em dashes and non-breaking spaces read as ASCII;
4. ``quotes``: quote marks that old_string left out around its words (``edit.quotes``).

How each of the first passes finds old_string is in ``edit.match``.

A match must be unique unless ``replace_all``. Failures raise ``EditError`` with a message a model
can act on: the lines of the several matches, or the closest region of the file and the
whitespace and punctuation differences noticed there.
"""

from __future__ import annotations

import re

from taor._records import frozen
from taor.errors import ToolError
from taor.tools.edit.hints import TYPOGRAPHY, no_match_message, numbered, unnumbered
from taor.tools.edit.match import PASSES, FuzzyPass, Pass, find_all, pattern_for
from taor.tools.edit.quotes import quoted_edit

_MAX_LISTED_LINES = 20
_CONTEXT_LINES = 3  # around each edit in the snippet
_MAX_SNIPPET_REGIONS = 5
_HOW: dict[FuzzyPass, str] = {
    "trailing_whitespace": "ignoring trailing whitespace",
    "indentation": "ignoring indentation (new_string was re-indented to match the file)",
    "typography": "reading typographic quotes, dashes and non-breaking spaces as ASCII "
    "and ignoring whitespace differences",
    "quotes": "letting in the quote marks old_string left out (new_string got the same ones)",
}


class EditError(ToolError, ValueError):
    """An edit that cannot be applied; the message tells the model what to do instead."""


@frozen
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

    @property
    def plain(self) -> str:
        """The same for a small model: no line numbers it could copy into a later call."""
        places = "1 place" if self.replacements == 1 else f"{self.replacements} places"
        how = f" ({_HOW[self.fuzzy]})" if self.fuzzy else ""
        return (
            f"Changed {places}{how}. That part of the file now reads:\n{unnumbered(self.snippet)}"
        )


def apply_edit(text: str, old: str, new: str, *, replace_all: bool = False) -> EditResult:
    """Replace ``old`` with ``new`` in ``text``; raise ``EditError`` if that cannot be done."""
    _check_request(text, old, new)
    if not old:  # an empty file: the only place an empty old_string can name
        return EditResult(text=new, replacements=1, fuzzy=None, snippet=_snippet(new, [(0, 0)]))
    for match_pass in PASSES if old.strip() else PASSES[:1]:
        haystack = text.translate(TYPOGRAPHY) if match_pass.typography else text
        needle = old.translate(TYPOGRAPHY) if match_pass.typography else old
        pattern, old_indent = pattern_for(needle, match_pass)
        matches = find_all(pattern, haystack)
        if matches:
            _check_unique(text, pattern, haystack, matches, match_pass, replace_all=replace_all)
            return _replace(text, matches, new, old_indent, match_pass)
    quoted = quoted_edit(text, old, new)
    if quoted is None:
        raise EditError(no_match_message(text, old))
    edited = text[: quoted.start] + quoted.replacement + text[quoted.end :]
    span = (quoted.start, quoted.start + len(quoted.replacement))
    return EditResult(text=edited, replacements=1, fuzzy="quotes", snippet=_snippet(edited, [span]))


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


def _check_unique(
    text: str,
    pattern: re.Pattern[str],
    haystack: str,
    matches: list[re.Match[str]],
    match_pass: Pass,
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
    text: str, matches: list[re.Match[str]], new: str, old_indent: str, match_pass: Pass
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
    blocks = [numbered(lines, low, high, width=width) for low, high in shown]
    if len(ranges) > _MAX_SNIPPET_REGIONS:
        blocks.append(f"… and {len(ranges) - _MAX_SNIPPET_REGIONS} more edited regions")
    return "\n…\n".join(blocks)


__all__ = ["EditError", "EditResult", "apply_edit"]
