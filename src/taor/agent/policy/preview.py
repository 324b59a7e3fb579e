"""What an edit would change, shown before it runs: the unified diff a permission question
carries (``PermissionRequest.diff``), so a person sees the change they are asked to allow.

A call whose tool declares the files it writes and a preview (``Effects.writes`` and
``Effects.preview``: write_file, edit_file and apply_patch, with the tools' own text logic) has
those files read through the environment and the preview applied to them in memory: nothing
is written. The diff is the one ``tool_call_end`` would carry afterwards
(``taor.tools.diff``).

A preview is best effort and cheap: no preview (``""``) for a call that will fail (an
old_string that does not match, a patch that does not apply), a file the diff would leave out
(binary, over ``MAX_BYTES``, unreadable), any error, or a read that takes over ``SECONDS``.
The question is asked all the same.
"""

from __future__ import annotations

import asyncio

from taor.env.base import Environment
from taor.tools.diff import read_texts, unified_diff
from taor.tools.effects import Effects

SECONDS = 1.0  # for reading the files; a slow environment gets no preview


async def edit_preview(env: Environment, effects: Effects) -> str:
    """The unified diff the call with these declared ``effects`` would make, or ``""``."""
    paths, preview = list(effects.writes), effects.preview
    if not paths or preview is None:
        return ""
    try:
        async with asyncio.timeout(SECONDS):
            before = await read_texts(env, paths)
        if len(before) < len(paths):  # a file the diff cannot show
            return ""
        after = preview(before)
        return unified_diff(before, after) if after is not None else ""
    except Exception:  # a preview never stands in the question's way
        return ""
