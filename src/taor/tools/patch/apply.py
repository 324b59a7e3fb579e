"""Locate the hunks of an Update File section in a file's text and rewrite it (pure, no I/O).

Each hunk is sought from where the previous one ended, after its `@@` hints, in four passes
(as codex does): exact; trailing whitespace ignored; both ends trimmed; typographic
punctuation normalized. Context lines keep the file's own text, so a fuzzy match never
rewrites a line the patch did not change.

Line endings are kept line by line: LF, CRLF and a lone CR each end a line, so a hunk matches
whatever mix a file has; every line the patch does not add keeps its own ending (a file with
mixed endings stays mixed), and an added line takes the file's preferred ending (the most
common one; on a tie, the first in the file; LF in a file without one). As in codex, an updated file always ends with a line ending: a last line that had none
gets the preferred one. A byte-order mark is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from taor.tools.patch.hints import mismatch_message, normalize_punctuation
from taor.tools.patch.model import Hunk, Op, PatchError

PASSES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("exact", str),
    ("ignoring trailing whitespace", str.rstrip),
    ("ignoring leading and trailing whitespace", str.strip),
    ("after normalizing typographic punctuation", normalize_punctuation),
)
_LINE_END = re.compile(r"(\r\n|\n|\r)")
_Line = tuple[str, str | None]  # a line's text and its ending (None: the file's preferred one)


class PatchApplyError(PatchError):
    """The patch does not fit the files it names; nothing was applied."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{message}\nThe patch was not applied; no file was changed.")


@dataclass(frozen=True, kw_only=True)
class Match:
    index: int
    pass_name: str


@dataclass(frozen=True, kw_only=True)
class Updated:
    """The new text of an updated file, and notes on hunks that needed a fuzzy pass."""

    text: str
    notes: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class _Doc:
    """A file's lines without their endings, and each line's ending ("" for a last line without)."""

    lines: list[str]
    endings: list[str]
    eol: str  # the preferred ending, given to added lines
    bom: str


@dataclass(frozen=True, kw_only=True)
class _Replacement:
    index: int
    old_len: int
    new: list[_Line]
    pass_name: str


def seek(lines: Sequence[str], pattern: Sequence[str], start: int, *, at_end: bool) -> Match | None:
    """Find `pattern` in `lines` at or after `start` (only at the very end if `at_end`)."""
    if not pattern:
        return Match(index=start, pass_name="exact")
    last = len(lines) - len(pattern)
    if last < start:
        return None
    first = last if at_end else start
    for name, normal in PASSES:
        have = [normal(line) for line in lines]
        want = [normal(line) for line in pattern]
        for i in range(first, last + 1):
            if have[i] == want[0] and have[i : i + len(want)] == want:
                return Match(index=i, pass_name=name)
    return None


def update_text(text: str, hunks: Sequence[Hunk], *, path: str) -> Updated:
    """Apply `hunks` to `text` in order; raise PatchApplyError naming the hunk that fails."""
    doc = _split(text)
    replacements: list[_Replacement] = []
    cursor = 0
    for number, hunk in enumerate(hunks, 1):
        label = f"{path}, hunk {number} of {len(hunks)} (patch line {hunk.line})"
        start = _seek_hints(doc.lines, hunk, cursor, label)
        replacement = _place(doc, hunk, start, label)
        replacements.append(replacement)
        if replacement.old_len or hunk.hints:  # an append at the end leaves the cursor
            cursor = max(cursor, replacement.index + replacement.old_len)
    notes = tuple(
        f"{path}: hunk {number} matched {r.pass_name}"
        for number, r in enumerate(replacements, 1)
        if r.pass_name != "exact"
    )
    return Updated(text=_join(doc, _replace(doc, replacements)), notes=notes)


def _split(text: str) -> _Doc:
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    pieces = _LINE_END.split(text[len(bom) :])  # text, ending, text, ending, ..., text
    last = pieces.pop()  # the text after the final ending: a last line without one
    lines, endings = pieces[0::2], pieces[1::2]
    if last:
        lines.append(last)
        endings.append("")
    return _Doc(lines=lines, endings=endings, eol=_preferred(endings), bom=bom)


def _preferred(endings: list[str]) -> str:
    """The most common of LF, CRLF and CR; on a tie the first one used; LF when there is none."""
    counts = {ending: endings.count(ending) for ending in endings if ending}
    if not counts:
        return "\n"
    most = max(counts.values())
    return next(ending for ending in counts if counts[ending] == most)  # dicts keep file order


def _join(doc: _Doc, lines: list[_Line]) -> str:
    if not lines:
        return ""
    return doc.bom + "".join(text + (ending or doc.eol) for text, ending in lines)


def _seek_hints(lines: list[str], hunk: Hunk, start: int, label: str) -> int:
    for hint in hunk.hints:
        match = seek(lines, [hint], start, at_end=False)
        if match is None:
            after = f" after line {start}" if start else ""
            raise PatchApplyError(f"{label}: the context line '@@ {hint}' was not found{after}.")
        start = match.index + 1
    return start


def _place(doc: _Doc, hunk: Hunk, start: int, label: str) -> _Replacement:
    lines = doc.lines
    body = list(hunk.body)
    old = [text for op, text in body if op != "+"]
    if not old:  # pure addition: after the hints, else at the end of the file
        index = start if hunk.hints and not hunk.end_of_file else len(lines)
        added: list[_Line] = [(text, None) for text in hunk.new_lines]
        return _Replacement(index=index, old_len=0, new=added, pass_name="exact")
    match = seek(lines, old, start, at_end=hunk.end_of_file)
    if match is None and old[-1] == "":  # a trailing blank line that stood for the final newline
        body = _drop_last_old(body)
        old = old[:-1]
        match = seek(lines, old, start, at_end=hunk.end_of_file)
    if match is None:
        raise PatchApplyError(mismatch_message(lines, hunk, start, label))
    return _Replacement(
        index=match.index,
        old_len=len(old),
        new=_new_lines(body, doc, match.index),
        pass_name=match.pass_name,
    )


def _drop_last_old(body: list[tuple[Op, str]]) -> list[tuple[Op, str]]:
    last = max(i for i, (op, _) in enumerate(body) if op != "+")
    return body[:last] + body[last + 1 :]


def _new_lines(body: list[tuple[Op, str]], doc: _Doc, index: int) -> list[_Line]:
    """The hunk's new lines: each context line as the file has it (text and ending), each
    added line with the preferred ending."""
    new: list[_Line] = []
    offset = 0
    for op, text in body:
        if op == "+":
            new.append((text, None))
            continue
        if op == " ":
            at = index + offset
            new.append((doc.lines[at], doc.endings[at]))
        offset += 1
    return new


def _replace(doc: _Doc, replacements: list[_Replacement]) -> list[_Line]:
    lines: list[_Line] = list(zip(doc.lines, doc.endings, strict=True))
    out: list[_Line] = []
    at = 0
    for r in sorted(replacements, key=lambda r: r.index):
        out.extend(lines[at : r.index])
        out.extend(r.new)
        at = max(at, r.index + r.old_len)
    out.extend(lines[at:])
    return out
