"""Streamed text cut into finished markdown blocks, however the deltas fall."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from taor.cli.interactive.blocks import BlockSplitter

TEXT = "# Title\n\nA paragraph\non two lines.\n\n```py\nx = 1\n\ny = 2\n```\nAfter.\n\n- a\n- b"
BLOCKS = ["# Title", "A paragraph\non two lines.", "```py\nx = 1\n\ny = 2\n```", "After."]


def test_blocks_end_at_blank_lines_outside_fences_and_at_a_closing_fence() -> None:
    splitter = BlockSplitter()
    assert splitter.feed(TEXT) == BLOCKS
    assert splitter.finish() == "- a\n- b" and splitter.pending == ""


def test_a_block_is_not_finished_while_its_last_line_is_being_written() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("First.\n") == []
    assert splitter.feed("\nSec") == ["First."]
    assert splitter.pending == "Sec"


@given(st.lists(st.integers(min_value=1, max_value=len(TEXT)), max_size=12))
def test_any_cut_of_the_stream_gives_the_same_blocks(cuts: list[int]) -> None:
    splitter, found, start = BlockSplitter(), [], 0
    for cut in sorted(set(cuts)):
        found += splitter.feed(TEXT[start:cut])
        start = cut
    found += splitter.feed(TEXT[start:])
    assert found == BLOCKS and splitter.finish() == "- a\n- b"
