"""What the screen writes: markdown blocks one blank line apart, whatever rich puts around them."""

from __future__ import annotations

import io

from taor.cli.interactive.screen import Screen


def test_blocks_of_markdown_are_one_blank_line_apart() -> None:
    out = io.StringIO()
    screen = Screen(out, environ={})
    for block in ("Here is a **summary**:", "- one\n- two", "```python\nprint(1)\n```", "Done."):
        screen.markdown(block, gap=True)
    assert out.getvalue() == "Here is a summary:\n\n • one\n • two\n\n print(1)\n\nDone.\n\n"
