"""Every error taor raises to its caller, in one hierarchy.

    TaorError
    ├── ConfigurationError            bad model string, missing key, invalid tool definition or
    │                                     limit (also a ValueError)
    ├── SessionError                  misuse of a Session (also a ValueError)
    │   ├── InputTooLargeError        an input bigger than the model's context window (sent
    │   │                                 as an ``error`` event; it is not recorded)
    │   ├── SessionClosedError        a command sent to a closed session
    │   └── UnknownIdError            no such agent or pending permission request (also a
    │                                     KeyError)
    ├── TranscriptError               a transcript file that cannot be read, written or continued
    ├── ServiceError                  the taor service refused a request (its HTTP status and
    │   │                                 message) or could not be reached (no status)
    │   ├── ServiceAuthError          401: the service's token is missing, wrong or revoked
    │   ├── ServiceNotFoundError      404: no such run (or not one of the token's user)
    │   ├── ServiceConflictError      409: the command does not apply to the run in its state
    │   └── ServiceBusyError          429: a quota or the queue is full (retry_after)
    ├── EnvError                      an environment operation failed (taor.env)
    │   ├── PathPolicyError           a path outside the workspace and the allowed roots
    │   └── PathNotFoundError         no such path, or a file where a directory is needed
    ├── ToolError                     a tool failed in a way the model can act on; returned to
    │   │                                 the model as an error result, not raised to the host
    │   ├── EditError                 an edit that cannot be applied (also a ValueError)
    │   └── PatchError                an apply_patch failure (also a ValueError)
    │       ├── PatchParseError       the patch breaks the grammar
    │       └── PatchApplyError       the patch does not fit the files
    └── ProviderError                 a model call failed (provider, status, request id,
        │                                 retryable, raw body)
        ├── AuthenticationError       401: the key is missing, wrong or revoked
        ├── PermissionDeniedError     403: the key may not use this model or feature
        ├── ModelNotFoundError        404: no such model (or endpoint)
        ├── InvalidRequestError       400 / 413 / 422: the request itself is wrong
        │   └── ContextLengthError    the prompt does not fit the model's context window
        ├── ContentFilteredError      the provider refused or cut the output for safety
        ├── QuotaExhaustedError       billing quota used up (not retryable, unlike a 429)
        ├── RateLimitError            429: slow down (retry_after when the provider says)
        ├── OverloadedError           Anthropic 529 and friends: try again soon
        ├── ServerError               5xx
        │   └── MalformedToolCallError  the server could not parse the tool call the model wrote
        ├── NetworkError              connection refused, reset, DNS, TLS
        ├── IdleTimeoutError          no bytes from the provider for too long
        └── StreamInterruptedError    the stream broke after some of it was received

Errors that a tool returns to the model are data, not exceptions: a tool raises ``ToolError``
(or an environment ``EnvError``) and the registry turns it into an error result. The tool and
patch errors are defined with their tools and re-parented here.
Retryable by default: RateLimit, Overloaded, Server (not MalformedToolCall), Network, IdleTimeout,
StreamInterrupted.
"""

from __future__ import annotations

from typing import Any


class TaorError(Exception):
    """Base of every error taor raises."""


class ConfigurationError(TaorError, ValueError):
    """The caller configured something that cannot work; the message says how to fix it."""


class SessionError(TaorError, ValueError):
    """A ``Session`` was used in a way it cannot honour; the message says what to do instead."""


class InputTooLargeError(SessionError):
    """An input that cannot fit the model's context window, whatever is compacted."""


class SessionClosedError(SessionError):
    """The session is closed; open a new one (or reopen it from its transcript)."""


class UnknownIdError(SessionError, KeyError):
    """No agent, or no pending permission request, has that id; the message lists what there is."""

    def __str__(self) -> str:  # a KeyError would quote its message
        return str(self.args[0]) if self.args else ""


class EnvError(TaorError):
    """A failure of an environment operation; the message tells the model what went wrong."""


class PathPolicyError(EnvError):
    """A path that resolves outside the workspace root and the explicitly allowed roots."""


class PathNotFoundError(EnvError):
    """A path that does not exist, or is a file where a directory is needed (or the reverse)."""


class ToolError(TaorError):
    """Raised by a tool for a failure the model can act on; the message is all it sees."""


class TranscriptError(TaorError):
    """A transcript that cannot be loaded or continued (not a torn last line: that is skipped)."""


class ServiceError(TaorError):
    """A request to the taor service (``taor.server.Client``) failed: ``status`` is the HTTP
    status it answered (None when it could not be reached), ``message`` what it said, and
    ``retry_after`` the seconds it asked to wait (a 429's ``Retry-After``)."""

    def __init__(
        self, message: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after

    def __str__(self) -> str:
        about = f"HTTP {self.status}" if self.status else "unreachable"
        wait = f"; retry after {self.retry_after:g} s" if self.retry_after is not None else ""
        return f"taor service ({about}): {self.message}{wait}"


class ServiceAuthError(ServiceError):
    """401: the token is missing, wrong or revoked (``taor serve token create`` makes one)."""


class ServiceNotFoundError(ServiceError):
    """404: no such run, or one of another user's (the service does not tell which)."""


class ServiceConflictError(ServiceError):
    """409: the command does not apply to the run in its state (the message names it)."""


class ServiceBusyError(ServiceError):
    """429: the user's quota of live runs, or the service's queue, is full; ``retry_after``."""


class ProviderError(TaorError):
    """A model call failed. ``retryable`` says whether the retry policy may try again.

    ``request_id`` is the provider's id of the failed request, when it gave one (Anthropic's
    ``request-id`` header, OpenAI's ``x-request-id``, the same header of an OpenAI-compatible
    server that sends it, Gemini's ``responseId`` of a stream that broke); the provider's
    support asks for it, so ``str(error)`` shows it."""

    default_retryable = False

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status: int | None = None,
        code: str | None = None,
        retryable: bool | None = None,
        retry_after: float | None = None,
        raw: Any = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status = status
        self.code = code
        self.retryable = self.default_retryable if retryable is None else retryable
        self.retry_after = retry_after
        self.raw = raw
        self.request_id = request_id

    def __str__(self) -> str:
        where = f"{self.provider} " if self.provider else ""
        facts = [f"HTTP {self.status}"] if self.status else []
        if self.request_id:
            facts.append(f"request id {self.request_id}")
        about = f" ({', '.join(facts)})" if facts else ""
        return f"{where}{type(self).__name__}{about}: {self.message}"


class AuthenticationError(ProviderError):
    pass


class PermissionDeniedError(ProviderError):
    pass


class ModelNotFoundError(ProviderError):
    pass


class InvalidRequestError(ProviderError):
    pass


class ContextLengthError(InvalidRequestError):
    pass


class ContentFilteredError(ProviderError):
    pass


class QuotaExhaustedError(ProviderError):
    pass


class RateLimitError(ProviderError):
    default_retryable = True


class OverloadedError(ProviderError):
    default_retryable = True


class ServerError(ProviderError):
    default_retryable = True


class MalformedToolCallError(ServerError):
    """The server failed on a tool call the model wrote: llama.cpp's HTTP 500 "Failed to parse
    tool call arguments as JSON" (newer builds: "The model produced output that does not match
    the expected ... format"). The same request would get the same call back, so the retry
    policy leaves it alone; a session asks again differently (``taor.agent.loop.stream``)."""

    default_retryable = False


class NetworkError(ProviderError):
    default_retryable = True


class IdleTimeoutError(ProviderError):
    default_retryable = True


class StreamInterruptedError(ProviderError):
    """The stream broke mid-way; ``received`` holds the events that arrived before the break."""

    default_retryable = True

    def __init__(self, message: str, *, received: tuple[Any, ...] = (), **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.received = received


def brief(message: str, limit: int = 300) -> str:
    """``message`` as one line of at most ``limit`` characters, for a person to read: an
    error's text can hold a whole response body or request (the log keeps those)."""
    line = " ".join(message.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
