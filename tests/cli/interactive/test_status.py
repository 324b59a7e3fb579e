"""The status line: its parts, and which go when the terminal is narrow."""

from __future__ import annotations

from taor.cli.interactive.status import Status, money

STATUS = Status(
    model="anthropic:claude-sonnet-4-5",
    effort="high",
    context=0.234,
    window=200_000,
    cost=0.5,
    mode="accept_edits",
)


def test_every_part_fits_a_wide_terminal() -> None:
    assert STATUS.line(120) == (
        " anthropic:claude-sonnet-4-5 · effort high · context 23% of 200k · $0.50 · accept_edits mode"
    )


def test_parts_go_from_the_right_when_narrow() -> None:
    assert STATUS.line(60) == " anthropic:claude-sonnet-4-5 · effort high"
    assert STATUS.line(20) == " anthropic:claude-so"


def test_money() -> None:
    assert (money(None), money(0.004), money(1.234)) == ("cost unknown", "$0.0040", "$1.23")
