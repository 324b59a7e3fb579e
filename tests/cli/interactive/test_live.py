"""The live area above the prompt: what it shows, and that it keeps within its lines."""

from __future__ import annotations

import time

from taor.cli.interactive.live import Live, RunningCall


def lines(live: Live, width: int = 40, room: int = 10) -> list[str]:
    text = "".join(part for _, part in live.fragments(width, room, []))
    return text.splitlines()


def test_idle_is_empty_and_busy_shows_a_spinner() -> None:
    assert lines(Live()) == []
    busy = lines(Live(busy_since=0.0))
    assert len(busy) == 1 and "working…" in busy[0] and "esc to interrupt" in busy[0]


def test_the_text_being_written_keeps_its_last_lines_within_the_room() -> None:
    live = Live(text="\n".join(f"line {n}" for n in range(30)))
    live.calls["c1"] = RunningCall(summary="shell: " + "x" * 60, tail="last output line")
    live.queued.append("also fix the docs")
    shown = lines(live, room=6)
    assert len(shown) == 6 and shown[:3] == ["line 27", "line 28", "line 29"]
    assert shown[3].endswith("…") and len(shown[3]) == 40  # cut at the edge
    assert shown[4] == "    last output line"
    assert shown[5].startswith("» also fix the docs  (queued")


def test_long_lines_wrap_to_the_width() -> None:
    assert lines(Live(text="y" * 90), width=40) == ["y" * 40, "y" * 40, "y" * 10]


def test_long_lines_wrap_between_words() -> None:
    shown = lines(Live(text="the quick brown fox jumps over the lazy dog"), width=20)
    assert shown == ["the quick brown fox", "jumps over the lazy", "dog"]
    assert lines(Live(text="    indented words here"), width=12) == ["    indented", "words here"]


def test_text_then_silence_shows_a_spinner_with_the_time_waited() -> None:
    now = time.monotonic()
    streaming = Live(text="Half a sentence", busy_since=now - 5, heard=now)
    assert lines(streaming) == ["Half a sentence"]  # text arriving: no spinner
    stalled = Live(text="Half a sentence", busy_since=now - 5, heard=now - 3)
    shown = lines(stalled, width=80)
    assert shown[0] == "Half a sentence"
    assert "waiting for the model… 5s (silent 3s)" in shown[1]
