"""The last fuzzy pass of ``edit_file``: quote marks that old_string left out.

Asked to change ``"port": 8000`` in a JSON file, a small model often writes old_string as
``port: 8000`` and new_string as ``port: 9000``: quotes inside a JSON string argument need
escaping, and it leaves them out. When old_string has no quote marks and matches exactly one
place once marks around its words are let in, the same marks go back into new_string around
the text it kept from old_string, so the file stays valid (``"port": 9000``).
"""

from __future__ import annotations

import difflib
import re

from taor._records import frozen

_MARKS = "\"'`"
_MARK = "([\"'`]?)"
_WORD = re.compile(r"\w+")


@frozen
class QuotedEdit:
    """Replace ``text[start:end]`` with ``replacement``."""

    start: int
    end: int
    replacement: str


def quoted_edit(text: str, old: str, new: str) -> QuotedEdit | None:
    """The edit, when ``old`` matches one place of ``text`` with quote marks let in around its
    words and each mark has one place in ``new``; None otherwise."""
    if not old.strip() or any(mark in old for mark in _MARKS):
        return None
    words = [(m.start(), m.end()) for m in _WORD.finditer(old)]
    pieces, position = [r"(?<!\w)" if old[0].isalnum() or old[0] == "_" else ""], 0
    for start, end in words:
        pieces += [re.escape(old[position:start]), _MARK, re.escape(old[start:end]), _MARK]
        position = end
    pieces += [re.escape(old[position:]), r"(?!\w)" if old[-1].isalnum() or old[-1] == "_" else ""]
    matches = list(re.finditer("".join(pieces), text))
    if len(matches) != 1:
        return None
    (match,) = matches
    marks = []  # (position in old, mark, opens)
    for index, (start, end) in enumerate(words):
        before, after = match.group(2 * index + 1), match.group(2 * index + 2)
        marks += [(start, before, True)] if before else []
        marks += [(end, after, False)] if after else []
    replacement = _put_back(old, new, marks) if marks else None
    if replacement is None:
        return None
    return QuotedEdit(start=match.start(), end=match.end(), replacement=replacement)


def _put_back(old: str, new: str, marks: list[tuple[int, str, bool]]) -> str | None:
    """``new`` with each mark at the place its position in ``old`` has in ``new``: an opening
    mark before any text ``new`` inserted there, a closing one after it."""
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    placed = []
    for position, mark, opens in marks:
        spots = []
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal" and i1 <= position <= i2:
                spots.append(j1 + position - i1)
            elif position in (i1, i2):
                spots += [j1] if position == i1 else []
                spots += [j2] if position == i2 else []
            elif i1 < position < i2:
                return None  # inside text new_string changed: no telling where it goes
        placed.append((min(spots) if opens else max(spots), mark))
    for spot, mark in sorted(placed, key=lambda item: item[0], reverse=True):
        new = new[:spot] + mark + new[spot:]
    return new
