"""taor: Think, Act, Observe, Repeat. Coding-agent loops as a library, a command and a service.

Importing taor does nothing: no I/O, no provider SDK. Names are loaded on first access.
"""

from __future__ import annotations

from taor._lazy import exports
from taor._version import __version__

TYPE_CHECKING = False  # importing typing would be most of ``import taor``'s cost
if TYPE_CHECKING:
    from typing import Any

    from taor.agent import (
        Checkpoint,
        Decision,
        Hooks,
        Limits,
        PermissionConfig,
        RewindResult,
        RunResult,
        Session,
        SessionConfig,
    )
    from taor.errors import (
        AuthenticationError,
        ConfigurationError,
        ContentFilteredError,
        ContextLengthError,
        EnvError,
        IdleTimeoutError,
        InvalidRequestError,
        ModelNotFoundError,
        NetworkError,
        OverloadedError,
        PathNotFoundError,
        PathPolicyError,
        PermissionDeniedError,
        ProviderError,
        QuotaExhaustedError,
        RateLimitError,
        ServerError,
        SessionClosedError,
        SessionError,
        StreamInterruptedError,
        TaorError,
        ToolError,
        TranscriptError,
        UnknownIdError,
    )
    from taor.llm import (
        ImagePart,
        Message,
        Model,
        Request,
        Response,
        RetryPolicy,
        ServerToolPart,
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

# What ``taor`` exports, by the module that defines it; loaded on first access. The imports
# above say the same for type checkers, and a test holds the two together.
_EXPORTS = {
    "taor.agent": (
        "Checkpoint",
        "Decision",
        "Hooks",
        "Limits",
        "PermissionConfig",
        "RewindResult",
        "RunResult",
        "Session",
        "SessionConfig",
    ),
    "taor.errors": (
        "AuthenticationError",
        "ConfigurationError",
        "ContentFilteredError",
        "ContextLengthError",
        "EnvError",
        "IdleTimeoutError",
        "InvalidRequestError",
        "ModelNotFoundError",
        "NetworkError",
        "OverloadedError",
        "PathNotFoundError",
        "PathPolicyError",
        "PermissionDeniedError",
        "ProviderError",
        "QuotaExhaustedError",
        "RateLimitError",
        "ServerError",
        "SessionClosedError",
        "SessionError",
        "StreamInterruptedError",
        "TaorError",
        "ToolError",
        "TranscriptError",
        "UnknownIdError",
    ),
    "taor.llm": (
        "ImagePart",
        "Message",
        "Model",
        "Request",
        "Response",
        "RetryPolicy",
        "ServerToolPart",
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
    ),
}
__getattr__, _dir = exports("taor", _EXPORTS)
__all__ = sorted(["__version__", *_dir()])


def __dir__() -> list[str]:
    return __all__
