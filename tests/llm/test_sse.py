from hypothesis import given
from hypothesis import strategies as st

from taor.llm.sse import SSEDecoder, SSEvent

STREAM = (
    b'event: message_start\ndata: {"a":1}\n\n'
    b": a comment\n\n"
    b'event: delta\r\ndata: {"text":"h\\u00e9llo"}\r\n\r\n'
    b"data: line one\ndata: line two\n\n"
    b"retry: 100\nid: 7\ndata: [DONE]\n\n"
)
EXPECTED = [
    SSEvent("message_start", '{"a":1}'),
    SSEvent("delta", '{"text":"h\\u00e9llo"}'),
    SSEvent("message", "line one\nline two"),
    SSEvent("message", "[DONE]"),
]


def decode(chunks: list[bytes]) -> list[SSEvent]:
    decoder = SSEDecoder()
    events = [e for c in chunks for e in decoder.feed(c)]
    return events + decoder.flush()


def test_decodes_whole_stream() -> None:
    assert decode([STREAM]) == EXPECTED


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=30))
def test_any_chunking_decodes_the_same(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [STREAM[a:b] for a, b in zip([0, *points], [*points, len(STREAM)], strict=True)]
    assert decode(chunks) == EXPECTED


def test_multibyte_character_split_across_chunks() -> None:
    data = "data: é\n\n".encode()
    cut = data.index(b"\xc3") + 1
    assert decode([data[:cut], data[cut:]]) == [SSEvent("message", "é")]


def test_flush_emits_event_without_trailing_blank_line() -> None:
    assert decode([b"data: tail"]) == [SSEvent("message", "tail")]
