"""llama.cpp's answer to a tool call it cannot parse is its own error, which the retry policy
leaves alone (the same request would get the same call back)."""

from taor.errors import MalformedToolCallError, ServerError
from taor.llm.adapters._error_map import error_from_body
from taor.llm.retry import RetryPolicy

LLAMA_CPP = {
    "error": {
        "code": 500,
        "message": "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101]",
        "type": "server_error",
    }
}


def test_llama_cpps_parse_failure_is_a_malformed_tool_call_not_retried() -> None:
    error = error_from_body("local", 500, LLAMA_CPP)
    assert isinstance(error, MalformedToolCallError) and isinstance(error, ServerError)
    assert not error.retryable and not RetryPolicy().should_retry(error)
    newer = "The model produced output that does not match the expected peg-native format"
    error = error_from_body("local", 500, {"error": {"message": newer, "type": "server_error"}})
    assert isinstance(error, MalformedToolCallError)
    other = error_from_body("local", 500, {"error": {"message": "boom", "type": "server_error"}})
    assert type(other) is ServerError and other.retryable
