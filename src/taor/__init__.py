"""taor: Think, Act, Observe, Repeat. Coding-agent loops as a library, a command and a service.

Importing taor does nothing: no I/O, no provider SDK. Names are loaded on first access.
"""

from __future__ import annotations

from taor._lazy import exports
from taor._version import __version__

TYPE_CHECKING = False  # importing typing would be most of ``import taor``'s cost
if TYPE_CHECKING:
    from typing import Any

    # Each ``name as name``: re-exported, for type checkers (ruff would split the groups).
    # isort: off
    from taor._version import __version__ as __version__
    from taor.agent import (
        Checkpoint as Checkpoint,
        Decision as Decision,
        Hooks as Hooks,
        Limits as Limits,
        PermissionConfig as PermissionConfig,
        RewindResult as RewindResult,
        RunResult as RunResult,
        Session as Session,
        SessionConfig as SessionConfig,
    )
    from taor.errors import (
        AuthenticationError as AuthenticationError,
        ConfigurationError as ConfigurationError,
        ContentFilteredError as ContentFilteredError,
        ContextLengthError as ContextLengthError,
        EnvError as EnvError,
        IdleTimeoutError as IdleTimeoutError,
        InvalidRequestError as InvalidRequestError,
        ModelNotFoundError as ModelNotFoundError,
        NetworkError as NetworkError,
        OverloadedError as OverloadedError,
        PathNotFoundError as PathNotFoundError,
        PathPolicyError as PathPolicyError,
        PermissionDeniedError as PermissionDeniedError,
        ProviderError as ProviderError,
        QuotaExhaustedError as QuotaExhaustedError,
        RateLimitError as RateLimitError,
        ServerError as ServerError,
        ServiceAuthError as ServiceAuthError,
        ServiceBusyError as ServiceBusyError,
        ServiceConflictError as ServiceConflictError,
        ServiceError as ServiceError,
        ServiceNotFoundError as ServiceNotFoundError,
        SessionClosedError as SessionClosedError,
        SessionError as SessionError,
        StreamInterruptedError as StreamInterruptedError,
        TaorError as TaorError,
        ToolError as ToolError,
        TranscriptError as TranscriptError,
        UnknownIdError as UnknownIdError,
    )
    from taor.llm import (
        ImagePart as ImagePart,
        Message as Message,
        Model as Model,
        Request as Request,
        Response as Response,
        RetryPolicy as RetryPolicy,
        ServerToolPart as ServerToolPart,
        TextPart as TextPart,
        ThinkingPart as ThinkingPart,
        Timeouts as Timeouts,
        ToolCallPart as ToolCallPart,
        ToolChoice as ToolChoice,
        ToolDefinition as ToolDefinition,
        ToolResultPart as ToolResultPart,
        Usage as Usage,
        complete as complete,
        connect as connect,
        tool_result as tool_result,
    )
    # isort: on

# The imports above are the package's public names, written once: at run time each is
# imported from its module on first access (``taor._lazy``).
__getattr__, __dir__ = exports(__name__, __file__)
