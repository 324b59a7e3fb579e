"""What a request leaves out for a model that should not read its own earlier words.

A small model writes a plan before its tool call ("1. Read parity.py"), reads it back on the
next request, and starts the same plan over with the same call, until a guard stops it. Sent
without the text that came with its calls (the calls, results and final answers stay), it goes
on from the results instead. The transcript keeps everything; only the request leaves it out.
"""

from __future__ import annotations

import dataclasses

from taor.llm.types import Message, TextPart, ToolCallPart


def without_call_text(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """``messages`` with the text parts of assistant messages that make tool calls removed."""
    return tuple(_strip(message) for message in messages)


def _strip(message: Message) -> Message:
    if message.role != "assistant" or not any(isinstance(p, ToolCallPart) for p in message.parts):
        return message
    parts = tuple(part for part in message.parts if not isinstance(part, TextPart))
    return dataclasses.replace(message, parts=parts)
