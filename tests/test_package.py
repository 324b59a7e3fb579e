import ast
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import taor
import taor.llm
import taor.testing

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


def test_public_api_is_curated() -> None:
    assert set(taor.__all__) == {
        "__version__",
        "AuthenticationError",
        "ConfigurationError",
        "ContentFilteredError",
        "ContextLengthError",
        "IdleTimeoutError",
        "InvalidRequestError",
        "ModelNotFoundError",
        "NetworkError",
        "OverloadedError",
        "PermissionDeniedError",
        "ProviderError",
        "QuotaExhaustedError",
        "RateLimitError",
        "ServerError",
        "SessionClosedError",
        "SessionError",
        "StreamInterruptedError",
        "TaorError",
        "TranscriptError",
        "Decision",
        "Hooks",
        "Limits",
        "PermissionConfig",
        "RunResult",
        "Session",
        "SessionConfig",
        "ImagePart",
        "Message",
        "Model",
        "Request",
        "Response",
        "RetryPolicy",
        "TextPart",
        "ThinkingPart",
        "Timeouts",
        "ToolCallPart",
        "ToolChoice",
        "ToolDefinition",
        "ToolResultPart",
        "Usage",
        "complete",
        "connect",
        "tool_result",
    }
    for name in taor.__all__:
        assert getattr(taor, name) is not None
    for module in (taor.llm, taor.testing):
        assert all(hasattr(module, name) for name in module.__all__)


def test_cli_prints_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "taor.cli"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"taor {taor.__version__}"
