import subprocess
import sys

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
