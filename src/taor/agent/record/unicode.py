"""Text that is not UTF-8, made sendable. Bytes that are not UTF-8 reach Python strings as lone
surrogates (``surrogateescape`` on argv and stdin, ``\\udcff`` escapes in a JSON file); no
provider's JSON encoder takes them, so one such character would fail every request of the
session. Each is replaced with U+FFFD: in an input as it is submitted (the loop warns), and in
every request as it is built (a transcript written before this rule, a file read into the
system prompt)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

T = TypeVar("T")

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def repaired(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate replaced by U+FFFD, and how many there were."""
    return _SURROGATE.subn(REPLACEMENT, text)


def scrubbed(value: T) -> T:
    """``value`` (strings, tuples, lists, dicts and dataclasses of them) with every lone
    surrogate replaced; the very object when there is none."""
    return _scrub(value)  # type: ignore[no-any-return]


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub(REPLACEMENT, value) if _SURROGATE.search(value) else value
    if isinstance(value, tuple | list):
        items = [_scrub(item) for item in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    if isinstance(value, dict):
        pairs = [(_scrub(k), _scrub(v)) for k, v in value.items()]
        if all(k is a and v is b for (k, v), (a, b) in zip(pairs, value.items(), strict=True)):
            return value
        return type(value)(pairs)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {}
        for f in dataclasses.fields(value):
            if not f.init:
                continue
            old = getattr(value, f.name)
            new = _scrub(old)
            if new is not old:
                changed[f.name] = new
        return dataclasses.replace(value, **changed) if changed else value
    return value
