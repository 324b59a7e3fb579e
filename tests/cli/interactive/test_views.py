"""What finished tool calls, diffs and thinking look like, and the folds ``/expand`` opens."""

from __future__ import annotations

import io

import pytest
from rich.text import Text

from taor.cli.interactive.screen import Screen
from taor.cli.interactive.views import Fold, Folds, call_line, diff_view, folded, thinking_view


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")


def plain(text: Text) -> str:
    """As the screen prints it, to a file (so without colour)."""
    return Screen(out=io.StringIO()).render(text).rstrip("\n")


def test_a_result_is_folded_to_three_lines_each_cut_at_the_edge() -> None:
    output = "\n".join(["x" * 60, *(f"line {n}" for n in range(2, 11))])
    assert plain(folded(output, 4)) == (
        "  ⎿ " + "x" * 35 + "…\n    line 2\n    line 3\n    … +7 lines (ctrl-o or /expand 4)"
    )
    assert plain(folded("", 1)) == "  ⎿ (no output)"


def test_call_lines_and_diffs() -> None:
    assert plain(call_line("shell: pytest -q", seconds=1.25)) == "● shell: pytest -q  1.2s"
    assert plain(call_line("shell: false", failed=True)) == "✗ shell: false"
    diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    assert plain(diff_view(diff, 2, lines=4)) == (
        "    --- a/x\n    +++ b/x\n    @@ -1 +1 @@\n    -a\n    … +1 lines of diff (ctrl-o or /expa…"
    )
    styles = {span.style for span in diff_view(diff, 2).spans}
    assert {"green", "red", "cyan"} <= styles


def test_thinking_is_dim_and_folded() -> None:
    view = thinking_view("first\nsecond\nthird\n", 3)
    assert plain(view) == "✻ thinking\n    first\n    second\n    … +1 lines (/expand 3)"
    assert "dim" in str(view.style)


def test_folds_are_numbered_and_the_last_is_the_default() -> None:
    folds = Folds()
    assert folds.get() is None
    first, second = Fold(title="a", text="1"), Fold(title="b", text="2")
    assert (folds.add(first), folds.add(second)) == (1, 2)
    assert (folds.get(), folds.get(1), folds.get(3)) == (second, first, None)
