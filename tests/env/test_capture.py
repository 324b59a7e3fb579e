"""Capture: each stream decoded as a whole would be, combined output in arrival order."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from taor.env.base import StreamName
from taor.env.capture import Capture

_CHUNKS = st.lists(st.binary(max_size=12), max_size=12)


def _capture(chunks: dict[StreamName, list[bytes]], cap: int = 1 << 20) -> Capture:
    async def pump_all() -> Capture:
        capture = Capture(cap, None)
        for name, data in chunks.items():  # one stream after the other: a known order
            reader = asyncio.StreamReader()
            for chunk in data:
                reader.feed_data(chunk)
            reader.feed_eof()
            await capture.pump(reader, name)
        return capture

    return asyncio.run(pump_all())


@given(_CHUNKS)
def test_a_single_stream_is_decoded_as_a_whole_and_is_the_combined_output(
    chunks: list[bytes],
) -> None:
    text = b"".join(chunks).decode("utf-8", "replace")

    assert _capture({"stdout": chunks}).texts() == (text, "", text)
    assert _capture({"stderr": chunks}).texts() == ("", text, text)


@given(_CHUNKS, _CHUNKS)
def test_both_streams_are_decoded_apart_and_combined_in_order(
    out: list[bytes], err: list[bytes]
) -> None:
    out_text = b"".join(out).decode("utf-8", "replace")
    err_text = b"".join(err).decode("utf-8", "replace")

    assert _capture({"stdout": out, "stderr": err}).texts() == (
        out_text,
        err_text,
        out_text + err_text,
    )


def test_a_cut_stream_keeps_its_own_marker_in_bytes() -> None:
    stdout, stderr, combined = _capture({"stdout": [b"x" * 10, "é".encode() * 5]}, cap=4).texts()

    assert stdout.startswith("xxxx\n[... 12 bytes") and stdout.endswith("éé")
    assert stderr == "" and "characters of output dropped" in combined
