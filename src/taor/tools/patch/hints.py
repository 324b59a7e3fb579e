"""What apply_patch says when a hunk does not fit: the lines it sought and the region of the file
most like them (equal lines first, then similar ones, within a budget of comparisons), and the
punctuation normalization that the last matching pass and this search share."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

from taor.tools.patch.model import Hunk

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


_CLOSEST_BUDGET = 2_000_000  # line comparisons spent looking for the closest region
_SIMILAR_BUDGET = 20_000  # the same, when no line is equal and similarity is scored


def mismatch_message(lines: list[str], hunk: Hunk, start: int, label: str) -> str:
    """What the model reads when a hunk is not found: its lines, and the closest region."""
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
