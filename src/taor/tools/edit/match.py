"""Where an ``edit_file`` old_string stands in the file: the passes ``apply_edit`` tries in turn
(exact, then each fuzzy one also ignoring what the ones before ignore) and the regex each
makes of old_string. A dedenting pass captures the file's indentation at the first written
line, so the replacement can be re-indented by the same delta."""

from __future__ import annotations

import re
from typing import Literal

from taor._records import frozen

FuzzyPass = Literal["trailing_whitespace", "indentation", "typography", "quotes"]


@frozen
class Pass:
    """One way of looking: what it ignores (``fuzzy`` names it; None: the exact pass)."""

    fuzzy: FuzzyPass | None
    rstrip: bool = False
    dedent: bool = False
    typography: bool = False


PASSES = (
    Pass(fuzzy=None),
    Pass(fuzzy="trailing_whitespace", rstrip=True),
    Pass(fuzzy="indentation", rstrip=True, dedent=True),
    Pass(fuzzy="typography", rstrip=True, dedent=True, typography=True),
)


def pattern_for(old: str, match_pass: Pass) -> tuple[re.Pattern[str], str]:
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


def find_all(pattern: re.Pattern[str], haystack: str) -> list[re.Match[str]]:
    """Non-overlapping matches, left to right."""
    found: list[re.Match[str]] = []
    position = 0
    while (match := pattern.search(haystack, position)) is not None:
        found.append(match)
        position = max(match.end(), match.start() + 1)
    return found
