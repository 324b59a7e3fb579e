"""``frozen``: the frozen, keyword-only, slotted dataclass that most of taor's data is made of,
quicker to define than ``dataclasses.dataclass(frozen=True, kw_only=True, slots=True)``.

That decorator compiles six methods from source for every class (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``). Some two hundred such classes are
defined before ``taor -p`` sends its first request, and compiling their methods was the largest
single cost of its start-up. ``frozen`` compiles only ``__init__``, which runs for every
instance and so stays as fast as the standard one; the other methods are small functions made
per class from the field names, with the standard library's behaviour: equality and hashing over
the compared fields, the same ``repr``, ``FrozenInstanceError`` on assignment, pickling and
copying. Everything else is ``dataclasses``' own: fields, defaults and factories, slots,
inheritance, ``fields``, ``replace`` and ``asdict``.

A record's bases that are dataclasses are records too (``dataclasses`` refuses a frozen class
over one it does not know as frozen, and the other way round).
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")

_FACTORY = object()  # stands for "not given" where a field's default comes from a factory


@dataclass_transform(
    kw_only_default=True,
    frozen_default=True,
    field_specifiers=(dataclasses.field, dataclasses.Field),
)
def frozen(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen, keyword-only dataclass with slots."""
    own = vars(cls)
    keep = {name for name in ("__repr__", "__eq__", "__hash__") if own.get(name) is not None}
    made: Any = dataclasses.dataclass(init=False, repr=False, eq=False, kw_only=True, slots=True)(
        cls
    )
    fields = dataclasses.fields(made)
    compared = tuple(f.name for f in fields if f.compare)
    methods: dict[str, Any] = {
        "__init__": _init(made, fields),
        "__repr__": _repr(tuple(f.name for f in fields if f.repr)),
        "__eq__": _eq(_getter(compared)),
        "__hash__": _hash(_getter(tuple(f.name for f in fields if _hashed(f)))),
        "__setattr__": _frozen_setattr,
        "__delattr__": _frozen_delattr,
        "__getstate__": _getstate(_getter(tuple(f.name for f in fields))),
        "__setstate__": _setstate(tuple(f.name for f in fields)),
    }
    for name, method in methods.items():
        if name in keep:
            continue
        method.__qualname__ = f"{made.__qualname__}.{name}"
        setattr(made, name, method)
    return made  # type: ignore[no-any-return]


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> Callable[..., None]:
    """The class's ``__init__``, compiled as ``dataclasses`` compiles it: one keyword parameter
    per field that takes one, each value set on the instance, then ``__post_init__``."""
    space: dict[str, Any] = {"_set": object.__setattr__, "_FACTORY": _FACTORY}
    params: list[str] = []
    body: list[str] = []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            space[f"_d_{f.name}"] = f.default
            value = f"_d_{f.name}"
        elif f.default_factory is not dataclasses.MISSING:
            space[f"_f_{f.name}"] = f.default_factory
            value = f"_f_{f.name}()"
        else:
            value = ""
        if not f.init:
            if value:
                body.append(f"_set(self, {f.name!r}, {value})")
            continue
        if value.endswith("()"):
            params.append(f"{f.name}=_FACTORY")
            body.append(f"_set(self, {f.name!r}, {value} if {f.name} is _FACTORY else {f.name})")
        else:
            params.append(f"{f.name}={value}" if value else f.name)
            body.append(f"_set(self, {f.name!r}, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    signature = ", ".join(["self", *(["*", *params] if params else [])])
    source = f"def __init__({signature}):\n    " + ("\n    ".join(body) or "pass") + "\n"
    exec(source, space)
    init: Callable[..., None] = space["__init__"]
    return init


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``names`` on an instance, as a tuple."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        one = operator.attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _hashed(f: dataclasses.Field[Any]) -> bool:
    return f.compare if f.hash is None else f.hash


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    shown = ", ".join(f"{name}={{!r}}" for name in names).format
    values = _getter(names)

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        return f"{type(self).__qualname__}({shown(*values(self))})"

    return __repr__


def _eq(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, object], Any]:
    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return values(self) == values(other)

    return __eq__


def _hash(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], list[Any]]:
    def __getstate__(self: Any) -> list[Any]:
        return list(values(self))

    return __getstate__


def _setstate(names: tuple[str, ...]) -> Callable[[Any, list[Any]], None]:
    def __setstate__(self: Any, state: list[Any]) -> None:
        for name, value in zip(names, state, strict=True):
            object.__setattr__(self, name, value)

    return __setstate__
