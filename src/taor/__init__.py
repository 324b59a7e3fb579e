"""taor: Think, Act, Observe, Repeat. Coding-agent loops as a library, a command and a service.

Importing taor does nothing: no I/O, no provider SDK. Names are loaded on first access.
"""

from __future__ import annotations

from taor._lazy import exports
from taor._version import __version__

TYPE_CHECKING = False  # importing typing would be most of ``import taor``'s cost
if TYPE_CHECKING:
    from typing import Any

    from taor._version import __version__
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
        ServiceAuthError,
        ServiceBusyError,
        ServiceConflictError,
        ServiceError,
        ServiceNotFoundError,
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

# The imports above are the package's public names, written once: at run time each is
# imported from its module on first access (``taor._lazy``).
__getattr__, __dir__ = exports(__name__, __file__)
