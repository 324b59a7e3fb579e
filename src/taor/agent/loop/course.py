"""What a model that repeats itself needs to change course, added to the loop warning.

A model stuck re-sending an edit whose text is no longer in the file, or re-running a test that
keeps failing, works from what it remembers, and what it remembers is wrong. So the warning
carries what is true now: each file the repeated calls read or write, as it is now (bounded),
and the last error of those calls, exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from taor.agent.parts import Guards
from taor.errors import TaorError
from taor.llm.types import ToolCallPart, ToolResultPart

FILES_SHOWN = 2
FILE_CHARS = 4000
ERROR_CHARS = 1500


async def course_note(
    rt: Guards, calls: Sequence[ToolCallPart], results: Mapping[str, ToolResultPart]
) -> str:
    """The files ``calls`` touch as they are now and their last error ("" when neither)."""
    paths: dict[str, None] = {}
    for call in calls:
        effects = rt.tools.effects(call)
        paths.update(dict.fromkeys((*effects.writes, *effects.reads)))
    parts = [await _as_now(rt, path) for path in list(paths)[:FILES_SHOWN]]
    errors = [r.text for c in calls if (r := results.get(c.id)) is not None and r.is_error]
    if errors:
        parts.append(f"The last error, exactly:\n{_cut(errors[-1], ERROR_CHARS)}")
    return "\n\n".join(parts)


async def _as_now(rt: Guards, path: str) -> str:
    try:
        text = await rt.environment.read_text(path)
    except (OSError, TaorError, ValueError):
        return f"{path} does not exist now (or cannot be read)."
    return f"{path} as it is now:\n```\n{_cut(text, FILE_CHARS)}\n```"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "\n… (cut)"
