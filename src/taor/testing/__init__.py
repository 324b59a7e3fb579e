"""taor.testing: public test doubles. ``ScriptedModel`` and ``FunctionModel`` stand in for a
model; ``FakeProviderServer`` stands in for the providers themselves, on 127.0.0.1, so the real
SDKs can be tested; cassettes record a real session once and replay it."""

from taor.testing.cassette import RecordingTransport, ReplayTransport
from taor.testing.fake_server import FakeProviderServer
from taor.testing.models import FunctionModel, ScriptedModel, ScriptExhaustedError
from taor.testing.recorded import RecordedRequest
from taor.testing.script import (
    Fault,
    HttpError,
    Reply,
    ToolCall,
    context_length,
    disconnect,
    error_event,
    malformed,
    overloaded,
    quota_exhausted,
    rate_limited,
    server_error,
    stall,
    text,
    tool_calls,
    unauthorized,
)
from taor.testing.server_tools import ServerToolRun, web_search

__all__ = [
    "FakeProviderServer",
    "Fault",
    "FunctionModel",
    "HttpError",
    "RecordedRequest",
    "RecordingTransport",
    "ReplayTransport",
    "Reply",
    "ScriptExhaustedError",
    "ScriptedModel",
    "ServerToolRun",
    "ToolCall",
    "context_length",
    "disconnect",
    "error_event",
    "malformed",
    "overloaded",
    "quota_exhausted",
    "rate_limited",
    "server_error",
    "stall",
    "text",
    "tool_calls",
    "unauthorized",
    "web_search",
]
