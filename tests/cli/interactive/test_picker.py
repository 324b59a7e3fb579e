"""Picking from a list at the prompt: what a number or the mark picks, and the window of lines
shown around the mark."""

from __future__ import annotations

from taor.cli.interactive.commands.settings import model_options
from taor.cli.interactive.picker import Picker


def picker(count: int = 30) -> Picker:
    return Picker(
        title="pick", command="/model", options=tuple(f"m{n}" for n in range(1, count + 1))
    )


def shown(p: Picker, room: int = 30) -> list[str]:
    return "".join(text for _, text in p.fragments(80, room)).splitlines()


def test_a_number_picks_that_line_and_nothing_typed_the_marked_one() -> None:
    p = picker()
    assert p.choice("") == "m1" and p.choice("12") == "m12"
    assert p.choice("31") is None and p.choice("0") is None and p.choice("gpt") is None
    p.move(-1)  # from the first line up: the last
    assert p.choice("") == "m30"


def test_the_list_shows_the_lines_around_the_mark() -> None:
    p = picker()
    for _ in range(15):
        p.move(1)
    lines = shown(p)
    marked = [line for line in lines if line.startswith("❯")]
    assert marked == ["❯ 16. m16"] and len(lines) == 12  # title, 10 lines, the keys
    assert lines[1].strip().startswith("11.") and "Enter picks" in lines[-1]


def test_the_model_options_start_with_the_current_model() -> None:
    options, notes = model_options("openai-compat:local")
    assert options[0] == "openai-compat:local" and notes[0] == "(current)"
    assert "anthropic:claude-sonnet-4-5" in options
    options, notes = model_options("anthropic:claude-sonnet-4-5")
    assert options[0] == "anthropic:claude-sonnet-4-5" and options.count(options[0]) == 1
