"""Parse apply_patch text (the v4a format of OpenAI codex) into file sections.

Grammar (lenient where codex is: padded markers, a heredoc wrapper, a first hunk without
`@@`, blank lines between sections and hunks, CRLF patch text)::

    *** Begin Patch
    *** Add File: <path>            then lines "+text"
    *** Delete File: <path>
    *** Update File: <path>
    [*** Move to: <new path>]
    @@ [hint]                       one or more; each hint narrows the search
    " context" / "-removed" / "+added" lines
    [*** End of File]               the hunk must match at the end of the file
    *** End Patch

Errors name the patch line (1-based, counted in the text as given).
"""

from __future__ import annotations

import re
from typing import cast

from taor.tools.patch.model import (
    AddFile,
    DeleteFile,
    Hunk,
    Op,
    PatchParseError,
    Section,
    UpdateFile,
)

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"

_HEREDOC = re.compile(r"""(?:apply_patch\s+)?<<-?\s*(['"]?)(\w+)\1""")
_UNIFIED_RANGE = re.compile(r"-\d+(?:,\d+)? \+\d+(?:,\d+)? @@\s*(.*)")


class _Cursor:
    """The numbered lines between the Begin and End markers, read front to back."""

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self._lines = lines
        self._at = 0

    def done(self) -> bool:
        return self._at >= len(self._lines)

    def peek(self, ahead: int = 0) -> tuple[int, str] | None:
        at = self._at + ahead
        return self._lines[at] if at < len(self._lines) else None

    def advance(self) -> tuple[int, str]:
        item = self._lines[self._at]
        self._at += 1
        return item


def parse_patch(text: str) -> tuple[Section, ...]:
    """Parse `text` into its sections, in order; raise PatchParseError on bad grammar."""
    cursor = _Cursor(_patch_body(text))
    sections: list[Section] = []
    while not cursor.done():
        _, line = cursor.peek() or (0, "")
        if not line.strip():
            cursor.advance()
            continue
        sections.append(_parse_section(cursor))
    if not sections:
        raise PatchParseError("the patch contains no file operations (Add, Delete or Update)")
    return tuple(sections)


def _patch_body(text: str) -> list[tuple[int, str]]:
    lines = _strip_blank_ends(
        [(n, s.removesuffix("\r")) for n, s in enumerate(text.split("\n"), 1)]
    )
    if not lines:
        raise PatchParseError(f"the patch is empty; it must start with '{BEGIN}'")
    lines = _unwrap_heredoc(lines)
    first_no, first = lines[0]
    if first.strip() != BEGIN:
        raise PatchParseError(f"the first line of the patch must be '{BEGIN}'", line=first_no)
    last_no, last = lines[-1]
    if len(lines) < 2 or last.strip() != END:
        raise PatchParseError(f"the last line of the patch must be '{END}'", line=last_no)
    return lines[1:-1]


def _strip_blank_ends(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    start, stop = 0, len(lines)
    while start < stop and not lines[start][1].strip():
        start += 1
    while stop > start and not lines[stop - 1][1].strip():
        stop -= 1
    return lines[start:stop]


def _unwrap_heredoc(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Accept `<<'EOF'` ... `EOF` around the patch, as a shell heredoc would pass it."""
    match = _HEREDOC.fullmatch(lines[0][1].strip())
    if match and len(lines) >= 4 and lines[-1][1].strip() == match.group(2):
        return _strip_blank_ends(lines[1:-1])
    return lines


def _parse_section(cursor: _Cursor) -> Section:
    number, raw = cursor.advance()
    head = raw.strip()
    if head.startswith(ADD):
        return AddFile(path=_path(head, ADD, number), content=_add_content(cursor), line=number)
    if head.startswith(DELETE):
        return DeleteFile(path=_path(head, DELETE, number), line=number)
    if head.startswith(UPDATE):
        return _parse_update(cursor, _path(head, UPDATE, number), number)
    raise PatchParseError(
        f"'{head}' is not a valid section header; expected '{ADD} <path>', "
        f"'{DELETE} <path>' or '{UPDATE} <path>'",
        line=number,
    )


def _path(head: str, marker: str, number: int) -> str:
    path = head[len(marker) :].strip()
    if not path:
        raise PatchParseError(f"'{marker}' needs a path", line=number)
    return path


def _add_content(cursor: _Cursor) -> str:
    """The `+` lines of an Add File section; blank lines between `+` lines count as empty."""
    lines: list[str] = []
    pending_blank = 0
    while (item := cursor.peek(pending_blank)) is not None:
        _, text = item
        if not text.strip():
            pending_blank += 1
            continue
        if not text.startswith("+"):
            break
        for _ in range(pending_blank + 1):
            cursor.advance()
        lines.extend([""] * pending_blank + [text[1:]])
        pending_blank = 0
    return "".join(line + "\n" for line in lines)


def _parse_update(cursor: _Cursor, path: str, number: int) -> UpdateFile:
    move_to = None
    item = cursor.peek()
    if item is not None and item[1].strip().startswith(MOVE):
        move_number, text = cursor.advance()
        move_to = _path(text.strip(), MOVE, move_number)
    hunks: list[Hunk] = []
    while (item := cursor.peek()) is not None:
        item_number, text = item
        if not text.strip():
            cursor.advance()
        elif text.strip() == END_OF_FILE:
            raise PatchParseError(
                f"'{END_OF_FILE}' must follow the lines of a hunk", line=item_number
            )
        elif text.lstrip().startswith("***"):
            break
        else:
            hunks.append(_parse_hunk(cursor, first=not hunks))
    if not hunks and move_to is None:
        raise PatchParseError(f"'{UPDATE} {path}' has no hunks", line=number)
    return UpdateFile(path=path, move_to=move_to, hunks=tuple(hunks), line=number)


def _parse_hunk(cursor: _Cursor, *, first: bool) -> Hunk:
    start, text = cursor.peek() or (0, "")
    hints: list[str] = []
    saw_header = False
    while (item := cursor.peek()) is not None and item[1].strip().startswith("@@"):
        saw_header = True
        if hint := _hint(cursor.advance()[1]):
            hints.append(hint)
    if not (saw_header or first):
        raise PatchParseError(
            f"expected a '@@' line to start the next hunk, got '{text}'", line=start
        )
    body, end_of_file = _hunk_body(cursor)
    if not body:
        raise PatchParseError("the hunk has no lines", line=start)
    return Hunk(hints=tuple(hints), body=body, end_of_file=end_of_file, line=start)


def _hint(header: str) -> str | None:
    rest = header.strip()[2:].strip()
    if match := _UNIFIED_RANGE.fullmatch(rest):  # "@@ -12,4 +12,5 @@ def f():" from a unified diff
        rest = match.group(1).strip()
    return rest or None


def _hunk_body(cursor: _Cursor) -> tuple[tuple[tuple[Op, str], ...], bool]:
    body: list[tuple[Op, str]] = []
    bare_blanks = 0  # unprefixed empty lines at the end so far: context, or a separator
    while (item := cursor.peek()) is not None:
        number, text = item
        if text.rstrip() == END_OF_FILE:
            if not body:
                raise PatchParseError(f"the hunk has no lines before '{END_OF_FILE}'", line=number)
            cursor.advance()
            return tuple(body), True
        if text and text[0] not in " -+":
            if not body:
                raise PatchParseError(
                    f"unexpected line '{text}'; every hunk line starts with ' ' (context), "
                    "'-' (removed) or '+' (added)",
                    line=number,
                )
            break
        bare_blanks = bare_blanks + 1 if text == "" else 0
        body.append((cast(Op, text[0]), text[1:]) if text else (" ", ""))
        cursor.advance()
    return tuple(body[: len(body) - bare_blanks]), False
