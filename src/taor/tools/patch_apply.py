"""Locate the hunks of an Update File section in a file's text and rewrite it (pure, no I/O).

Each hunk is sought from where the previous one ended, after its `@@` hints, in four passes
(as codex does): exact; trailing whitespace ignored; both ends trimmed; typographic
punctuation normalized. Context lines keep the file's own text, so a fuzzy match never
rewrites a line the patch did not change.

Line endings are kept line by line: every line the patch does not add keeps its own ending (LF
or CRLF, so a file with mixed endings stays mixed), and an added line takes the file's
preferred ending (the more common one; on a tie, the first in the file; LF in a file without
one). As in codex, an updated file always ends with a line ending: a last line that had none
gets the preferred one. A byte-order mark is kept.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from taor.tools.patch_model import Hunk, Op, PatchError

_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
        "\u2026": "...",
    }
)


def normalize_punctuation(line: str) -> str:
    """Trim `line` and map curly quotes, dashes, odd spaces and the ellipsis to ASCII."""
    return line.strip().translate(_PUNCTUATION)


PASSES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("exact", str),
    ("ignoring trailing whitespace", str.rstrip),
    ("ignoring leading and trailing whitespace", str.strip),
    ("after normalizing typographic punctuation", normalize_punctuation),
)
_Line = tuple[str, str | None]  # a line's text and its ending (None: the file's preferred one)
_CLOSEST_BUDGET = 2_000_000  # line comparisons spent looking for the closest region
_SIMILAR_BUDGET = 20_000  # the same, when no line is equal and similarity is scored


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
    pieces = text[len(bom) :].split("\n")
    last = pieces.pop()  # the text after the final newline: a last line without an ending
    lines = [piece.removesuffix("\r") for piece in pieces]
    endings = ["\r\n" if piece.endswith("\r") else "\n" for piece in pieces]
    if last:
        lines.append(last)
        endings.append("")
    return _Doc(lines=lines, endings=endings, eol=_preferred(endings), bom=bom)


def _preferred(endings: list[str]) -> str:
    """The more common of CRLF and LF; on a tie the first one used; LF when there is none."""
    crlf, lf = endings.count("\r\n"), endings.count("\n")
    if crlf != lf:
        return "\r\n" if crlf > lf else "\n"
    return next((ending for ending in endings if ending), "\n")


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
        raise PatchApplyError(_mismatch(lines, hunk, start, label))
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


def _mismatch(lines: list[str], hunk: Hunk, start: int, label: str) -> str:
    where = "at the end of the file" if hunk.end_of_file else f"after line {start}" if start else ""
    expected = "\n".join(f"  |{line}" for line in hunk.old_lines)
    message = f"{label}: these lines were not found {where}".rstrip() + f":\n{expected}"
    closest = _closest_region(lines, hunk.old_lines)
    if closest is None:
        return message + "\nNo similar region was found in the file."
    shown = "\n".join(f"  {n + 1:>5}|{lines[n]}" for n in closest)
    return f"{message}\nThe closest region of the file (its current text):\n{shown}"


def _closest_region(lines: Sequence[str], pattern: Sequence[str]) -> range | None:
    """The window most like the pattern: most equal lines (trimmed), else most similar ones."""
    have = [normalize_punctuation(line) for line in lines]
    want = [normalize_punctuation(line) for line in pattern]
    cost = len(have) * len(want)
    if cost <= _CLOSEST_BUDGET and (found := _best_window(have, want, _equal)):
        return found
    return _best_window(have, want, _similar) if cost <= _SIMILAR_BUDGET else None


def _equal(a: str, b: str) -> float:
    return 1.0 if a == b and b else 0.0


def _similar(a: str, b: str) -> float:
    if not (a and b):
        return 0.0
    ratio = difflib.SequenceMatcher(None, a, b).quick_ratio()
    return ratio if ratio >= 0.75 else 0.0


def _best_window(
    have: list[str], want: list[str], score: Callable[[str, str], float]
) -> range | None:
    size = min(len(want), len(have))
    best, best_score = 0, 0.0
    for i in range(len(have) - size + 1):
        total = sum(score(have[i + k], want[k]) for k in range(size))
        if total > best_score:
            best, best_score = i, total
    return range(best, best + min(size, 20)) if best_score else None
