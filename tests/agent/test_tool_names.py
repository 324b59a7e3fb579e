"""No built-in tool is known by its name in ``taor.agent``: what a call does is what its tool
declares (``taor.tools.effects``), read through ``ToolRegistry.prepare``. The names come from
the built-in tools themselves."""

from __future__ import annotations

import ast
from pathlib import Path

import taor.agent
from taor.tools.builtin import builtin_tools

AGENT = Path(taor.agent.__file__).parent


def _argument_names() -> set[str]:
    """Every argument name of a built-in tool (``glob`` is grep's argument as well as a tool)."""
    return {key for t in builtin_tools() for key in t.parameters.get("properties", {})}


def _literals_in_dicts(tree: ast.AST) -> set[int]:
    """The ids of string constants that are keys or values of a dict literal (schemas and
    argument renames name arguments, not tools)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found.update(id(n) for n in (*node.keys, *node.values) if isinstance(n, ast.Constant))
    return found


def _tool_names_in(path: Path, names: set[str], arguments: set[str]) -> list[str]:
    """``line: 'name'`` for each built-in tool name written in the module at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_dicts = _literals_in_dicts(tree)
    constants = [n for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    return [
        f"{node.lineno}: {node.value!r}"
        for node in sorted(constants, key=lambda n: (n.lineno, n.col_offset))
        if node.value in names and not (node.value in arguments and id(node) in in_dicts)
    ]


def test_no_builtin_tool_name_is_written_in_the_agent_package() -> None:
    names = {t.name for t in builtin_tools()}
    assert {"read_file", "shell", "apply_patch", "take_screenshot"} <= names
    arguments = _argument_names()
    found = [
        f"{path.relative_to(AGENT.parent)}:{hit}"
        for path in sorted(AGENT.rglob("*.py"))
        for hit in _tool_names_in(path, names, arguments)
    ]
    assert found == []


def test_the_check_sees_a_name_where_one_is_written(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(
        'EDITS = frozenset({"write_file"})\nSCHEMA = {"glob": 1}\nRENAME = {"include": "glob"}\n'
        'if name == "glob":\n    pass\n'
    )
    hits = _tool_names_in(module, {"write_file", "glob"}, _argument_names())
    assert hits == ["1: 'write_file'", "4: 'glob'"]
