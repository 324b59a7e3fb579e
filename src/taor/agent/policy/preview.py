"""What an edit would change, shown before it runs: the unified diff a permission question
carries (``PermissionRequest.diff``), so a person sees the change they are asked to allow.

``write_file``, ``edit_file`` and ``apply_patch`` (read by taor's argument names, so a profile's
tools count too) are applied in memory to their files, read through the environment, with the
tools' own text logic (``taor.tools.edit.apply_edit``, ``taor.tools.patch.apply_patch``):
nothing is written. The diff is the one ``tool_call_end`` would carry afterwards
(``taor.agent.loop.edit_diff``).

A preview is best effort and cheap: no preview (``""``) for a call that will fail (an
old_string that does not match, a patch that does not apply), a file the diff would leave out
(binary, over ``MAX_BYTES``, unreadable), any error, or a read that takes over ``SECONDS``.
The question is asked all the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from taor.agent.loop.edit_diff import MAX_BYTES, Texts, edited_paths, read_texts, unified_diff
from taor.env.base import Environment
from taor.tools.edit import EditError, apply_edit

SECONDS = 1.0  # for reading the files; a slow environment gets no preview


async def edit_preview(env: Environment, name: str, arguments: Mapping[str, Any]) -> str:
    """The unified diff the call ``name(arguments)`` would make, or ``""``."""
    paths = edited_paths(name, arguments)
    if not paths:
        return ""
    try:
        async with asyncio.timeout(SECONDS):
            before = await read_texts(env, paths)
        if len(before) < len(paths):  # a file the diff cannot show
            return ""
        after = _after(name, arguments, before)
        return unified_diff(before, after) if after is not None else ""
    except Exception:  # a preview never stands in the question's way
        return ""


def _after(name: str, arguments: Mapping[str, Any], before: Texts) -> Texts | None:
    """The files as the call would leave them; None when it would fail."""
    if name == "write_file":
        content = arguments.get("content")
        if not isinstance(content, str) or len(content.encode()) > MAX_BYTES:
            return None
        return {str(arguments["path"]): content}
    if name == "edit_file":
        return _edited(arguments, before)
    if name == "apply_patch":
        return _patched(str(arguments.get("patch", "")), before)
    return None


def _edited(arguments: Mapping[str, Any], before: Texts) -> Texts | None:
    path = str(arguments["path"])
    text, old = before[path], str(arguments["old_string"])
    if text is None and old:  # no such file: the tool refuses
        return None
    replace_all = bool(arguments.get("replace_all", False))
    try:
        result = apply_edit(text or "", old, str(arguments["new_string"]), replace_all=replace_all)
    except EditError:
        return None
    return {path: result.text}


def _patched(patch: str, before: Texts) -> Texts | None:
    from taor.tools.patch import PatchError, apply_patch  # as the tool does: on first use

    try:
        result = apply_patch(patch, before.get)
    except PatchError:
        return None
    return {change.path: change.content for change in result.changes}
