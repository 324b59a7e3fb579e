"""One short, human line per recorded tool call, where no session's registry is at hand
(``taor sessions show``): ``shell: pytest -q``, ``read_file: src/app.py``, ``grep: "needle" in
src``, ``apply_patch: 3 files (a.py, b.py, +1)``, as the built-in tool of the call's name
declares it (``Effects.summary``); any other tool (or a call missing the argument its form
needs): ``name: {compact json}``. Whitespace runs (newlines too) become one space, and a line
longer than ``limit`` (80) characters is cut with an ellipsis.

A running session takes the line from the call's ``PreparedCall`` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taor.tools.prepared import ELLIPSIS, SUMMARY_LIMIT, summary_line

__all__ = ["ELLIPSIS", "summarize_call"]


def summarize_call(name: str, arguments: Mapping[str, Any], *, limit: int = SUMMARY_LIMIT) -> str:
    from taor.tools.builtin import builtin_effects  # the built-in tools, on first use

    return summary_line(name, builtin_effects(name, arguments), arguments, limit=limit)
