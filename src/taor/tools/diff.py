"""The unified diff of what an editing call changed, for the host (the loop, checkpoints and
permission previews show it): a call whose tool declares the files it writes
(``Effects.writes``: write_file, edit_file and apply_patch do, under every profile's names) gets
them read through the environment before and after the call, and ``tool_call_end`` carries the
difference as ``metadata["diff"]``. The model never sees it.

Only UTF-8 text files up to ``MAX_BYTES`` are compared (a binary or huge file is left out of
the diff, never a reason to fail the call); a file that did not exist is ``/dev/null``.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Sequence

from taor.env.base import Environment
from taor.tools.effects import MAX_TEXT_BYTES as MAX_BYTES
from taor.tools.effects import Texts

__all__ = ["MAX_BYTES", "Texts", "read_texts", "unified_diff"]

NO_NEWLINE = "\\ No newline at end of file\n"


async def read_texts(env: Environment, paths: Sequence[str]) -> Texts:
    texts: Texts = {}
    for path in paths:
        with contextlib.suppress(Exception):  # unreadable: left out, the call goes on
            if not await env.exists(path):
                texts[path] = None
                continue
            info = await env.stat(path)
            if info.is_dir or info.size > MAX_BYTES:
                continue
            data = await env.read_bytes(path)
            if b"\x00" not in data:
                texts[path] = data.decode("utf-8")
    return texts


def unified_diff(before: Texts, after: Texts) -> str:
    """The changes from ``before`` to ``after`` as one unified diff, file by file."""
    chunks: list[str] = []
    for path, old in before.items():
        if path not in after or after[path] == old:
            continue
        new = after[path]
        lines = difflib.unified_diff(
            _lines(old),
            _lines(new),
            fromfile="/dev/null" if old is None else f"a/{path}",
            tofile="/dev/null" if new is None else f"b/{path}",
        )
        chunks.extend(line if line.endswith("\n") else line + "\n" + NO_NEWLINE for line in lines)
    return "".join(chunks)


def _lines(text: str | None) -> list[str]:
    return [] if text is None else text.splitlines(keepends=True)
