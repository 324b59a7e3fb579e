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


def test_the_settings_go_first_when_narrow_then_the_numbers() -> None:
    assert (
        STATUS.line(80)
        == " anthropic:claude-sonnet-4-5 · effort high · context 23% of 200k · $0.50"
    )
    assert STATUS.line(60) == " anthropic:claude-sonnet-4-5 · context 23% of 200k · $0.50"
    assert STATUS.line(50) == " anthropic:claude-sonnet-4-5 · context 23% of 200k"
    assert STATUS.line(30) == " anthropic:claude-sonnet-4-5"
    assert STATUS.line(20) == " claude-sonnet-4-5"
    assert STATUS.line(12) == " claude-son…"


def test_money() -> None:
    assert (money(None), money(0.004), money(1.234)) == ("cost unknown", "$0.0040", "$1.23")
