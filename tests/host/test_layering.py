"""``taor.host`` lies under every front end: none of its modules imports ``taor.cli``, at the
top or inside a function (read from the source, so an import only a code path reaches counts)."""

from __future__ import annotations

import ast
from pathlib import Path

import taor.host

HOST = Path(taor.host.__file__).parent
FRONT_ENDS = ("taor.cli",)


def package_of(path: Path) -> str:
    return ".".join(("taor", *path.relative_to(HOST.parent).with_suffix("").parts[:-1]))


def imported_names(source: str, package: str) -> list[str]:
    """Every module an ``import``, a ``from ... import`` or an ``import_module("...")`` in
    ``source`` (a module of ``package``) names, wherever it is in the file."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found += [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append(str(node.args[0].value))
    return found


def is_front_end(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FRONT_ENDS)


def test_no_host_module_imports_a_front_end() -> None:
    modules = sorted(HOST.rglob("*.py"))
    assert len(modules) > 10  # the walk found the package
    wrong = {
        str(path.relative_to(HOST.parent)): name
        for path in modules
        for name in imported_names(path.read_text(encoding="utf-8"), package_of(path))
        if is_front_end(name)
    }
    assert wrong == {}


def test_the_check_sees_imports_inside_functions_and_relative_ones() -> None:
    sample = (
        "def late():\n    from taor.cli.args import parse\n\n"
        "def relative():\n    from ... import cli\n\n"
        "def dynamic():\n    importlib.import_module('taor.cli.render')\n"
    )
    names = imported_names(sample, "taor.host.settings")
    assert [n for n in names if is_front_end(n)] == [
        "taor.cli.args",
        "taor.cli.args.parse",
        "taor.cli",
        "taor.cli.render",
    ]
