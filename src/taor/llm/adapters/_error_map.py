"""The one exception mapper: HTTP statuses, error bodies and transport exceptions of every
provider become ``taor.errors`` classes, each with the provider's request id when it gave one."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from typing import Any

from taor import errors as e
from taor.llm.adapters import _wire as w
from taor.llm.retry import parse_retry_after

# What an error's words say, searched case-blind (compiled at the first error, not at import).
_CONTEXT = (
    r"context.{0,12}(length|window)|too many tokens|prompt is too long|maximum context"
    r"|input is too long|exceeds the (maximum|context)|token count .* exceeds|input token count"
)
_FILTER = r"content.?filter|safety|blocked|prohibited content"
_QUOTA = r"insufficient_quota|quota.*(exceeded|exhausted)|billing|credit balance"
_OVERLOADED = r"overloaded"
# llama.cpp's server, older and newer: the model's tool call (or reply) did not parse.
_MALFORMED_CALL = r"failed to parse tool call|produced output that does not match the expected"


def _says(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.IGNORECASE) is not None


# Error "type" strings providers put in bodies and in-stream error events.
_TYPES: dict[str, type[e.ProviderError]] = {
    "authentication_error": e.AuthenticationError,
    "invalid_api_key": e.AuthenticationError,
    "unauthenticated": e.AuthenticationError,
    "permission_error": e.PermissionDeniedError,
    "permission_denied": e.PermissionDeniedError,
    "not_found_error": e.ModelNotFoundError,
    "model_not_found": e.ModelNotFoundError,
    "not_found": e.ModelNotFoundError,
    "rate_limit_error": e.RateLimitError,
    "rate_limit_exceeded": e.RateLimitError,
    "resource_exhausted": e.RateLimitError,
    "insufficient_quota": e.QuotaExhaustedError,
    "billing_error": e.QuotaExhaustedError,
    "overloaded_error": e.OverloadedError,
    "unavailable": e.OverloadedError,
    "api_error": e.ServerError,
    "server_error": e.ServerError,
    "internal": e.ServerError,
    "timeout_error": e.ServerError,
    "context_length_exceeded": e.ContextLengthError,
    "exceed_context_size_error": e.ContextLengthError,  # llama.cpp server
    "invalid_request_error": e.InvalidRequestError,
    "invalid_argument": e.InvalidRequestError,
    "request_too_large": e.InvalidRequestError,
    "failed_precondition": e.InvalidRequestError,
}

_STATUS: dict[int, type[e.ProviderError]] = {
    400: e.InvalidRequestError,
    401: e.AuthenticationError,
    402: e.QuotaExhaustedError,
    403: e.PermissionDeniedError,
    404: e.ModelNotFoundError,
    408: e.ServerError,
    409: e.ServerError,
    413: e.InvalidRequestError,
    422: e.InvalidRequestError,
    429: e.RateLimitError,
    529: e.OverloadedError,
}
_GENERIC = (e.InvalidRequestError, e.ServerError)

# Where providers put the id of a request: Anthropic ``request-id``; OpenAI, and the
# OpenAI-compatible servers that send one (vLLM, proxies), ``x-request-id``.
REQUEST_ID_HEADERS = ("request-id", "x-request-id")


def request_id_of(headers: Mapping[str, str] | None) -> str | None:
    """The request id in response headers (keys lower-case, or an httpx ``Headers``)."""
    for name in REQUEST_ID_HEADERS if headers else ():
        value = headers.get(name) if headers else None
        if value:
            return value
    return None


def _status_class(status: int | None) -> type[e.ProviderError] | None:
    if status is None or status < 400:
        return None
    return _STATUS.get(status) or (e.ServerError if status >= 500 else e.InvalidRequestError)


def classify(
    provider: str,
    *,
    status: int | None,
    message: str,
    code: str | None = None,
    retry_after: float | None = None,
    raw: Any = None,
    request_id: str | None = None,
) -> e.ProviderError:
    """One rule for every provider: the error type string first, then the status, then the
    message text refines it (context length, content filter, quota, overloaded)."""
    by_type = _TYPES.get((code or "").lower())
    by_status = _status_class(status)
    cls = by_type or by_status or e.ServerError
    if by_type in _GENERIC and by_status is not None and by_status not in _GENERIC:
        cls = by_status  # e.g. OpenAI's 403s say invalid_request_error, Ollama's 429s api_error
    text = f"{code or ''} {message}"
    if issubclass(cls, e.InvalidRequestError) and _says(_CONTEXT, text):
        cls = e.ContextLengthError
    elif issubclass(cls, e.InvalidRequestError) and _says(_FILTER, text):
        cls = e.ContentFilteredError
    elif cls in (e.RateLimitError, e.InvalidRequestError) and _says(_QUOTA, text):
        cls = e.QuotaExhaustedError
    elif cls is e.ServerError and _says(_OVERLOADED, text):
        cls = e.OverloadedError
    elif cls is e.ServerError and _says(_MALFORMED_CALL, text):
        cls = e.MalformedToolCallError
    return cls(
        message or f"HTTP {status}",
        provider=provider,
        status=status,
        code=code,
        retry_after=retry_after if cls is not e.QuotaExhaustedError else None,
        raw=raw,
        request_id=request_id,
    )


def error_from_body(
    provider: str, status: int | None, body: Any, headers: Mapping[str, str] | None = None
) -> e.ProviderError:
    """Classify an error response body of any of the providers' shapes."""
    message, code = _message_and_code(body)
    retry_after = parse_retry_after((headers or {}).get("retry-after"))
    return classify(
        provider,
        status=status,
        message=message,
        code=code,
        retry_after=retry_after,
        raw=body,
        request_id=request_id_of(headers),
    )


def _message_and_code(body: Any) -> tuple[str, str | None]:
    if isinstance(body, list) and body:  # Gemini streams errors as a one-element array
        body = body[0]
    if isinstance(body, (bytes, str)):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        try:
            body = json.loads(text)
        except ValueError:
            return text.strip()[:2000], None
    if not isinstance(body, dict):
        return str(body)[:2000], None
    err = body.get("error", body)
    if not isinstance(err, dict):
        return str(err), None
    code = err.get("code") if isinstance(err.get("code"), str) else None
    code = code or err.get("type") or err.get("status")
    return str(err.get("message") or ""), code if isinstance(code, str) else None


def map_exception(
    provider: str, exc: BaseException, *, request_id: str | None = None
) -> e.ProviderError:
    """Map a transport exception (taor's ``_wire`` errors, or httpx2's when a request went
    through httpx2; an error status is already a taor error: ``RawClient`` classifies the
    body) to taor's hierarchy. Every error leaves with the provider's request id when there is
    one: from the response the exception carries, else ``request_id`` (that of the response
    whose stream broke). A ``ProviderError`` is returned as it is, its request id filled in
    when it had none."""
    error = exc if isinstance(exc, e.ProviderError) else _mapped(provider, exc)
    if error.request_id is None:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        error.request_id = request_id_of(headers) or request_id
    return error


def transport_kind(exc: BaseException) -> str | None:
    """``"connect_timeout"``, ``"idle_timeout"``, ``"broken"`` (the connection broke while a
    response was read), ``"network"`` (any other failure to exchange), or None: not an error
    of the transport."""
    httpx2 = sys.modules.get("httpx2")  # its errors exist only once something imported it
    timeouts: tuple[type[BaseException], ...] = (w.Timeout,)
    broken: tuple[type[BaseException], ...] = (w.ReadError,)
    network: tuple[type[BaseException], ...] = (w.TransportError,)
    if httpx2 is not None:
        timeouts += (httpx2.TimeoutException,)
        broken += (httpx2.RemoteProtocolError, httpx2.ReadError)
        network += (httpx2.TransportError,)
    name = type(exc).__name__
    if isinstance(exc, timeouts) or "Timeout" in name:
        connect = "ConnectTimeout" in name or "Connect" in str(exc)
        return "connect_timeout" if connect else "idle_timeout"
    if isinstance(exc, broken):
        return "broken"
    if isinstance(exc, network) or "Connection" in name:
        return "network"
    return None


def http_errors() -> tuple[type[BaseException], ...]:
    """The errors of an HTTP exchange (transport, or a body that does not decode): taor's
    client's, and httpx2's once something imported it."""
    httpx2 = sys.modules.get("httpx2")
    extra = (httpx2.HTTPError, httpx2.StreamError) if httpx2 is not None else ()
    return (w.HttpError, *extra)


def _mapped(provider: str, exc: BaseException) -> e.ProviderError:
    kind = transport_kind(exc)
    if kind == "connect_timeout":
        return e.NetworkError(f"connection timed out: {exc}", provider=provider)
    if kind == "idle_timeout":
        return e.IdleTimeoutError(f"no data from the provider in time: {exc}", provider=provider)
    if kind == "broken":
        return e.StreamInterruptedError(f"the connection broke: {exc}", provider=provider)
    if kind == "network":
        return network_error(provider, exc)
    name = type(exc).__name__
    return e.ServerError(f"{name}: {exc}", provider=provider, retryable=False, raw=repr(exc))


def network_error(provider: str, exc: BaseException) -> e.NetworkError:
    """No answer at all, with the URL it was asked at. A refused connection to this machine
    (a local server that is not running) is not retried: it fails the same way a second later,
    and the person wants to hear it now."""
    url = _url_of(exc)
    where = f" at {url}" if url else ""
    refused = _refused(exc) and _loopback(url)
    cause = "connection refused (is the server running?)" if refused else str(exc)
    message = f"cannot reach the provider{where}: {cause}"
    return e.NetworkError(message, provider=provider, retryable=False if refused else None)


def _url_of(exc: BaseException) -> str:
    """The URL of the request that failed (without its query, which may hold a key)."""
    for error in _chain(exc):
        if isinstance(error, w.HttpError):
            return error.url
        try:
            request = getattr(error, "request", None)
        except RuntimeError:  # httpx raises when the error has no request
            continue
        url = getattr(request, "url", None)
        if url is not None:
            return str(url).split("?", 1)[0]
    return ""


def _refused(exc: BaseException) -> bool:
    return any(
        isinstance(error, ConnectionRefusedError) or "Connection refused" in str(error)
        for error in _chain(exc)
    )


def _loopback(url: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the errors it was raised from, outermost first."""
    seen: list[BaseException] = []
    error: BaseException | None = exc
    while error is not None and error not in seen and len(seen) < 10:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen
