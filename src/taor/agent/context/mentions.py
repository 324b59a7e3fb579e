"""Files named in a prompt with ``@path``, attached to it: ``attach_mentions`` appends each named
file's content (a directory's listing) after the prompt, read through the environment, so the
model has it without a tool call. Front ends use it as people type ``@src/app.py``.

``@`` starts a mention at the start of the text or after a space or an opening bracket or
quote (so ``me@example.com`` is not one); a space inside a path is written ``\\ ``.
Punctuation that ends a sentence (``.,;:!?)``) is not part of the path. A mention that names
nothing is left as it is (``@decorator`` in a question about Python); a file that cannot be
attached (binary, unreadable) is reported in ``problems``. Files longer than ``max_chars`` are
attached in part, with a line that says how much was left out.

An image (png, jpeg, gif, webp, by its first bytes) is not text: it is read into an
``ImagePart`` (``images``) for the host to send with the prompt (``Session.submit(text,
images=...)``), and the text names it. A model that takes no images (``images=False``) gets
none, and ``problems`` says so; an image over ``max_image_bytes`` is refused with what to do.
"""

from __future__ import annotations

import re

from taor._records import frozen
from taor.env.base import Environment
from taor.llm.types import ImagePart
from taor.tools.builtin.file_kinds import image_type

MENTION = re.compile(r"(?:^|(?<=[\s(\[{\"']))@((?:\\ |[^\s])+)")
TRAILING = ".,;:!?)]}\"'"
MAX_CHARS = 100_000
MAX_ENTRIES = 200
MAX_IMAGE_BYTES = 5 * 1024 * 1024


@frozen
class Attached:
    """The prompt with the files appended (``text``), the paths attached, and why others
    named could not be."""

    text: str
    files: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    images: tuple[ImagePart, ...] = ()  # in the order of ``image_files``
    image_files: tuple[str, ...] = ()


def mentioned(text: str) -> list[str]:
    """The paths ``text`` mentions, in order, once each."""
    found = (m.group(1).replace("\\ ", " ").rstrip(TRAILING) for m in MENTION.finditer(text))
    return list(dict.fromkeys(path for path in found if path))


async def attach_mentions(
    text: str,
    environment: Environment,
    *,
    max_chars: int = MAX_CHARS,
    images: bool = True,
    max_image_bytes: int = MAX_IMAGE_BYTES,
) -> Attached:
    """``text`` with every file it mentions appended (see the module docstring)."""
    blocks: list[str] = []
    files: list[str] = []
    problems: list[str] = []
    pictures: dict[str, ImagePart] = {}
    for path in mentioned(text):
        try:
            if not await environment.exists(path):
                continue
            found = await _read(environment, path)
            picture = _image(found, max_image_bytes, allowed=images)
            body = _text(found, max_chars) if picture is None else None
        except Exception as error:  # unreadable: said, and the prompt goes without it
            problems.append(f"@{path}: {error}")
            continue
        if isinstance(picture, str):  # an image refused: why
            problems.append(f"@{path}: {picture}")
            continue
        if picture is not None:
            pictures[path] = picture
            continue
        if body is None:
            problems.append(f"@{path}: a binary file, not attached")
            continue
        files.append(path)
        blocks.append(f'<file path="{path}">\n{body}\n</file>')
    if pictures:
        names = ", ".join(pictures)
        blocks.append(f"Attached images (named with @): {names}")
    if not blocks:
        return Attached(text=text, problems=tuple(problems))
    head = ["Attached files (named with @):"] if files else []
    return Attached(
        text="\n\n".join([text.rstrip(), *head, *blocks]),
        files=tuple(files),
        problems=tuple(problems),
        images=tuple(pictures.values()),
        image_files=tuple(pictures),
    )


async def _read(environment: Environment, path: str) -> str | bytes:
    """A directory's listing, or the file's bytes."""
    if (await environment.stat(path)).is_dir:
        entries = await environment.list_dir(path)
        names = [e.path + ("/" if e.is_dir else "") for e in entries[:MAX_ENTRIES]]
        more = len(entries) - len(names)
        return "\n".join(names + ([f"... and {more} more"] if more > 0 else []))
    return await environment.read_bytes(path)


def _image(data: str | bytes, max_bytes: int, *, allowed: bool) -> ImagePart | str | None:
    """The file as an image part; why not, for an image refused; None when it is not an
    image."""
    if not isinstance(data, bytes):
        return None
    media_type = image_type(data[:16])
    if media_type is None:
        return None
    if not allowed:
        return "an image, and this model does not take images; not attached"
    if len(data) > max_bytes:
        return (
            f"an image of {len(data) / 2**20:.1f} MB, over the {max_bytes / 2**20:g} MB "
            "limit; attach a smaller copy (e.g. `convert -resize 50%`)"
        )
    return ImagePart(data=data, media_type=media_type)


def _text(data: str | bytes, max_chars: int) -> str | None:
    """The file's text (cut at ``max_chars``), a directory's listing, or None for binary."""
    if isinstance(data, str):
        return data
    if b"\x00" in data[:8192]:
        return None
    body = data.decode("utf-8", errors="replace")
    if len(body) > max_chars:
        left = len(body) - max_chars
        body = body[:max_chars] + f"\n[... {left} more characters not attached]"
    return body.rstrip("\n")
