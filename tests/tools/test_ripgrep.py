"""Parsing rg's ``--heading --null`` output (property tests) and its counts."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from taor.env.base import GrepMatch
from taor.tools.ripgrep import _parse_blocks, _parse_counts

_PATH = st.text(st.characters(blacklist_characters="\0\n", blacklist_categories=["Cs"]), min_size=1)
_TEXT = st.text(st.characters(blacklist_characters="\0\n\r", blacklist_categories=["Cs"]))
_LINES = st.dictionaries(st.integers(1, 10_000), _TEXT, min_size=1, max_size=5)
_FILES = st.dictionaries(_PATH, _LINES, max_size=8)


def _render(files: dict[str, dict[int, str]], order: list[str]) -> str:
    """What rg prints: one block per file, in rg's (thread-dependent) order, lines in order."""
    blocks = [
        path + "\0" + "".join(f"{n}:{text}\n" for n, text in sorted(files[path].items()))
        for path in order
    ]
    return "\n".join(blocks)


@given(_FILES, st.randoms(), st.one_of(st.none(), st.integers(1, 20)))
def test_matches_come_back_sorted_and_all_are_counted(
    files: dict[str, dict[int, str]], rng: random.Random, limit: int | None
) -> None:
    order = list(files)
    rng.shuffle(order)
    expected = [
        GrepMatch(path=path.removeprefix("./"), line_number=n, line=text)
        for path in sorted(files)
        for n, text in sorted(files[path].items())
    ]

    matches, total = _parse_blocks(_render(files, order), limit)

    assert total == len(expected)
    assert matches == expected[:limit]


def test_output_without_a_path_has_no_matches() -> None:
    assert _parse_blocks("", None) == ([], 0)
    assert _parse_blocks('a.txt: binary file matches (found "\\0" byte)\n', None) == ([], 0)


def test_counts_are_parsed_and_sorted() -> None:
    stdout = "./b.py\x003\n./a b.py\x0012\n"

    assert _parse_counts(stdout) == [("a b.py", 12), ("b.py", 3)]
