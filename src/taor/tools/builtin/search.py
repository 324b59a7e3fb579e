"""The search tools, ``grep`` (``taor.tools.builtin.grep``) and ``glob``
(``taor.tools.builtin.glob``): both read-only, both respect ``.gitignore`` and skip ``.git``,
both give paths relative to the workspace root, capped with a note of what was left out, and cut
for the model with the whole text kept for the host (``taor.tools.builtin.search_output``).

Their public names stay importable from here.
"""

from taor.tools.builtin.glob import DEFAULT_GLOB_LIMIT, GLOB_PARAMETERS, GlobTool
from taor.tools.builtin.grep import (
    DEFAULT_HEAD_LIMIT,
    FALLBACK_MAX_MATCHES,
    GREP_PARAMETERS,
    MAX_LINE_CHARS,
    GrepTool,
)

__all__ = [
    "DEFAULT_GLOB_LIMIT",
    "DEFAULT_HEAD_LIMIT",
    "FALLBACK_MAX_MATCHES",
    "GLOB_PARAMETERS",
    "GREP_PARAMETERS",
    "MAX_LINE_CHARS",
    "GlobTool",
    "GrepTool",
]
