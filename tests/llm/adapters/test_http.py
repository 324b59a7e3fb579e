import httpx2
import pytest

from taor import errors as e
from taor.llm.adapters._error_map import classify, error_from_body, map_exception
from taor.llm.adapters._http import FragmentCache


@pytest.mark.parametrize(
    ("status", "code", "message", "expected"),
    [
        (401, "authentication_error", "invalid x-api-key", e.AuthenticationError),
        (403, "permission_error", "no access", e.PermissionDeniedError),
        (
            403,
            "invalid_request_error",
            "Project does not have access to model",
            e.PermissionDeniedError,
        ),
        (404, "not_found_error", "model: nope", e.ModelNotFoundError),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 250000 tokens > 200000 maximum",
            e.ContextLengthError,
        ),
        (
            400,
            "context_length_exceeded",
            "Your input exceeds the context window",
            e.ContextLengthError,
        ),
        (
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200000) exceeds the maximum",
            e.ContextLengthError,
        ),
        (
            400,
            "invalid_request_error",
            "messages: text content blocks must be non-empty",
            e.InvalidRequestError,
        ),
        (429, "rate_limit_error", "Number of requests exceeded", e.RateLimitError),
        (429, "insufficient_quota", "You exceeded your current quota", e.QuotaExhaustedError),
        (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted", e.RateLimitError),
        (529, "overloaded_error", "Overloaded", e.OverloadedError),
        (503, "UNAVAILABLE", "The model is overloaded. Please try again later.", e.OverloadedError),
        (500, "api_error", "Internal server error", e.ServerError),
        (502, None, "bad gateway", e.ServerError),
        (429, "api_error", "too many requests", e.RateLimitError),
        (402, None, "Insufficient credits", e.QuotaExhaustedError),
        (
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the API",
            e.QuotaExhaustedError,
        ),
        (504, "timeout_error", "Gateway timeout", e.ServerError),
        (418, None, "I'm a teapot", e.InvalidRequestError),
        (None, "overloaded_error", "Overloaded", e.OverloadedError),
    ],
)
def test_classify(status, code, message, expected) -> None:
    error = classify("p", status=status, code=code, message=message)
    assert type(error) is expected
    assert error.provider == "p"
    assert error.status == status


def test_retryable_flags() -> None:
    assert classify("p", status=429, message="x").retryable
    assert classify("p", status=529, message="x").retryable
    assert not classify("p", status=400, message="x").retryable
    assert not classify("p", status=429, code="insufficient_quota", message="x").retryable


def test_error_from_body_reads_shapes_and_retry_after() -> None:
    anthropic = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}
    error = error_from_body("anthropic", 429, anthropic, {"retry-after": "3"})
    assert isinstance(error, e.RateLimitError)
    assert (error.message, error.retry_after, error.raw) == ("slow", 3.0, anthropic)
    gemini = [{"error": {"code": 404, "message": "models/x is not found", "status": "NOT_FOUND"}}]
    assert isinstance(error_from_body("gemini", 404, gemini), e.ModelNotFoundError)
    assert error_from_body("x", 500, "<html>oops</html>").message == "<html>oops</html>"


def test_map_exception_for_transport_errors() -> None:
    assert isinstance(map_exception("p", httpx2.ReadTimeout("slow")), e.IdleTimeoutError)
    assert isinstance(map_exception("p", httpx2.ConnectError("refused")), e.NetworkError)
    assert isinstance(
        map_exception("p", httpx2.RemoteProtocolError("peer closed")), e.StreamInterruptedError
    )
    local_bug = map_exception("p", KeyError("x"))
    assert not local_bug.retryable


def test_fragment_cache_reuses_and_forgets() -> None:
    cache: FragmentCache[tuple[str], str] = FragmentCache()
    calls = []

    def encode(key: tuple[str]) -> str:
        calls.append(key)
        return key[0].upper()

    a, b = ("a",), ("b",)
    assert cache.get(a, encode) == "A"
    cache.rotate()
    assert cache.get(a, encode) == "A"
    assert cache.get(b, encode) == "B"
    cache.rotate()
    assert calls == [a, b]
    cache.rotate()  # a and b unused in the last request: forgotten
    cache.get(a, encode)
    assert calls == [a, b, a]
