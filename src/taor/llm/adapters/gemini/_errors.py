"""Gemini error bodies (``{"error": {code, message, status, details}}``) as taor errors: a
``RetryInfo`` delay counts as a Retry-After, a per-day ``QuotaFailure`` exhausts the quota, and
an ``ErrorInfo`` reason ``API_KEY_INVALID`` (sent with HTTP 400) is an authentication error."""

from __future__ import annotations

import json
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from taor import errors as e
from taor.llm.adapters._error_map import classify, request_id_of
from taor.llm.retry import parse_retry_after

_BAD_KEY = frozenset({"API_KEY_INVALID", "API_KEY_EXPIRED"})


def error_response(
    provider: str, status: int, body: bytes, headers: Mapping[str, str]
) -> e.ProviderError:
    """An error response as ``api_error`` reads it: the JSON body (the first element of a
    one-element array), or, when it is not JSON, its text with the status's reason phrase
    (as google-genai reads one)."""
    try:
        parsed: Any = json.loads(body)
    except ValueError:
        text = body.decode("utf-8", "replace")
        parsed = {"message": text, "status": _phrase(status)}
    if isinstance(parsed, list) and len(parsed) == 1:
        parsed = parsed[0]
    return api_error(status, parsed, headers)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def api_error(status: int | None, body: Any, headers: Mapping[str, str]) -> e.ProviderError:
    """A Gemini error body (``{"error": {code, message, status, details}}``) as a taor error."""
    error = body.get("error", body) if isinstance(body, dict) else {}
    error = error if isinstance(error, dict) else {}
    message = str(error.get("message") or body or f"HTTP {status}")
    code = error.get("status") if isinstance(error.get("status"), str) else None
    details: list[Any] = error["details"] if isinstance(error.get("details"), list) else []
    retry_after = parse_retry_after(headers.get("retry-after"))
    retry_after = _retry_delay(details) if retry_after is None else retry_after
    kwargs: dict[str, Any] = {
        "status": status,
        "code": code,
        "raw": body,
        "request_id": request_id_of(headers),
    }
    if _reason(details) in _BAD_KEY:  # Gemini answers a bad key with 400 INVALID_ARGUMENT
        return e.AuthenticationError(message, provider="gemini", **kwargs)
    if status == 429 or code == "RESOURCE_EXHAUSTED":
        if _daily_quota(details):
            return e.QuotaExhaustedError(message, provider="gemini", **kwargs)
        if retry_after is not None:
            return e.RateLimitError(message, provider="gemini", retry_after=retry_after, **kwargs)
    return classify("gemini", message=message, retry_after=retry_after, **kwargs)


def _reason(details: list[Any]) -> str:
    """The ``reason`` of the body's ``ErrorInfo`` detail, or ''."""
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("ErrorInfo"):
            return str(detail.get("reason", ""))
    return ""


def _retry_delay(details: list[Any]) -> float | None:
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            delay = str(detail.get("retryDelay", "")).removesuffix("s")
            try:
                return max(0.0, float(delay))
            except ValueError:
                return None
    return None


def _daily_quota(details: list[Any]) -> bool:
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("QuotaFailure"):
            for violation in detail.get("violations") or ():
                if "PerDay" in str(violation.get("quotaId", "")):
                    return True
    return False
