"""taor: Think, Act, Observe, Repeat. Coding-agent loops as a library, a command and a service.

Importing taor does nothing: no I/O, no provider SDK. Names are loaded on first access.
"""

from __future__ import annotations

import importlib

from taor._version import __version__

TYPE_CHECKING = False  # importing typing would be most of ``import taor``'s cost
if TYPE_CHECKING:
    from typing import Any

    from taor.agent import (
        Decision,
        Hooks,
        Limits,
        PermissionConfig,
        RunResult,
        Session,
        SessionConfig,
    )
    from taor.errors import (
        AuthenticationError,
        ConfigurationError,
        ContentFilteredError,
        ContextLengthError,
        IdleTimeoutError,
        InvalidRequestError,
        ModelNotFoundError,
        NetworkError,
        OverloadedError,
        PermissionDeniedError,
        ProviderError,
        QuotaExhaustedError,
        RateLimitError,
        ServerError,
        SessionClosedError,
        SessionError,
        StreamInterruptedError,
        TaorError,
        TranscriptError,
    )
    from taor.llm import (
        ImagePart,
        Message,
        Model,
        Request,
        Response,
        RetryPolicy,
        TextPart,
        ThinkingPart,
        Timeouts,
        ToolCallPart,
        ToolChoice,
        ToolDefinition,
        ToolResultPart,
        Usage,
        complete,
        connect,
        tool_result,
    )

_ERRORS = (
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
)
_LLM = (
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
)
_AGENT = (
    "Decision",
    "Hooks",
    "Limits",
    "PermissionConfig",
    "RunResult",
    "Session",
    "SessionConfig",
)
_WHERE = {
    **dict.fromkeys(_ERRORS, "taor.errors"),
    **dict.fromkeys(_LLM, "taor.llm"),
    **dict.fromkeys(_AGENT, "taor.agent"),
}

__all__ = ["__version__", *_ERRORS, *_LLM, *_AGENT]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'taor' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(__all__)
