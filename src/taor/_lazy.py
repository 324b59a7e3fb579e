"""Lazy package namespaces: a package's public names are written once, as the imports of its
``if TYPE_CHECKING:`` block (which type checkers read; each ``name as name``, the explicit
re-export that ``mypy --strict`` and pyright ask for); at run time a name's module is imported
on first access (``import taor`` stays free of I/O and heavy imports).

``exports(__name__, __file__)`` gives the package its ``__getattr__`` and ``__dir__``; on the
first name asked for (``__all__`` included) they read that block from the package's source,
once, to learn which module holds each name.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # importing typing would cost more than this whole module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def exports(package: str, source: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__`` for the names its ``TYPE_CHECKING``
    imports name (``source``: the package's ``__init__.py``); ``__all__`` is all of them."""
    where: dict[str, str] = {}

    def names() -> dict[str, str]:
        if not where:
            where.update(typing_imports(source))
        return where

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            return sorted(names(), key=_ruff_order)
        module = names().get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(names(), key=_ruff_order)

    return __getattr__, __dir__


def _ruff_order(name: str) -> tuple[int, str]:
    """The order ruff keeps ``__all__`` in: CONSTANTS, then Classes, then the rest."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def typing_imports(source: str) -> dict[str, str]:
    """Name -> module, for each ``from taor... import name`` in the ``if TYPE_CHECKING:`` block
    of the module at ``source``."""
    import ast

    with open(source, encoding="utf-8") as file:
        tree = ast.parse(file.read())
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for child in node.body:
                if isinstance(child, ast.ImportFrom) and (child.module or "").startswith("taor"):
                    for alias in child.names:
                        found[alias.asname or alias.name] = child.module or ""
    return found
