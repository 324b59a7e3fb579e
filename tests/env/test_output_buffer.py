"""HeadTail: keeps the head and the tail exactly, counts the dropped middle, stays bounded."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from taor.env.output_buffer import HeadTail, dropped_marker


@given(st.lists(st.binary(max_size=40), max_size=30), st.integers(min_value=1, max_value=50))
def test_head_and_tail_are_exact_and_the_middle_is_counted(chunks: list[bytes], cap: int) -> None:
    buffer = HeadTail(b"", cap)
    for chunk in chunks:
        buffer.add(chunk)
    whole = b"".join(chunks)
    head, tail = buffer.parts()

    assert len(head) <= cap and len(tail) <= cap
    assert buffer.dropped == max(0, len(whole) - 2 * cap)
    if buffer.dropped:
        assert head == whole[:cap] and tail == whole[-cap:]
    else:
        assert head + tail == whole


def test_text_puts_the_marker_where_the_middle_was_dropped() -> None:
    buffer = HeadTail("", 3)
    buffer.add("abcdefghij")

    assert buffer.text(dropped_marker("characters")) == (
        "abc\n[... 4 characters of output dropped here to bound memory ...]\nhij"
    )


def test_decoded_replaces_invalid_utf8_and_keeps_split_characters_when_whole() -> None:
    buffer = HeadTail(b"", 8)
    for byte in "é€".encode():
        buffer.add(bytes([byte]))
    buffer.add(b"\xff")

    assert buffer.decoded(dropped_marker("bytes")) == "é€\ufffd"
