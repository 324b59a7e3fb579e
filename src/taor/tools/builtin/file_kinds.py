"""What a file is, from its first bytes, and how text is shown to the model with line numbers.

``image_type`` recognizes png, jpeg, gif and webp by their magic bytes; ``is_binary`` calls a
file binary when its head holds a NUL byte (as git and grep do). ``numbered`` renders lines as
``     1\\tline`` with overlong lines cut; ``split_lines`` splits where the environments split.
"""

from __future__ import annotations

import re

DEFAULT_LINE_LIMIT = 2000
"""Lines a read shows when the caller gives no limit."""
MAX_LINE_CHARS = 2000
SNIFF_BYTES = 8192
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(head: bytes) -> str | None:
    """The media type of a png, jpeg, gif or webp by its magic bytes, else None."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((media for magic, media in _IMAGE_MAGIC if head.startswith(magic)), None)


def is_binary(head: bytes) -> bool:
    """True when the first bytes of a file (up to ``SNIFF_BYTES``) hold a NUL byte."""
    return b"\x00" in head[:SNIFF_BYTES]


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where the environment splits (``\\n``, ``\\r\\n``, ``\\r``)."""
    return _LINE.findall(text)


def numbered(text: str, first: int) -> str:
    """Lines of ``text`` as ``     1\\tline``, numbered from ``first``, overlong lines cut."""
    out = []
    for number, raw in enumerate(split_lines(text), first):
        line = raw.rstrip("\r\n")
        if len(line) > MAX_LINE_CHARS:
            extra = len(line) - MAX_LINE_CHARS
            line = f"{line[:MAX_LINE_CHARS]}... [line cut: {extra} more characters]"
        out.append(f"{number:>6}\t{line}")
    return "\n".join(out)
