"""What the codec knows of a record type: its fields, their resolved hints, and shape errors.

Internal to ``taor.agent.record.codec``. Hints are resolved once per class (``typing.get_type_hints``
is slow); the per-class encoders and decoders built from them are cached the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable
from typing import Any, get_args, get_origin

from taor.errors import TaorError

Codec = Callable[[Any], Any]
SCALARS: frozenset[Any] = frozenset({str, int, float, bool, type(None)})


class Bad(TaorError):
    """A value that does not fit its type; ``where`` (the path to it) is filled in on the way
    out."""

    def __init__(self, problem: str) -> None:
        self.problem, self.where = problem, ""

    def inside(self, step: str) -> Bad:
        self.where = step + ("." if self.where and self.where[0] != "[" else "") + self.where
        return self

    def describe(self) -> str:
        return f"{self.where}: {self.problem}" if self.where else self.problem


def per_class(build: Callable[[Any], Codec]) -> Callable[[Any], Codec]:
    """Build once per class (or tuple of classes) and keep it."""
    return functools.cache(build)


@functools.cache
def hints(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def fields(cls: Any) -> list[dataclasses.Field[Any]]:
    """The fields a record is built from: ``kind`` first, the rest in declaration order."""
    found = [f for f in dataclasses.fields(cls) if f.init]
    return sorted(found, key=lambda f: f.name != "kind")


def is_required(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def is_record(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def is_sequence(tp: Any) -> bool:
    origin = get_origin(tp)
    return origin is tuple or origin is list or _is_abc(origin, "Sequence")


def is_mapping(tp: Any) -> bool:
    return tp is dict or get_origin(tp) is dict or _is_abc(get_origin(tp), "Mapping")


def item_type(tp: Any) -> Any:
    """``X`` of ``tuple[X, ...]``, ``list[X]`` or ``Sequence[X]``; ``Any`` when not given."""
    args = get_args(tp)
    if get_origin(tp) is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        raise TypeError(f"taor.agent.record.codec: only tuple[X, ...] is supported, not {tp!r}")
    return args[0] if args else Any


def value_type(tp: Any) -> Any:
    """``X`` of ``Mapping[str, X]``; ``Any`` when not given."""
    args = get_args(tp)
    return args[1] if args else Any


def what(data: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    return "null" if data is None else names.get(type(data), type(data).__name__)


def _is_abc(origin: Any, name: str) -> bool:
    return getattr(origin, "__module__", None) == "collections.abc" and origin.__name__ == name
