"""The keys of settings dataclasses, read from their fields' names and types, and a raw value
(TOML, a variable's text, a flag) checked against a key: what lets ``[serve]`` take any field
of ``ServiceConfig`` with no list of keys to keep in step with it.

Types understood: ``bool``, ``int`` (0 or more, unless ``BOUNDS`` says otherwise), ``float``
(above 0: seconds), ``str`` (not empty), ``Literal`` of strings, ``Path`` (``~`` is the home; relative
to the file or the working directory), ``tuple[str, ...]`` and ``tuple[Path, ...]`` (lists),
each also as ``X | None``. A field of another type cannot be set from a file, and says so.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from taor._records import frozen
from taor.errors import ConfigurationError

# Whole numbers with other bounds than "0 or more", by key.
BOUNDS: Mapping[str, tuple[int, int | None]] = {
    "port": (0, 65535),  # 0: any free port
    "workers": (1, None),
    "max_body": (1, None),
}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@frozen
class Key:
    """``name`` is the key in the file, ``field`` the dataclass attribute; ``kind`` its type
    (``tuple``: a list of ``item``; ``object``: a type no file can give)."""

    name: str
    field: str
    kind: type
    item: type | None = None
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int | None = None


def keys_of(classes: Iterable[type], renamed: Mapping[str, str]) -> dict[str, Key]:
    """A key for each field of each dataclass, named as the field (or as ``renamed`` says)."""
    found: dict[str, Key] = {}
    for cls in classes:
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            if not field.init:
                continue
            name = renamed.get(field.name, field.name)
            kind, item, choices = _shape(hints[field.name])
            low, high = BOUNDS.get(name, (0, None))
            found[name] = Key(
                name=name,
                field=field.name,
                kind=kind,
                item=item,
                choices=choices,
                low=low,
                high=high,
            )
    return found


def _shape(hint: Any) -> tuple[type, type | None, tuple[str, ...]]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        rest = [arg for arg in args if arg is not type(None)]
        return _shape(rest[0]) if len(rest) == 1 else (object, None, ())
    if origin is typing.Literal and all(isinstance(arg, str) for arg in args):
        return str, None, tuple(args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis and args[0] in (str, Path):
        return tuple, args[0], ()
    if hint in (bool, int, float, str, Path):
        return hint, None, ()
    return object, None, ()


def convert(key: Key, raw: Any, shown: str, base: Path) -> Any:
    """``raw`` as a value of ``key``; ``shown`` is how the value was given (for the error),
    ``base`` the folder a relative path is from."""
    if key.kind is tuple and isinstance(raw, list | tuple):
        assert key.item is not None
        items = [_one(key.item, key, item, base) for item in raw]
        if all(item is not None for item in items):
            return tuple(items)
    elif key.kind is not tuple:
        value = _one(key.kind, key, raw, base)
        if value is not None:
            return value
    raise ConfigurationError(f"{shown} is not allowed; it must be {allowed(key)}")


def _one(kind: type, key: Key, raw: Any, base: Path) -> Any:
    """``raw`` as a ``kind``, or None when it is not one."""
    if kind is bool:
        return raw if isinstance(raw, bool) else None
    if kind is int:
        fits = type(raw) is int and raw >= key.low and (key.high is None or raw <= key.high)
        return raw if fits else None
    if kind is float:
        return float(raw) if type(raw) in (int, float) and raw > 0 else None  # seconds
    if not isinstance(raw, str) or not raw.strip():
        return None
    if kind is Path:
        return (base / Path(raw).expanduser()).resolve()
    if kind is str and (not key.choices or raw in key.choices):
        return raw
    return None


def from_text(key: Key, text: str) -> Any:
    """A variable's text as the key's type (left as it is when it does not parse, so that
    the error shows what was given); a list is comma-separated."""
    try:
        if key.kind is int:
            return int(text)
        if key.kind is float:
            return float(text)
    except ValueError:
        return text
    if key.kind is bool:
        word = text.strip().lower()
        return True if word in _TRUE else False if word in _FALSE else text
    if key.kind is tuple:
        return [part.strip() for part in text.split(",") if part.strip()]
    return text


def allowed(key: Key) -> str:
    """What a value of ``key`` must be, in words."""
    if key.kind is int:
        if key.high is not None:
            return f"a whole number from {key.low} to {key.high}"
        return f"a whole number, {key.low} or more"
    if key.kind is tuple:
        what = "paths" if key.item is Path else "strings"
        return f'a list of {what}, like ["{"/srv/a" if key.item is Path else "a"}", ...]'
    if key.choices:
        return "one of " + ", ".join(key.choices)
    words = {
        bool: "true or false",
        float: "a number above 0",
        str: "a string",
        Path: "a path (a string; ~ is your home)",
    }
    return words.get(key.kind, "set by taor itself (it cannot be set in a config file)")
