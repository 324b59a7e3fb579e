"""Git's wildmatch (``*``, ``?``, ``[...]``, ``**``, ``\\``) compiled to a Python regex.

The regex is what git's ``match_pathname`` matches a path relative to the ignore file's
directory with (``WM_PATHNAME``): ``*``, ``?`` and ``[...]`` never match ``/``; ``**/`` at the
start and ``/**/`` inside match any directories (none too), ``/**`` at the end everything
inside, any other ``**`` is a ``*``; ``\\`` makes the next character literal; ``[...]`` takes
``!`` or ``^`` for negation, ranges and ``[:alpha:]``-style classes, and a malformed one never
matches (git aborts). For a name without ``/`` the same regex gives git's basename match.
Git matches bytes where this matches characters, which differs only for ``?`` and ``[...]``
against non-ASCII names.
"""

from __future__ import annotations

import re

_NEVER = "(?!)"
_WILDCARDS = "*?[\\"
_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\x0b\\x0c",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


def wildmatch_regex(pattern: str) -> re.Pattern[str]:
    """The compiled regex for ``pattern``; use ``fullmatch``."""
    return re.compile(_translate(pattern), re.DOTALL)


def _translate(pattern: str) -> str:
    """The regex for a wildmatch pattern with WM_PATHNAME, as git's match_pathname runs it.

    git compares the literal head (up to the first wildcard) and wildmatches the rest, so a
    ``**`` right after that head counts as at the start of the pattern.
    """
    head = next((i for i, c in enumerate(pattern) if c in _WILDCARDS), len(pattern))
    out, i, n = [], 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            end = i
            while end < n and pattern[end] == "*":
                end += 1
            at_start = i in (0, head) or pattern[i - 1] == "/"
            if end - i < 2 or not at_start:
                out.append("[^/]*")
            elif end == n or pattern.startswith("\\/", end):
                out.append(".*")
            elif pattern[end] == "/":
                out.append("(?:.*/)?")
                end += 1
            else:
                out.append("[^/]*")
            i = end
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            fragment, i = _bracket(pattern, i)
            out.append(fragment)
        elif char == "\\":
            out.append(re.escape(pattern[i + 1]) if i + 1 < n else _NEVER)
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    """The regex for the ``[...]`` at ``start`` and the index after it. ``/`` never matches;
    a malformed bracket never matches anything (git aborts the match)."""
    n, i = len(pattern), start + 1
    negated = i < n and pattern[i] in "!^"
    i += negated
    items: list[str] = []
    prev, first = "", True
    while i < n and (first or pattern[i] != "]"):
        char, first = pattern[i], False
        if char == "-" and prev and i + 1 < n and pattern[i + 1] != "]":
            i += 1 + (pattern[i + 1] == "\\")
            if i >= n:
                return _NEVER, n
            high = pattern[i]
            items.append(f"{re.escape(prev)}-{re.escape(high)}" if prev <= high else "")
            prev = ""
        elif char == "[" and pattern.startswith(":", i + 1):
            close = pattern.find("]", i + 2)
            name = (
                pattern[i + 2 : close - 1] if close > i + 2 and pattern[close - 1] == ":" else None
            )
            if close == -1 or (name is not None and name not in _CLASSES):
                return _NEVER, n
            items.append(re.escape(char) if name is None else _CLASSES[name])
            prev, i = ("[", i) if name is None else ("", close)
        else:
            i += char == "\\"
            if i >= n:
                return _NEVER, n
            prev = pattern[i]
            items.append(re.escape(prev))
        i += 1
    if i >= n:
        return _NEVER, n
    body = "".join(items)
    if negated:
        return f"[^{body}/]", i + 1
    return (f"(?!/)[{body}]" if body else _NEVER), i + 1
