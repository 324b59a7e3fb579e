"""taor.llm: the provider-neutral LLM layer (messages, requests, streams, adapters, retry)."""

from taor.llm.assembler import Assembler, assemble, assemble_events
from taor.llm.catalog import Catalog, ModelInfo
from taor.llm.connect import connect, parse_model_string
from taor.llm.events import (
    Finish,
    ServerToolResult,
    ServerToolUse,
    StateDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from taor.llm.model import Model, Timeouts, complete
from taor.llm.response import FinishReason, Response, Usage
from taor.llm.retry import RetryInfo, RetryPolicy, call_with_retry, retry_stream
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import (
    ImagePart,
    Message,
    Part,
    Request,
    ServerToolPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolChoice,
    ToolResultPart,
    tool_result,
)

__all__ = [
    "Assembler",
    "Catalog",
    "Finish",
    "FinishReason",
    "ImagePart",
    "Message",
    "Model",
    "ModelInfo",
    "Part",
    "Request",
    "Response",
    "RetryInfo",
    "RetryPolicy",
    "ServerToolPart",
    "ServerToolResult",
    "ServerToolUse",
    "StateDelta",
    "StreamEvent",
    "StreamStart",
    "TextDelta",
    "TextPart",
    "ThinkingDelta",
    "ThinkingPart",
    "Timeouts",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallPart",
    "ToolCallStart",
    "ToolChoice",
    "ToolDefinition",
    "ToolResultPart",
    "Usage",
    "UsageUpdate",
    "assemble",
    "assemble_events",
    "call_with_retry",
    "complete",
    "connect",
    "parse_model_string",
    "retry_stream",
    "tool_result",
]
