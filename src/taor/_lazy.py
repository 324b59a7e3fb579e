"""Lazy package namespaces: a package lists which module holds each public name, and a name's
module is imported on first access (``import taor`` stays free of I/O and heavy imports)."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # importing typing would cost more than this whole module
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def exports(
    package: str, modules: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__`` for the names ``modules`` lists."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(where)

    return __getattr__, __dir__
