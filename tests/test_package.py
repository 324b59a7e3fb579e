import ast
import importlib
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from types import ModuleType

import pytest

from taor._lazy import typing_imports

HEAVY = ("anthropic", "openai", "google", "httpx2", "pydantic", "jsonschema", "tenacity")


def imported_after(statement: str) -> set[str]:
    code = f"{statement}; import sys; print(' '.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return {name.split(".")[0] for name in out.split()}


def test_import_taor_imports_no_sdk_and_does_nothing_heavy() -> None:
    assert not imported_after("import taor") & set(HEAVY)


def test_taor_llm_imports_no_provider_sdk() -> None:
    assert not imported_after("import taor.llm") & {"anthropic", "openai", "google"}


# Dependencies that are used other than by an import: ripgrep ships the rg binary grep runs.
USED_WITHOUT_IMPORT = {"ripgrep"}


def _top_level_imports(package: Path) -> set[str]:
    names: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_every_declared_dependency_is_used() -> None:
    """Each runtime dependency in pyproject.toml is imported by the package (or is a binary it
    runs): a dependency nothing uses is only weight and attack surface for every install."""
    root = Path(__file__).parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    declared = {
        re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0].lower() for spec in project["dependencies"]
    }
    distributions = packages_distributions()
    imported = {
        dist.lower()
        for name in _top_level_imports(root / "src" / "taor")
        for dist in distributions.get(name, [])
    }
    assert declared - imported - USED_WITHOUT_IMPORT == set()


PACKAGES = ("taor", "taor.agent", "taor.env", "taor.llm", "taor.testing", "taor.tools")


def _ruff_order(name: str) -> tuple[int, str]:
    """The order ruff keeps ``__all__`` in: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def _imported_names(module: ModuleType) -> dict[str, str]:
    """The public names an ``__init__`` imports (under ``if TYPE_CHECKING`` too), each with
    the module it comes from."""
    tree = ast.parse(Path(module.__file__ or "").read_text())
    return {
        alias.asname or alias.name: node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.startswith("taor")
        and node.module != "taor._lazy"  # the machinery of a lazy namespace, not an export
        for alias in node.names
        if not (alias.asname or alias.name).startswith("_")
    }


@pytest.mark.parametrize("name", PACKAGES)
def test_each_package_exports_exactly_what_it_imports_sorted(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported, key=_ruff_order), "keep __all__ sorted"
    assert len(set(exported)) == len(exported)
    assert set(_imported_names(module)) == set(exported) - {"__version__"}
    for export in exported:
        value = getattr(module, export)
        assert not isinstance(value, ModuleType), f"{name}.{export} is a module"


@pytest.mark.parametrize("name", ["taor", "taor.env"])
def test_a_lazy_package_loads_each_name_from_the_module_its_type_imports_name(name: str) -> None:
    package = importlib.import_module(name)
    where = typing_imports(package.__file__ or "")
    assert sorted(where) == sorted(package.__all__) == sorted(dir(package))
    for export, source in where.items():
        assert getattr(package, export) is getattr(importlib.import_module(source), export)


def test_importing_a_lazy_package_reads_no_file() -> None:
    """Its names are read from its source at the first one asked for, not at import."""
    code = (
        "import builtins, io; opened = []; real = io.open\n"
        "builtins.open = lambda f, *a, **k: (opened.append(str(f)), real(f, *a, **k))[1]\n"
        "import taor, taor.env; print(len(opened)); taor.Session; print(len(opened))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "1"]


def test_taor_tools_is_enough_to_write_a_tool() -> None:
    import taor.tools

    @taor.tools.tool
    async def shout(text: str) -> str:
        """Say it louder."""
        return text.upper()

    registry = taor.tools.ToolRegistry([shout])
    assert isinstance(shout, taor.tools.Tool) and registry.get("shout") is shout
    assert taor.tools.ToolOutput.of("x").text == "x"


def test_importing_the_session_loads_no_sdk_and_no_schema_validator() -> None:
    """Both are loaded when used: the SDK by the first request, jsonschema by the first tool."""
    assert not imported_after("from taor import Session") & set(HEAVY)


def test_a_session_with_every_profile_starts_without_importing_jsonschema() -> None:
    """Its tools' schemas are proved valid without it; validators compile at a tool's first call."""
    statement = (
        "from taor.agent import Session; from taor.testing import ScriptedModel; "
        "from taor.env import MemoryEnvironment; "
        "from taor.agent.profiles import PROFILE_IDS, profile_for; "
        "[Session(ScriptedModel([]), environment=MemoryEnvironment(), profile=profile_for(p)) "
        "for p in PROFILE_IDS]"
    )
    assert "jsonschema" not in imported_after(statement)


def _packages() -> list[str]:
    src = Path(__file__).parents[1] / "src"
    return sorted(
        ".".join(init.parent.relative_to(src).parts) for init in (src / "taor").rglob("__init__.py")
    )


@pytest.mark.parametrize("name", _packages())
def test_every_package_says_which_of_its_names_are_api(name: str) -> None:
    """Its ``__all__`` (an empty one: its modules are imported by name); each name is there."""
    module = importlib.import_module(name)
    exported = module.__all__
    assert isinstance(exported, list | tuple)
    for export in exported:
        assert hasattr(module, export), f"{name}.__all__ names {export!r}, which it lacks"


@pytest.mark.parametrize("name", ["taor", "taor.env"])
def test_a_lazy_package_re_exports_its_names_for_type_checkers(name: str) -> None:
    """``from taor import Session`` type-checks under ``mypy --strict`` (and pyright): each
    name of the ``TYPE_CHECKING`` block is imported ``as`` itself, the explicit re-export."""
    tree = ast.parse(Path(importlib.import_module(name).__file__ or "").read_text())
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
    )
    bare = [
        alias.name
        for node in block.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("taor")
        for alias in node.names
        if alias.asname != alias.name
    ]
    assert not bare, f"not re-exported for type checkers: {bare}"
