"""What the adapter tests share: two tool definitions, a one-attempt retry policy, a request
builder and ``body_of`` (the JSON body an adapter sends for a request)."""

from __future__ import annotations

from typing import Any

from taor.llm import Message, Model, Request, RetryPolicy, ToolDefinition, complete
from taor.testing import FakeProviderServer, Reply

ONCE = RetryPolicy(max_attempts=1)
READ = ToolDefinition(
    name="read_file",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)
SHELL = ToolDefinition(name="shell", description="Run a command.")
PNG = b"\x89PNG\r\n\x1a\nfake"


def ask(*messages: Message, **kwargs: Any) -> Request:
    """A request of ``messages`` (a plain "hi" when none)."""
    return Request(messages=messages or (Message.user("hi"),), **kwargs)


async def body_of(model: Model, server: FakeProviderServer, request: Request) -> Any:
    """The JSON body ``model`` sends for ``request`` (the server answers "ok")."""
    server.push(Reply(text="ok"))
    await complete(model, request, retry=ONCE)
    return server.requests[-1].json
