"""The status line: its parts, and which go when the terminal is narrow."""

from __future__ import annotations

import dataclasses

from taor.cli.interactive.status import Status, cost_text

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


def test_the_cost_in_the_same_words_wherever_it_is_shown() -> None:
    assert cost_text(0.0, "priced", "anthropic") == "$0.00"  # before the first call
    assert cost_text(0.004, "priced", "anthropic") == "$0.0040"
    assert cost_text(1.234, "priced", "openai") == "$1.23"
    assert cost_text(0.0, "free", "local") == "free (local model)"
    assert cost_text(0.0, "unknown", "openai-compat") == "price not known"  # before, and
    assert cost_text(None, "unknown", "openai-compat") == "price not known"  # after a call
    assert cost_text(None, "priced", "anthropic") == "price not known"  # an earlier model's
    local = dataclasses.replace(STATUS, model="local:qwen2.5-coder-1.5b", cost=0.0, pricing="free")
    assert local.line(120).endswith(" · free (local model) · accept_edits mode")
