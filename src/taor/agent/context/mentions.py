"""Files named in a prompt with ``@path``, attached to it: ``attach_mentions`` appends each named
file's content (a directory's listing) after the prompt, read through the environment, so the
model has it without a tool call. Front ends use it as people type ``@src/app.py``.

``@`` starts a mention at the start of the text or after a space or an opening bracket or
quote (so ``me@example.com`` is not one); a space inside a path is written ``\\ ``.
Punctuation that ends a sentence (``.,;:!?)``) is not part of the path. A mention that names
nothing is left as it is (``@decorator`` in a question about Python); a file that cannot be
attached (binary, unreadable) is reported in ``problems``. Files longer than ``max_chars`` are
attached in part, with a line that says how much was left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from taor.env.base import Environment

MENTION = re.compile(r"(?:^|(?<=[\s(\[{\"']))@((?:\\ |[^\s])+)")
TRAILING = ".,;:!?)]}\"'"
MAX_CHARS = 100_000
MAX_ENTRIES = 200


@dataclass(frozen=True, kw_only=True, slots=True)
class Attached:
    """The prompt with the files appended (``text``), the paths attached, and why others
    named could not be."""

    text: str
    files: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def mentioned(text: str) -> list[str]:
    """The paths ``text`` mentions, in order, once each."""
    found = (m.group(1).replace("\\ ", " ").rstrip(TRAILING) for m in MENTION.finditer(text))
    return list(dict.fromkeys(path for path in found if path))


async def attach_mentions(
    text: str, environment: Environment, *, max_chars: int = MAX_CHARS
) -> Attached:
    """``text`` with every file it mentions appended (see the module docstring)."""
    blocks: list[str] = []
    files: list[str] = []
    problems: list[str] = []
    for path in mentioned(text):
        try:
            if not await environment.exists(path):
                continue
            body = await _content(environment, path, max_chars)
        except Exception as error:  # unreadable: said, and the prompt goes without it
            problems.append(f"@{path}: {error}")
            continue
        if body is None:
            problems.append(f"@{path}: a binary file, not attached")
            continue
        files.append(path)
        blocks.append(f'<file path="{path}">\n{body}\n</file>')
    if not blocks:
        return Attached(text=text, problems=tuple(problems))
    attached = "\n\n".join([text.rstrip(), "Attached files (named with @):", *blocks])
    return Attached(text=attached, files=tuple(files), problems=tuple(problems))


async def _content(environment: Environment, path: str, max_chars: int) -> str | None:
    """The file's text (cut at ``max_chars``), a directory's listing, or None for binary."""
    if (await environment.stat(path)).is_dir:
        entries = await environment.list_dir(path)
        names = [e.path + ("/" if e.is_dir else "") for e in entries[:MAX_ENTRIES]]
        more = len(entries) - len(names)
        return "\n".join(names + ([f"... and {more} more"] if more > 0 else []))
    data = await environment.read_bytes(path)
    if b"\x00" in data[:8192]:
        return None
    body = data.decode("utf-8", errors="replace")
    if len(body) > max_chars:
        left = len(body) - max_chars
        body = body[:max_chars] + f"\n[... {left} more characters not attached]"
    return body.rstrip("\n")
