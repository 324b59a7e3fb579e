"""The layering of DESIGN §1, held against every import in ``src/taor`` (those inside functions
too): a package imports only from the packages above it, no two parts of ``taor.agent`` import
each other (directly or through others), no import circle joins any modules, only the turn loop
and the session hold the whole ``Runtime``, and no seam of the agent is probed by name. Imports for type checkers only
(``if TYPE_CHECKING:``) count for the layering, not for circles: they never run."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# Each layer may import the layers listed before it (and itself); never one after it.
# ``taor.errors``, ``taor._*`` and ``taor`` itself sit under every layer.
LAYERS = ("llm", "env", "tools", "agent", "host", "build", "voice")
FRONT_ENDS = ("cli", "server", "mcp_server")
BASE = ("errors", "_lazy", "_private", "_records", "_version")


@cache
def imports(*, typing: bool = True) -> dict[str, set[str]]:
    """Module name -> the taor modules it imports, anywhere in its code (and, with ``typing``,
    in its ``if TYPE_CHECKING:`` blocks)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((SRC / "taor").rglob("*.py")):
        name = _module_name(path)
        tree = ast.parse(path.read_text())
        if not typing:
            _drop_type_checking_blocks(tree)
        graph[name] = set(_imported(name, path, tree))
    return graph


def _drop_type_checking_blocks(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                block[:] = [
                    child
                    for child in block
                    if not (
                        isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
                    )
                ]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(name: str, path: Path, tree: ast.AST) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("taor"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.startswith("taor"):
                yield base
                yield from (f"{base}.{alias.name}" for alias in node.names)


def _existing(module: str) -> str | None:
    """The module ``module`` names, or its package when it names an attribute."""
    graph = imports()
    while module and module not in graph:
        module = module.rpartition(".")[0]
    return module or None


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _edges(*, typing: bool = True) -> Iterator[tuple[str, str]]:
    for source, targets in imports(typing=typing).items():
        for target in targets:
            found = _existing(target)
            if found is not None and found != source:
                yield source, found


def test_a_layer_imports_only_the_layers_above_it() -> None:
    wrong = [f"{source} -> {target}" for source, target in _edges() if _against(source, target)]
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def _against(source: str, target: str) -> bool:
    here, there = _layer(source), _layer(target)
    if there in BASE or there == "" or here == there or here in ("testing", "__main__"):
        return False
    if here in BASE or there in FRONT_ENDS or there == "testing":
        return True
    return here in LAYERS and LAYERS.index(there) > LAYERS.index(here)


def test_no_two_sub_packages_of_the_agent_import_each_other() -> None:
    between: set[tuple[str, str]] = set()
    for source, target in _edges():
        a, b = _agent_room(source), _agent_room(target)
        if a and b and a != b:
            between.add((a, b))
    both = sorted(f"{a} <-> {b}" for a, b in between if (b, a) in between and a < b)
    assert not both, "agent sub-packages that import each other:\n" + "\n".join(both)


def _agent_room(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) < 3 or parts[1] != "agent":
        return None
    return parts[2] if (SRC / "taor" / "agent" / parts[2]).is_dir() else None


def test_no_import_circle() -> None:
    """No module reaches itself through imports, the ones inside functions included. A
    package's ``__init__`` that re-exports its own modules is its face, not a circle."""
    graph: dict[str, set[str]] = {}
    for source, target in _edges(typing=False):
        if target == _package(source) or _package(target) == source:
            continue
        graph.setdefault(source, set()).add(target)
    circles = [" -> ".join(c) for c in _circles(graph)]
    assert not circles, "import circles:\n" + "\n".join(circles)


def _package(module: str) -> str:
    path = SRC / Path(*module.split("."))
    return module if path.is_dir() else module.rpartition(".")[0]


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _agent_part(module: str) -> str | None:
    """The part of ``taor.agent`` a module is in: its sub-package, or itself at the top."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "agent" else None


def test_no_parts_of_the_agent_import_each_other_through_others_either() -> None:
    """Sub-packages and top-level modules of ``taor.agent`` as nodes: no circle through any of
    them (imports for type checkers aside: they never run)."""
    graph: dict[str, set[str]] = {}
    for source, target in _edges(typing=False):
        a, b = _agent_part(source), _agent_part(target)
        if a and b and a != b:
            graph.setdefault(a, set()).add(b)
    circles = [" -> ".join(c) for c in _circles(graph)]
    assert not circles, "parts of the agent in a circle:\n" + "\n".join(circles)


# What holds the whole ``Runtime``: the turn loop, the session's lifecycle and the session
# itself. Every other step takes the parts it reads and writes (``taor.agent.parts``).
HOLD_THE_RUNTIME = {
    "taor.agent.control",
    "taor.agent.driver",
    "taor.agent.lifecycle",
    "taor.agent.loop.cycle",
    "taor.agent.reports",
    "taor.agent.runtime",
    "taor.agent.session",
    "taor.agent.session_like",  # its state's names
}


def test_only_the_loop_and_the_session_take_the_whole_runtime() -> None:
    takers = {
        source
        for source, target in _edges()
        if target == "taor.agent.runtime" and source.startswith("taor.agent")
    }
    assert takers <= HOLD_THE_RUNTIME, (
        f"steps that take the whole Runtime: {takers - HOLD_THE_RUNTIME}"
    )


def test_seams_are_declared_not_probed() -> None:
    """No ``getattr``/``hasattr`` of a named attribute in ``taor.agent``: what a collaborator
    offers is a declared protocol (``isinstance`` against a ``runtime_checkable`` one when it
    may be absent), never probed by name."""
    probed = []
    for path in sorted((SRC / "taor" / "agent").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and not str(node.args[1].value).startswith("__")  # a Python dunder
            ):
                probed.append(f"{_module_name(path)}:{node.lineno}: {ast.unparse(node)}")
    assert not probed, "seams probed by name:\n" + "\n".join(probed)
