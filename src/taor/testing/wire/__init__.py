"""The wire formats ``FakeProviderServer`` speaks, one module per provider API.

Each renders a scripted ``Reply`` exactly as the provider streams it (SSE framing, event names,
field names), renders provider-shaped error bodies and in-stream error events, and reads the
tool results out of a request body (for scripts computed from what was sent).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl, urlsplit

from taor._records import frozen
from taor.llm.response import Usage
from taor.testing.recorded import RecordedRequest

if TYPE_CHECKING:
    from taor.testing.script import HttpError, Reply


@frozen
class ReplyContext:
    """What a wire format needs besides the reply: the request, the normalized usage to report
    (convert it to the provider's own convention), and a factory of fresh tool-call ids."""

    request: RecordedRequest
    usage: Usage
    call_id: Callable[[], str]

    @property
    def model(self) -> str:
        body = self.request.json if isinstance(self.request.json, dict) else {}
        return str(body.get("model") or _model_from_path(self.request.path) or "fake-model")


def _model_from_path(path: str) -> str:
    tail = path.rsplit("/models/", 1)[-1] if "/models/" in path else ""
    return tail.split(":", 1)[0]


class WireFormat(Protocol):
    name: str
    request_id_header: str | None
    """The response header the provider names each request by (None: it sends none)."""

    def matches(self, path: str) -> bool: ...

    def is_stream(self, request: RecordedRequest) -> bool: ...

    def frames(self, reply: Reply, ctx: ReplyContext) -> Iterator[bytes]:
        """The complete SSE frames of a streamed reply (each ends with a blank line)."""
        ...

    def body(self, reply: Reply, ctx: ReplyContext) -> Any:
        """The JSON body of a non-streamed reply."""
        ...

    def error_body(self, error: HttpError) -> Any: ...

    def error_frame(self, error_type: str, message: str) -> bytes: ...

    def tool_results(self, body: Any) -> list[str]:
        """The text of every tool result in a request body, in order."""
        ...


def sse(data: Any, event: str | None = None) -> bytes:
    """One SSE frame with compact JSON data."""
    import json

    payload = json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def all_wires() -> tuple[WireFormat, ...]:
    from taor.testing.wire.anthropic import AnthropicWire
    from taor.testing.wire.chat import ChatWire
    from taor.testing.wire.gemini import GeminiWire
    from taor.testing.wire.openai import ResponsesWire

    return (AnthropicWire(), ResponsesWire(), ChatWire(), GeminiWire())


def received_request(
    wire: WireFormat,
    target: str,
    headers: Iterable[tuple[str, str]],
    body: bytes,
    *,
    received_ns: int = 0,
) -> RecordedRequest:
    """A POST to ``target`` as ``wire`` reads it (with an id when the provider sends one),
    which arrived at ``received_ns`` (``time.time_ns()``)."""
    parts = urlsplit(target)
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = None
    return RecordedRequest(
        method="POST",
        path=parts.path,
        query=dict(parse_qsl(parts.query)),
        headers={k.lower(): v for k, v in headers},
        body=body,
        json=parsed,
        wire=wire.name,
        tool_results=tuple(wire.tool_results(parsed)) if parsed is not None else (),
        request_id=f"req_fake{uuid.uuid4().hex[:24]}" if wire.request_id_header else None,
        received_ns=received_ns,
    )


__all__ = ["ReplyContext", "WireFormat", "all_wires", "received_request", "sse"]
