"""The live area above the prompt: what it shows, and that it keeps within its lines."""

from __future__ import annotations

from taor.cli.interactive.live import Live, RunningCall


def lines(live: Live, width: int = 40, room: int = 10) -> list[str]:
    text = "".join(part for _, part in live.fragments(width, room, []))
    return text.splitlines()


def test_idle_is_empty_and_busy_shows_a_spinner() -> None:
    assert lines(Live()) == []
    busy = lines(Live(busy_since=0.0))
    assert len(busy) == 1 and "working…" in busy[0] and "ctrl-c to interrupt" in busy[0]


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
